import ImageIO
import Inference
import Pipeline

/// Receives live-stream results of a `FaceLandmarker` (running mode `.liveStream`), in increasing
/// timestamp order, each accepted frame at most once. Frames dropped because the landmarker was
/// busy produce no call (see `HandLandmarker`'s notes on threads, which hold here too).
///
/// Thread safety: the landmarker calls its delegate on its own private serial queue, never on
/// the thread that submitted the frame, one call at a time. A conforming type must therefore be
/// safe to call from that queue while other threads use it. The protocol does not require
/// `Sendable`, so that delegate classes written for iOS port unchanged. The landmarker holds its
/// delegate weakly.
public protocol FaceLandmarkerLiveStreamDelegate: AnyObject {
    func faceLandmarker(
        _ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?)
}

extension FaceLandmarkerOptions {
    /// The delegate that receives live-stream results; required in `.liveStream` mode and
    /// refused in the others. Held weakly, as on iOS.
    public var faceLandmarkerLiveStreamDelegate: (any FaceLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any FaceLandmarkerLiveStreamDelegate }
        set { liveStreamDelegateObject = newValue }
    }
}

/// MediaPipe's Face Mesh on Linux, with the iOS Tasks API: up to `numFaces` faces per image,
/// each with 468 landmarks (478 with `face_landmarker_refined.task`), normalized to the image.
/// The numbers are those of MediaPipe's legacy Face Mesh graph (`face_landmark_front_cpu`),
/// bit for bit (see `FaceLandmarkerOptions` for how the options map onto it).
///
/// - `.image`: `detect(image:)`, face detector on every call.
/// - `.video`: `detect(videoFrame:timestampInMilliseconds:)`, strictly increasing timestamps;
///   faces are tracked from frame to frame, and the detector runs only while fewer than
///   `numFaces` faces are tracked. Each face carries a track id (`FaceLandmarkerResult.trackIds`).
/// - `.liveStream`: `detectAsync(image:timestampInMilliseconds:)` returns at once; results go
///   to the delegate. One frame runs while at most one waits; a newer frame replaces the
///   waiting one.
///
/// The face detector is MediaPipe's short-range model: faces within about 2 m of the camera,
/// at least about a tenth of the image's shorter side. Landmarks are not smoothed (MediaPipe's
/// Face Mesh does not smooth either). Blendshapes and transformation matrices are not available:
/// asking for them throws `TaskError.unavailableOutput` when the landmarker is created.
///
/// Images with an orientation other than `.up` are processed upright: landmarks are
/// normalized to the upright image (`MPImage.width` × `MPImage.height`).
///
/// **Threads.** The landmarker is `Sendable` and behaves as `HandLandmarker` does: synchronous
/// calls from several threads take turns, live-stream results arrive on a private serial queue
/// in timestamp order, and `close()` returns once every accepted frame is delivered or dropped.
public final class FaceLandmarker: Sendable {
    /// The 40 lip connections.
    public static var lipsConnections: [Connection] { FaceLandmarksConnections.lipsConnections }
    /// The 16 left-eye connections (the subject's left).
    public static var leftEyeConnections: [Connection] { FaceLandmarksConnections.leftEyeConnections }
    /// The 8 left-eyebrow connections.
    public static var leftEyebrowConnections: [Connection] { FaceLandmarksConnections.leftEyebrowConnections }
    /// The 4 left-iris connections (refined model only).
    public static var leftIrisConnections: [Connection] { FaceLandmarksConnections.leftIrisConnections }
    /// The 16 right-eye connections.
    public static var rightEyeConnections: [Connection] { FaceLandmarksConnections.rightEyeConnections }
    /// The 8 right-eyebrow connections.
    public static var rightEyebrowConnections: [Connection] { FaceLandmarksConnections.rightEyebrowConnections }
    /// The 4 right-iris connections (refined model only).
    public static var rightIrisConnections: [Connection] { FaceLandmarksConnections.rightIrisConnections }
    /// The 36 face-oval connections.
    public static var faceOvalConnections: [Connection] { FaceLandmarksConnections.faceOvalConnections }
    /// Lips, eyes, eyebrows and face oval: 124 connections, for drawing a face.
    public static var contoursConnections: [Connection] { FaceLandmarksConnections.contoursConnections }

    private let runner: VisionTaskRunner<MPImage, FaceLandmarkerResult>

    /// A landmarker in image mode with default options (one face), from a `.task` bundle
    /// holding `face_detector.tflite` and `face_landmarks_detector.tflite`.
    public convenience init(modelPath: String) throws {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Validates `options`, loads both models and prepares them.
    /// - Throws: `TaskError` for invalid options, unavailable outputs or invalid models,
    ///   `ModelAssetError` for an unreadable bundle.
    public init(options: FaceLandmarkerOptions) throws {
        let configuration = try options.validated()
        let models = try ModelLoading.interpreters(
            kind: .faceLandmarker, source: configuration.modelAsset, baseOptions: options.baseOptions)
        let graph = try ModelLoading.graph {
            try FaceGraph(
                detector: models[0], landmarkModel: models[1],
                configuration: .init(
                    numFaces: configuration.numFaces,
                    minDetectionConfidence: configuration.minFaceDetectionConfidence,
                    minPresenceConfidence: configuration.minFacePresenceConfidence,
                    associationThreshold: configuration.minTrackingConfidence,
                    streamMode: configuration.runningMode != .image))
        }
        let owner = WeakReference<FaceLandmarker>(nil)
        let delegate = WeakReference(options.faceLandmarkerLiveStreamDelegate)
        let mode = VisionTaskRunner<MPImage, FaceLandmarkerResult>.Mode.from(configuration.runningMode) { result, timestamp, error in
            guard let landmarker = owner.object, let delegate = delegate.object else { return }
            delegate.faceLandmarker(landmarker, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
        }
        let box = UnsafeSendableGraph(graph)
        let streamMode = configuration.runningMode != .image
        runner = VisionTaskRunner(mode: mode, label: "face-landmarker") { image, timestamp, _ in
            let faces = try box.graph.process(image.uprightRGBImage())
            return FaceLandmarkerResult(
                faceLandmarks: faces.map { $0.landmarks.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) } },
                timestampInMilliseconds: timestamp,
                trackIds: streamMode ? faces.compactMap(\.trackId) : nil)
        }
        // As in `HandLandmarker`: only the live-stream handler reads `owner`.
        if configuration.runningMode == .liveStream { owner.object = self }
    }

    deinit { runner.close() }

    /// Detects faces in a still image (`.image` mode). Blocks until done.
    public func detect(image: MPImage) throws -> FaceLandmarkerResult {
        try runner.processImage(image)
    }

    /// Detects faces in a video frame (`.video` mode); timestamps must increase strictly.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> FaceLandmarkerResult {
        try runner.processVideoFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Queues a live-stream frame (`.liveStream` mode) and returns at once; the result reaches
    /// the delegate, unless a newer frame displaces this one while it waits. Timestamps must
    /// increase strictly.
    /// - Throws: `TaskError.nonMonotonicTimestamp`, `TaskError.closed`,
    ///   `TaskError.runningModeMismatch`, `TaskError.timestampOutOfRange`.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.processLiveStreamFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Waits for accepted live-stream frames to be delivered or dropped, then frees the models.
    /// Later calls throw `TaskError.closed`. Idempotent; callable from any thread, including
    /// the delegate (where it does not wait).
    public func close() { runner.close() }
}
