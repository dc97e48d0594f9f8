import Dispatch
import MediaPipeTasksVision

/// ML Kit's pose detector on Linux, built on `PoseLandmarker` (MediaPipeTasksVision) with `numPoses` 1.
///
/// ```swift
/// let options = PoseDetectorOptions()
/// options.detectorMode = .singleImage
/// let poseDetector = PoseDetector.poseDetector(options: options)
/// let poses = try poseDetector.results(in: VisionImage(contentsOfFile: "person.png"))
/// ```
///
/// - `.stream` (default): the landmarker's video mode: the person is tracked from the previous
///   result and the detector runs again only when the track is lost; landmarks are smoothed.
///   ML Kit takes no timestamps, so each call is stamped with the milliseconds elapsed on a
///   monotonic clock since the detector was made, taken when its processing starts (forced
///   strictly increasing). Smoothing therefore follows the real pace of the calls.
/// - `.singleImage`: the landmarker's image mode: detection on every call, nothing carried over.
///
/// Results hold at most one ``Pose`` (33 landmarks in pixels of the image as displayed: turned
/// upright and, for a mirrored orientation, mirrored; see ``VisionImage``); the array is empty
/// when nobody is found.
///
/// **Missing model.** As in ML Kit, making a detector cannot fail: ``poseDetector(options:)``
/// tries to load the bundle (see ``PoseDetectorOptions`` for where it looks) and, if that
/// fails, returns a detector whose every call reports ``PoseDetectorError/modelUnavailable(path:reason:)``.
/// Check ``loadError`` to find out at once.
///
/// **Threads.** The detector is `Sendable`: share one between threads freely. Calls from
/// several threads take turns (each blocks until the ones ahead of it are done); in `.stream`
/// mode they are tracked in the order they take their timestamps, so they never fail for being
/// out of order. ``process(_:completion:)`` runs detection and then the completion on the
/// detector's private serial queue (Linux programs have no main run loop by default), one image
/// after another in call order; hop to another queue in the completion if needed. Releasing the
/// detector with `process` calls still queued is safe: they complete.
public final class PoseDetector: Sendable {
    /// The mode the detector was made with.
    public let detectorMode: PoseDetectorMode
    /// The model bundle path the detector was made from (as resolved, possibly relative).
    public let modelPath: String

    /// Everything a detection needs; queued ``process(_:completion:)`` calls hold this, not the
    /// detector.
    private let detection: Detection
    private let processingQueue = DispatchQueue(label: "pose-detector")

    /// The landmarker and the stream clock behind a detector.
    private struct Detection: Sendable {
        let mode: PoseDetectorMode
        let landmarker: Result<PoseLandmarker, PoseDetectorError>
        let streamTimestamps: StreamTimestamps

        /// The poses in `input`, in pixels of the displayed image.
        func poses(in input: DetectorInput) throws -> [Pose] {
            let landmarker = try landmarker.get()
            let image = input.image
            let result: PoseLandmarkerResult
            switch mode {
            case .singleImage:
                result = try landmarker.detect(image: image)
            case .stream:
                result = try streamTimestamps.withNextTimestamp { timestamp in
                    try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
                }
            }
            return result.landmarks.map {
                Pose(normalized: $0, width: image.width, height: image.height, mirrored: input.mirrorsPositions)
            }
        }
    }

    /// A detector with the given options. Never fails; see the type's notes on a missing model.
    public static func poseDetector(options: PoseDetectorOptions) -> PoseDetector {
        PoseDetector(
            mode: options.detectorMode, modelPath: options.resolvedModelPath(),
            clock: StreamTimestamps.monotonicMilliseconds())
    }

    /// Loads the bundle at `modelPath`; `clock` stamps `.stream` frames in milliseconds.
    init(mode: PoseDetectorMode, modelPath: String, clock: @escaping StreamTimestamps.Clock) {
        detectorMode = mode
        self.modelPath = modelPath
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.runningMode = mode == .stream ? .video : .image
        options.numPoses = 1
        let landmarker: Result<PoseLandmarker, PoseDetectorError>
        do {
            landmarker = .success(try PoseLandmarker(options: options))
        } catch {
            landmarker = .failure(.modelUnavailable(path: modelPath, reason: "\(error)"))
        }
        detection = Detection(mode: mode, landmarker: landmarker, streamTimestamps: StreamTimestamps(clock: clock))
    }

    /// Why the model could not be loaded, or nil when the detector is ready.
    public var loadError: PoseDetectorError? {
        if case .failure(let error) = detection.landmarker { return error }
        return nil
    }

    /// Detects the pose in `image`, blocking until done.
    /// - Returns: one ``Pose``, or an empty array when nobody is found; positions in pixels of
    ///   the displayed image (see ``VisionImage`` for mirrored orientations).
    /// - Throws: ``PoseDetectorError/modelUnavailable(path:reason:)`` when the model did not load.
    public func results(in image: VisionImage) throws -> [Pose] {
        try detection.poses(in: image.detectorInput())
    }

    /// Detects the pose in `image` without blocking; `completion` receives the poses (empty
    /// when nobody is found) or the error that ``results(in:)`` would throw, never both.
    ///
    /// The image is read before this method returns. Detection and `completion` run on the
    /// detector's private serial queue, in call order. The queued call keeps the models it needs
    /// alive, not the detector: it still completes if the detector is released meanwhile.
    public func process(
        _ image: VisionImage, completion: @escaping @Sendable ([Pose]?, (any Error)?) -> Void
    ) {
        enqueue(image.detectorInput()) { result in
            switch result {
            case .success(let poses): completion(poses, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }

    /// Detects the pose in `image`, suspending the caller until done: the form in which Swift
    /// calls ML Kit's `process(_:completion:)` (`let poses = try await detector.process(image)`).
    ///
    /// The image is read before the first suspension, on the caller's actor (so a main-actor
    /// image can be passed). Detection runs on the detector's private serial queue, in call order
    /// with ``process(_:completion:)`` calls; it is not cancelled with the calling task.
    /// - Returns: as ``results(in:)``.
    /// - Throws: as ``results(in:)``.
    public nonisolated(nonsending) func process(_ image: VisionImage) async throws -> [Pose] {
        let input = image.detectorInput()
        return try await withCheckedThrowingContinuation { continuation in
            enqueue(input) { continuation.resume(with: $0) }
        }
    }

    /// Runs detection on `input` on the processing queue, then `deliver` there with its result.
    private func enqueue(_ input: DetectorInput, deliver: @escaping @Sendable (Result<[Pose], any Error>) -> Void) {
        let detection = detection
        processingQueue.async {
            deliver(Result { try detection.poses(in: input) })
        }
    }
}
