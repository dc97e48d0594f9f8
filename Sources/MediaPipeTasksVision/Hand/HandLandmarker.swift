import ImageIO
import Inference
import Pipeline

/// Receives live-stream results of a `HandLandmarker` (running mode `.liveStream`), in increasing
/// timestamp order, each accepted frame at most once. Frames dropped because the landmarker was
/// busy produce no call (see the landmarker's notes on threads for how to tell them).
///
/// Thread safety: the landmarker calls its delegate on its own private serial queue, never on
/// the thread that submitted the frame, one call at a time. A conforming type must therefore be
/// safe to call from that queue while other threads use it (guard shared state with a lock, or
/// hop to another queue). The protocol does not require `Sendable`, so that delegate classes
/// written for iOS port unchanged; the compiler does not check this for you. The landmarker
/// holds its delegate weakly.
public protocol HandLandmarkerLiveStreamDelegate: AnyObject {
    func handLandmarker(
        _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?)
}

extension HandLandmarkerOptions {
    /// The delegate that receives live-stream results; required in `.liveStream` mode and
    /// refused in the others. Held weakly, as on iOS.
    public var handLandmarkerLiveStreamDelegate: (any HandLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any HandLandmarkerLiveStreamDelegate }
        set { liveStreamDelegateObject = newValue }
    }
}

/// MediaPipe's Hand Landmarker on Linux: up to `numHands` hands per image, each with 21
/// landmarks (normalized to the image; z normalized like x, wrist ≈ 0, smaller = closer),
/// 21 world landmarks (metres, origin at the hand's approximate centre) and a handedness
/// category ("Left"/"Right" = the subject's actual hand in a non-mirrored image, as the
/// Tasks API reports it since MediaPipe 0.10.5; the legacy solution's labels are the opposite).
///
/// - `.image`: `detect(image:)`, palm detector on every call.
/// - `.video`: `detect(videoFrame:timestampInMilliseconds:)`, strictly increasing timestamps;
///   hands are tracked from frame to frame, and the palm detector runs only while fewer than
///   `numHands` hands are tracked. Each hand carries a track id (`HandLandmarkerResult.trackIds`).
/// - `.liveStream`: `detectAsync(image:timestampInMilliseconds:)` returns at once; results go
///   to the delegate. One frame runs while at most one waits; a newer frame replaces the
///   waiting one.
///
/// Palm-derived hand regions are rotated with the 90° target of MediaPipe's legacy graph, not
/// with the Tasks graph's 90-radian value (see `HandGraph`). Landmarks are not smoothed
/// (MediaPipe does not smooth hands either).
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
public final class HandLandmarker: Sendable {
    /// The 6 palm connections.
    public static var handPalmConnections: [Connection] { HandLandmarksConnections.handPalmConnections }
    /// The 3 thumb connections.
    public static var handThumbConnections: [Connection] { HandLandmarksConnections.handThumbConnections }
    /// The 3 index-finger connections.
    public static var handIndexFingerConnections: [Connection] { HandLandmarksConnections.handIndexFingerConnections }
    /// The 3 middle-finger connections.
    public static var handMiddleFingerConnections: [Connection] { HandLandmarksConnections.handMiddleFingerConnections }
    /// The 3 ring-finger connections.
    public static var handRingFingerConnections: [Connection] { HandLandmarksConnections.handRingFingerConnections }
    /// The 3 pinky connections.
    public static var handPinkyConnections: [Connection] { HandLandmarksConnections.handPinkyConnections }
    /// All 21 hand connections, for drawing a skeleton.
    public static var handConnections: [Connection] { HandLandmarksConnections.handConnections }

    private let runner: VisionTaskRunner<MPImage, HandLandmarkerResult>

    /// A landmarker in image mode with default options (one hand), from a `.task` bundle
    /// holding `hand_detector.tflite` and `hand_landmarks_detector.tflite`.
    public convenience init(modelPath: String) throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Validates `options`, loads both models and prepares them.
    /// - Throws: `TaskError` for invalid options or models, `ModelAssetError` for an
    ///   unreadable bundle.
    public init(options: HandLandmarkerOptions) throws {
        let configuration = try options.validated()
        let models = try ModelLoading.interpreters(
            kind: .handLandmarker, source: configuration.modelAsset, baseOptions: options.baseOptions)
        let graph = try ModelLoading.graph {
            try HandGraph(
                detector: models[0], landmarkModel: models[1],
                configuration: .init(
                    numHands: configuration.numHands,
                    minDetectionConfidence: configuration.minHandDetectionConfidence,
                    minPresenceConfidence: configuration.minHandPresenceConfidence,
                    minTrackingConfidence: configuration.minTrackingConfidence,
                    streamMode: configuration.runningMode != .image))
        }
        let owner = WeakReference<HandLandmarker>(nil)
        let delegate = WeakReference(options.handLandmarkerLiveStreamDelegate)
        let mode = VisionTaskRunner<MPImage, HandLandmarkerResult>.Mode.from(configuration.runningMode) { result, timestamp, error in
            guard let landmarker = owner.object, let delegate = delegate.object else { return }
            delegate.handLandmarker(landmarker, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
        }
        let box = UnsafeSendableGraph(graph)
        let streamMode = configuration.runningMode != .image
        runner = VisionTaskRunner(mode: mode, label: "hand-landmarker") { image, timestamp, _ in
            let hands = try box.graph.process(image.uprightRGBImage())
            return HandLandmarkerResult(
                landmarks: hands.map { $0.landmarks.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) } },
                worldLandmarks: hands.map { $0.worldLandmarks.map { Landmark(x: $0.x, y: $0.y, z: $0.z) } },
                handedness: hands.map { [ResultCategory($0.handedness)] },
                timestampInMilliseconds: timestamp,
                trackIds: streamMode ? hands.compactMap(\.trackId) : nil)
        }
        // Only the live-stream handler reads `owner`. Forming a weak reference gives `self` a
        // side table that, once `owner` is freed at the end of this init, only the object's
        // encoded header points to: a leak checker then reports it as lost for as long as the
        // landmarker lives. In live-stream mode `owner` lives in the runner, beside it.
        if configuration.runningMode == .liveStream { owner.object = self }
    }

    deinit { runner.close() }

    /// Detects hands in a still image (`.image` mode). Blocks until done.
    public func detect(image: MPImage) throws -> HandLandmarkerResult {
        try runner.processImage(image)
    }

    /// Detects hands in a video frame (`.video` mode); timestamps must increase strictly.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> HandLandmarkerResult {
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

extension ResultCategory {
    /// A handedness category as the Tasks API reports it: the label is both the category
    /// name and the display name.
    init(_ handedness: HandednessCategory) {
        self.init(
            index: handedness.index, score: handedness.score,
            categoryName: handedness.label, displayName: handedness.label)
    }
}
