import ImageIO
import Inference
import Pipeline

/// Receives live-stream results of a `PoseLandmarker` (running mode `.liveStream`), in increasing
/// timestamp order, each accepted frame at most once. Frames dropped because the landmarker was
/// busy produce no call (see the landmarker's notes on threads for how to tell them).
///
/// Thread safety: the landmarker calls its delegate on its own private serial queue, never on
/// the thread that submitted the frame, one call at a time. A conforming type must therefore be
/// safe to call from that queue while other threads use it (guard shared state with a lock, or
/// hop to another queue). The protocol does not require `Sendable`, so that delegate classes
/// written for iOS port unchanged; the compiler does not check this for you. The landmarker
/// holds its delegate weakly.
public protocol PoseLandmarkerLiveStreamDelegate: AnyObject {
    func poseLandmarker(
        _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?)
}

extension PoseLandmarkerOptions {
    /// The delegate that receives live-stream results; required in `.liveStream` mode and
    /// refused in the others. Held weakly, as on iOS.
    public var poseLandmarkerLiveStreamDelegate: (any PoseLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any PoseLandmarkerLiveStreamDelegate }
        set { liveStreamDelegateObject = newValue }
    }
}

/// MediaPipe's Pose Landmarker on Linux: up to `numPoses` people per image, 33 landmarks each
/// (normalized to the image), 33 world landmarks (metres, origin between the hips) and an
/// optional segmentation mask per person.
///
/// - `.image`: `detect(image:)`, detector on every call.
/// - `.video`: `detect(videoFrame:timestampInMilliseconds:)`, strictly increasing timestamps;
///   people are tracked from frame to frame and, with `numPoses == 1`, smoothed. Each pose
///   carries a person id (`PoseLandmarkerResult.trackIds`), and `shouldSmoothEachTrack` smooths
///   every tracked person with their own filters.
/// - `.liveStream`: `detectAsync(image:timestampInMilliseconds:)` returns at once; results go
///   to the delegate. One frame runs while at most one waits; a newer frame replaces the
///   waiting one.
///
/// Images with an orientation other than `.up` are processed upright: landmarks are
/// normalized to the upright image (`MPImage.width` × `MPImage.height`).
///
/// **Threads.** The landmarker is `Sendable`: one instance may be shared by any number of threads.
/// - `detect(image:)` and `detect(videoFrame:timestampInMilliseconds:)` called from several
///   threads take turns: each call blocks until the ones ahead of it are done, and the tracking
///   state is never touched by two frames at once. A video frame whose timestamp is not greater
///   than the last accepted one (another thread got in first) throws
///   `TaskError.nonMonotonicTimestamp` and leaves the tracking state as it was.
/// - `detectAsync(image:timestampInMilliseconds:)` may be called from several threads. Each call
///   is accepted or refused at once: a timestamp not greater than the last accepted one throws
///   `TaskError.nonMonotonicTimestamp`. Threads that take timestamps from a shared counter can
///   still reach the landmarker out of order and get this error; to avoid it, take the timestamp
///   and call `detectAsync` under one lock.
/// - Live-stream results reach the delegate on the landmarker's private serial queue, one at a
///   time, in increasing timestamp order, each accepted frame at most once.
/// - **Dropped frames.** While one frame runs, at most one more waits; a newer frame replaces
///   the waiting one, which is dropped without a callback. The newest accepted frame is never
///   dropped. So when the delegate receives timestamp *t*, every accepted frame older than *t*
///   that has had no callback was dropped, and once `close()` returns, every accepted frame
///   has had its callback or was dropped.
/// - `close()` may be called from any thread. It returns once every accepted frame is
///   delivered or dropped; no callback comes after it. From inside the delegate it returns at
///   once instead, and the frame waiting, if any, is still delivered. Every later call throws
///   `TaskError.closed`.
/// - Releasing the last reference without `close()` is safe; results not yet delivered then
///   get no callback.
public final class PoseLandmarker: Sendable {
    /// The 35 connections between pose landmarks, for drawing a skeleton.
    public static var poseLandmarks: [Connection] { PoseLandmarksConnections.poseLandmarks }

    private let runner: VisionTaskRunner<MPImage, PoseLandmarkerResult>

    /// A landmarker in image mode with default options, from a `.task` bundle holding
    /// `pose_detector.tflite` and `pose_landmarks_detector.tflite`.
    public convenience init(modelPath: String) throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Validates `options`, loads both models and prepares them.
    /// - Throws: `TaskError` for invalid options or models, `ModelAssetError` for an
    ///   unreadable bundle.
    public init(options: PoseLandmarkerOptions) throws {
        let configuration = try options.validated()
        let models = try ModelLoading.interpreters(
            kind: .poseLandmarker, source: configuration.modelAsset, baseOptions: options.baseOptions,
            segmentationMasks: configuration.shouldOutputSegmentationMasks)
        let graph = try ModelLoading.graph {
            try PoseGraph(
                detector: models[0], landmarkModel: models[1],
                configuration: .init(
                    numPoses: configuration.numPoses,
                    minDetectionConfidence: configuration.minPoseDetectionConfidence,
                    minPresenceConfidence: configuration.minPosePresenceConfidence,
                    minTrackingConfidence: configuration.minTrackingConfidence,
                    outputSegmentationMasks: configuration.shouldOutputSegmentationMasks,
                    streamMode: configuration.runningMode != .image,
                    smoothsEachTrack: configuration.shouldSmoothEachTrack))
        }
        let owner = WeakReference<PoseLandmarker>(nil)
        let delegate = WeakReference(options.poseLandmarkerLiveStreamDelegate)
        let mode = VisionTaskRunner<MPImage, PoseLandmarkerResult>.Mode.from(configuration.runningMode) { result, timestamp, error in
            guard let landmarker = owner.object, let delegate = delegate.object else { return }
            delegate.poseLandmarker(landmarker, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
        }
        let box = UnsafeSendableGraph(graph)
        let streamMode = configuration.runningMode != .image
        runner = VisionTaskRunner(mode: mode, label: "pose-landmarker") { image, timestamp, _ in
            let upright = image.uprightRGBImage()
            let poses = try box.graph.process(upright, timestampMicroseconds: Int64(timestamp) * 1000)
            return PoseLandmarkerResult(
                landmarks: poses.map { $0.landmarks.map(NormalizedLandmark.init) },
                worldLandmarks: poses.map { $0.worldLandmarks.map(Landmark.init) },
                segmentationMasks: poses.compactMap { pose in
                    pose.mask.map { Mask(width: upright.width, height: upright.height, float32Data: $0) }
                },
                timestampInMilliseconds: timestamp,
                trackIds: streamMode ? poses.compactMap(\.personId) : nil)
        }
        // Only the live-stream handler reads `owner`. Forming a weak reference gives `self` a
        // side table that, once `owner` is freed at the end of this init, only the object's
        // encoded header points to: a leak checker then reports it as lost for as long as the
        // landmarker lives. In live-stream mode `owner` lives in the runner, beside it.
        if configuration.runningMode == .liveStream { owner.object = self }
    }

    deinit { runner.close() }

    /// Detects poses in a still image (`.image` mode). Blocks until done.
    public func detect(image: MPImage) throws -> PoseLandmarkerResult {
        try runner.processImage(image)
    }

    /// Detects poses in a video frame (`.video` mode); timestamps must increase strictly.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> PoseLandmarkerResult {
        try runner.processVideoFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Queues a live-stream frame (`.liveStream` mode) and returns at once; the result reaches
    /// the delegate, unless a newer frame displaces this one while it waits (see the notes on
    /// threads). Timestamps must increase strictly.
    /// - Throws: `TaskError.nonMonotonicTimestamp` when the timestamp is not greater than the
    ///   last accepted one (the frame is refused and gets no callback), `TaskError.closed`,
    ///   `TaskError.runningModeMismatch`, `TaskError.timestampOutOfRange`.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.processLiveStreamFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Waits for accepted live-stream frames to be delivered or dropped, then frees the models.
    /// Later calls throw `TaskError.closed`. Idempotent; callable from any thread, including
    /// the delegate (where it does not wait).
    public func close() { runner.close() }
}

extension NormalizedLandmark {
    init(_ landmark: RawLandmark) {
        self.init(x: landmark.x, y: landmark.y, z: landmark.z,
                  visibility: landmark.visibility, presence: landmark.presence)
    }
}

extension Landmark {
    init(_ landmark: RawWorldLandmark) {
        self.init(x: landmark.x, y: landmark.y, z: landmark.z,
                  visibility: landmark.visibility, presence: landmark.presence)
    }
}
