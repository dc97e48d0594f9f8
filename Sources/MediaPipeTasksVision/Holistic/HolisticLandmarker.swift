import ImageIO
import Inference
import Pipeline

/// Receives live-stream results of a `HolisticLandmarker` (running mode `.liveStream`), in
/// increasing timestamp order, each accepted frame at most once; as
/// `FaceLandmarkerLiveStreamDelegate` otherwise (private serial queue, held weakly).
public protocol HolisticLandmarkerLiveStreamDelegate: AnyObject {
    func holisticLandmarker(
        _ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?)
}

extension HolisticLandmarkerOptions {
    /// The delegate that receives live-stream results; required in `.liveStream` mode and
    /// refused in the others. Held weakly.
    public var holisticLandmarkerLiveStreamDelegate: (any HolisticLandmarkerLiveStreamDelegate)? {
        get { liveStreamDelegateObject as? any HolisticLandmarkerLiveStreamDelegate }
        set { liveStreamDelegateObject = newValue }
    }
}

/// MediaPipe's Holistic on Linux: the body (33 landmarks and world landmarks), the face (468, or
/// 478 with `holistic_landmarker_refined.task`) and both hands (21 landmarks and world landmarks
/// each) of a person, with the numbers of MediaPipe's legacy holistic graph
/// (`holistic_landmark_cpu`, docs/PIPELINE.md, "Holistic"); with `numPoses` > 1, of up to that
/// many people, each with a track id in video and live-stream modes (beyond MediaPipe).
///
/// - `.image`: `detect(image:)`; every image stands alone.
/// - `.video`: `detect(videoFrame:timestampInMilliseconds:)` or
///   `detect(videoFrame:timestampInMicroseconds:)`, strictly increasing timestamps: the body is
///   tracked and smoothed, the face and hands tracked. MediaPipe's legacy solutions time frame k
///   at (k + 1) · 33333 µs, which only the microsecond call reproduces (the smoothing depends on
///   the time step).
/// - `.liveStream`: `detectAsync(image:timestampInMilliseconds:)` (or microseconds) returns at
///   once; results go to the delegate, with the other landmarkers' flow limiting.
///
/// Blendshapes are not available: asking for them throws `TaskError.unavailableOutput` when
/// the landmarker is created.
///
/// **Threads.** The landmarker is `Sendable` and behaves as `HandLandmarker` does.
public final class HolisticLandmarker: Sendable {
    private let runner: VisionTaskRunner<MPImage, HolisticLandmarkerResult>

    /// A landmarker in image mode with default options, from a `.task` bundle.
    public convenience init(modelPath: String) throws {
        let options = HolisticLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        try self.init(options: options)
    }

    /// Validates `options`, loads the six models and prepares them.
    /// - Throws: `TaskError` for invalid options, unavailable outputs or invalid models,
    ///   `ModelAssetError` for an unreadable bundle.
    public init(options: HolisticLandmarkerOptions) throws {
        let configuration = try options.validated()
        let models = try ModelLoading.interpreters(
            kind: .holisticLandmarker, source: configuration.modelAsset, baseOptions: options.baseOptions,
            segmentationMasks: configuration.outputPoseSegmentationMasks)
        let streamMode = configuration.runningMode != .image
        let graph = try ModelLoading.graph {
            try HolisticGraph(
                models: .init(
                    poseDetector: models[0], poseLandmarks: models[1], faceDetector: models[2],
                    faceLandmarks: models[3], handRecrop: models[4], handLandmarks: models[5]),
                configuration: .init(
                    numPoses: configuration.numPoses, minDetectionConfidence: configuration.minPoseDetectionConfidence,
                    minTrackingConfidence: configuration.minPosePresenceConfidence,
                    minFaceDetectionConfidence: configuration.minFaceDetectionConfidence,
                    minFacePresenceConfidence: configuration.minFacePresenceConfidence,
                    minHandPresenceConfidence: configuration.minHandLandmarksConfidence,
                    streamMode: streamMode, outputSegmentationMasks: configuration.outputPoseSegmentationMasks))
        }
        let owner = WeakReference<HolisticLandmarker>(nil)
        let delegate = WeakReference(options.holisticLandmarkerLiveStreamDelegate)
        let mode = VisionTaskRunner<MPImage, HolisticLandmarkerResult>.Mode.from(configuration.runningMode) {
            result, timestamp, error in
            guard let landmarker = owner.object, let delegate = delegate.object else { return }
            delegate.holisticLandmarker(landmarker, didFinishDetection: result, timestampInMilliseconds: timestamp, error: error)
        }
        let box = UnsafeSendableGraph(graph)
        runner = VisionTaskRunner(microsecondMode: mode, label: "holistic-landmarker") { image, microseconds, _ in
            // Image mode: the face and hands must not be tracked from the previous image.
            if !streamMode { box.graph.reset() }
            let upright = image.uprightRGBImage()
            let people = try box.graph.process(upright, timestampMicroseconds: microseconds)
            return HolisticLandmarkerResult(
                people: people, imageWidth: upright.width, imageHeight: upright.height,
                timestampInMilliseconds: VisionTaskRunner<MPImage, HolisticLandmarkerResult>.milliseconds(of: microseconds),
                trackIds: streamMode ? people.compactMap(\.pose.personId) : nil)
        }
        if configuration.runningMode == .liveStream { owner.object = self }
    }

    deinit { runner.close() }

    /// Detects the person in a still image (`.image` mode). Blocks until done.
    public func detect(image: MPImage) throws -> HolisticLandmarkerResult {
        try runner.processImage(image)
    }

    /// Detects the person in a video frame (`.video` mode); timestamps must increase strictly.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> HolisticLandmarkerResult {
        try runner.processVideoFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Detects the person in a video frame (`.video` mode) timed in microseconds; timestamps
    /// must increase strictly. Not part of MediaPipe's Tasks API: it reproduces the legacy
    /// solutions' 33333 µs clock.
    public func detect(videoFrame image: MPImage, timestampInMicroseconds: Int64) throws -> HolisticLandmarkerResult {
        try runner.processVideoFrame(image, timestampInMicroseconds: timestampInMicroseconds)
    }

    /// Queues a live-stream frame (`.liveStream` mode) and returns at once; the result reaches
    /// the delegate, unless a newer frame displaces this one while it waits.
    public func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws {
        try runner.processLiveStreamFrame(image, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Queues a live-stream frame timed in microseconds; as
    /// `detectAsync(image:timestampInMilliseconds:)` otherwise.
    public func detectAsync(image: MPImage, timestampInMicroseconds: Int64) throws {
        try runner.processLiveStreamFrame(image, timestampInMicroseconds: timestampInMicroseconds)
    }

    /// Waits for accepted live-stream frames to be delivered or dropped, then frees the models.
    /// Later calls throw `TaskError.closed`. Idempotent.
    public func close() { runner.close() }
}

extension HolisticLandmarkerResult {
    /// The result of the graph's people, each part an empty list where it was not found; the
    /// masks are `imageWidth × imageHeight`.
    init(people: [HolisticGraph.Person], imageWidth: Int, imageHeight: Int, timestampInMilliseconds: Int, trackIds: [Int]?) {
        func points(_ landmarks: [RawLandmark]?) -> [NormalizedLandmark] {
            (landmarks ?? []).map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) }
        }
        func world(_ landmarks: [RawWorldLandmark]?) -> [Landmark] {
            (landmarks ?? []).map { Landmark(x: $0.x, y: $0.y, z: $0.z) }
        }
        self.init(
            poseLandmarks: people.map { $0.pose.landmarks.map(NormalizedLandmark.init) },
            poseWorldLandmarks: people.map { $0.pose.worldLandmarks.map(Landmark.init) },
            poseSegmentationMasks: people.compactMap { person in
                person.pose.mask.map { Mask(width: imageWidth, height: imageHeight, float32Data: $0) }
            },
            faceLandmarks: people.map { points($0.face?.landmarks) },
            leftHandLandmarks: people.map { points($0.leftHand?.landmarks.landmarks) },
            leftHandWorldLandmarks: people.map { world($0.leftHand?.landmarks.worldLandmarks) },
            rightHandLandmarks: people.map { points($0.rightHand?.landmarks.landmarks) },
            rightHandWorldLandmarks: people.map { world($0.rightHand?.landmarks.worldLandmarks) },
            timestampInMilliseconds: timestampInMilliseconds, trackIds: trackIds)
    }
}
