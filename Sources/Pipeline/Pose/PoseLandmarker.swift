import Foundation
import ImageIO
import Inference

/// Receives live-stream results of a `PoseLandmarker` (running mode `.liveStream`), on the
/// landmarker's private serial queue, in increasing timestamp order. Frames dropped because
/// the landmarker was busy produce no call.
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
///   people are tracked from frame to frame and, with `numPoses == 1`, smoothed.
/// - `.liveStream`: `detectAsync(image:timestampInMilliseconds:)` returns at once; results go
///   to the delegate. One frame runs while at most one waits; a newer frame replaces the
///   waiting one.
///
/// Images with an orientation other than `.up` are processed upright: landmarks are
/// normalized to the upright image (`MPImage.width` × `MPImage.height`).
///
/// Thread safety: the landmarker is `Sendable`. Calls from several threads are serialised;
/// the tracking state is never touched by two frames at once.
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
        let threads = try options.baseOptions.validatedThreadCount()
        let models = try LandmarkerModels(kind: .poseLandmarker, source: configuration.modelAsset)
        let graph = try PoseGraph(
            detector: ModelLoading.interpreter(models.detectorModel, name: "pose_detector.tflite", threads: threads),
            landmarkModel: ModelLoading.interpreter(
                models.landmarksDetectorModel, name: "pose_landmarks_detector.tflite", threads: threads),
            configuration: .init(
                numPoses: configuration.numPoses,
                minDetectionConfidence: configuration.minPoseDetectionConfidence,
                minPresenceConfidence: configuration.minPosePresenceConfidence,
                minTrackingConfidence: configuration.minTrackingConfidence,
                outputSegmentationMasks: configuration.shouldOutputSegmentationMasks,
                streamMode: configuration.runningMode != .image))
        let owner = WeakReference<PoseLandmarker>(nil)
        let delegate = WeakReference(options.poseLandmarkerLiveStreamDelegate)
        let mode = VisionTaskRunner<MPImage, PoseLandmarkerResult>.Mode.from(configuration.runningMode) { result, timestamp, error in
            guard let landmarker = owner.object, let delegate = delegate.object else { return }
            delegate.poseLandmarker(landmarker, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
        }
        let box = UnsafeSendableGraph(graph)
        let outputMasks = configuration.shouldOutputSegmentationMasks
        runner = VisionTaskRunner(mode: mode, label: "pose-landmarker") { image, timestamp, _ in
            let upright = image.uprightRGBImage()
            let poses = try box.graph.process(upright, timestampMicroseconds: Int64(timestamp) * 1000)
            return PoseLandmarkerResult(
                landmarks: poses.map { $0.landmarks.map(NormalizedLandmark.init) },
                worldLandmarks: poses.map { $0.worldLandmarks.map(Landmark.init) },
                segmentationMasks: outputMasks
                    ? poses.compactMap { pose in
                        pose.mask.map { Mask(width: upright.width, height: upright.height, float32Data: $0) }
                    }
                    : nil,
                timestampInMilliseconds: timestamp)
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
    /// the delegate. Timestamps must increase strictly.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.processLiveStreamFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Waits for accepted live-stream frames, then frees the models. Later calls throw
    /// `TaskError.closed`.
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
