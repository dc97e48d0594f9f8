import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import MediaPipeTasksVision

/// What `landmarker extract` needs of a task's options.
protocol LandmarkerTaskOptions {
    /// The model bundle argument, resolved by `ModelLocation`.
    var modelArgument: String { get }
    /// The options that decide the results, as `extract` records them in its headers (not the
    /// thread count: results are bit-identical for every count).
    var recorded: [String: String] { get }
    /// A video-mode landmarker for one video, as the line maker `extract` uses.
    func makeEntryRun(modelPath: String) throws -> EntryRun
}

/// The pose landmarker's options, shared by `landmarker pose` and `landmarker extract pose`.
struct PoseTaskOptions: ParsableArguments, LandmarkerTaskOptions {
    @Option(help: """
        The pose landmarker bundle (.task) holding pose_detector.tflite and pose_landmarks_detector.tflite: \
        a path, or a name looked up in the model folders (see landmarker --version).
        """)
    var model = ModelLocation.poseBundle

    @Option(parsing: .unconditional, help: "Maximum number of people.")
    var numPoses = 1

    @OptionGroup var confidences: ConfidenceOptions<ConfidenceHelp>

    enum ConfidenceHelp: ConfidenceOptionsHelp {
        static let detection: ArgumentHelp = "Minimum detector score."
        static let presence: ArgumentHelp = "Minimum pose presence score."
        static let tracking: ArgumentHelp = "Minimum IoU to keep tracking a person (video)."
    }

    @Flag(help: """
        Smooth every tracked person with their own filters, so that --num-poses above 1 is \
        smoothed too (video; off: MediaPipe's output, which smooths only --num-poses 1).
        """)
    var smoothEachTrack = false

    @Option(parsing: .unconditional, help: "Threads for the model kernels (results are the same for every count).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        try checkTaskOptions(
            count: numPoses, countFlag: "--num-poses", maximum: PoseLandmarkerOptions.maximumNumPoses,
            confidences: confidences.flagged,
            threads: threads)
    }

    var modelArgument: String { model }

    var recorded: [String: String] {
        ["numPoses": "\(numPoses)", "minPoseDetectionConfidence": "\(confidences.minDetectionConfidence)",
         "minPosePresenceConfidence": "\(confidences.minPresenceConfidence)",
         "minTrackingConfidence": "\(confidences.minTrackingConfidence)",
         "shouldSmoothEachTrack": "\(smoothEachTrack)"]
    }

    func makeEntryRun(modelPath: String) throws -> EntryRun {
        let landmarker = try makeLandmarker(modelPath: modelPath, mode: .video)
        return EntryRun { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) }
    }

    /// A landmarker with these options; `masks` turns the segmentation masks on.
    func makeLandmarker(modelPath: String, mode: RunningMode, masks: Bool = false) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = confidences.minDetectionConfidence
        options.minPosePresenceConfidence = confidences.minPresenceConfidence
        options.minTrackingConfidence = confidences.minTrackingConfidence
        options.shouldOutputSegmentationMasks = masks
        options.shouldSmoothEachTrack = smoothEachTrack
        let landmarker: PoseLandmarker
        do {
            landmarker = try PoseLandmarker(options: options)
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
        releaseFreedHeap()
        return landmarker
    }
}

/// The hand landmarker's options, shared by `landmarker hand` and `landmarker extract hand`.
struct HandTaskOptions: ParsableArguments, LandmarkerTaskOptions {
    @Option(help: """
        The hand landmarker bundle (.task) holding hand_detector.tflite and \
        hand_landmarks_detector.tflite: a path, or a name looked up in the model folders \
        (default \(ModelLocation.handBundle); see landmarker --version).
        """)
    var model: String?

    @Flag(help: "Use the lite models (\(ModelLocation.liteHandBundle)).")
    var lite = false

    @Option(parsing: .unconditional, help: "Maximum number of hands.")
    var numHands = 1

    @OptionGroup var confidences: ConfidenceOptions<ConfidenceHelp>

    enum ConfidenceHelp: ConfidenceOptionsHelp {
        static let detection: ArgumentHelp = "Minimum palm detector score."
        static let presence: ArgumentHelp = "Minimum hand presence score."
        static let tracking: ArgumentHelp = "IoU above which a new palm counts as an already tracked hand (video)."
    }

    @Option(parsing: .unconditional, help: "Threads for the model kernels (results are the same for every count).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !(lite && model != nil) else { throw ValidationError("give --lite or --model, not both") }
        try checkTaskOptions(
            count: numHands, countFlag: "--num-hands", maximum: HandLandmarkerOptions.maximumNumHands,
            confidences: confidences.flagged,
            threads: threads)
    }

    /// The bundle argument: `--model`, or the full or lite default.
    var modelArgument: String { model ?? (lite ? ModelLocation.liteHandBundle : ModelLocation.handBundle) }

    var recorded: [String: String] {
        ["numHands": "\(numHands)", "minHandDetectionConfidence": "\(confidences.minDetectionConfidence)",
         "minHandPresenceConfidence": "\(confidences.minPresenceConfidence)",
         "minTrackingConfidence": "\(confidences.minTrackingConfidence)"]
    }

    func makeEntryRun(modelPath: String) throws -> EntryRun {
        let landmarker = try makeLandmarker(modelPath: modelPath, mode: .video)
        return EntryRun { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) }
    }

    /// A landmarker with these options.
    func makeLandmarker(modelPath: String, mode: RunningMode) throws -> HandLandmarker {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numHands = numHands
        options.minHandDetectionConfidence = confidences.minDetectionConfidence
        options.minHandPresenceConfidence = confidences.minPresenceConfidence
        options.minTrackingConfidence = confidences.minTrackingConfidence
        let landmarker: HandLandmarker
        do {
            landmarker = try HandLandmarker(options: options)
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
        releaseFreedHeap()
        return landmarker
    }
}

/// The face landmarker's options, shared by `landmarker face` and `landmarker extract face`.
struct FaceTaskOptions: ParsableArguments, LandmarkerTaskOptions {
    @Option(help: """
        The face landmarker bundle (.task) holding face_detector.tflite and \
        face_landmarks_detector.tflite: a path, or a name looked up in the model folders \
        (default \(ModelLocation.faceBundle); see landmarker --version).
        """)
    var model: String?

    @Flag(help: """
        Refine the eyes and lips and add the irises: 478 landmarks instead of 468 \
        (\(ModelLocation.refinedFaceBundle), MediaPipe's refine_landmarks).
        """)
    var refine = false

    @Option(parsing: .unconditional, help: "Maximum number of faces.")
    var numFaces = 1

    @OptionGroup var confidences: ConfidenceOptions<ConfidenceHelp>

    enum ConfidenceHelp: ConfidenceOptionsHelp {
        static let detection: ArgumentHelp = "Minimum face detector score."
        static let presence: ArgumentHelp = "Minimum face presence score (MediaPipe Face Mesh's min_tracking_confidence)."
        static let tracking: ArgumentHelp = "IoU above which a tracked face replaces a new detection of it (video)."
    }

    @Option(parsing: .unconditional, help: "Threads for the model kernels (results are the same for every count).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !(refine && model != nil) else { throw ValidationError("give --refine or --model, not both") }
        try checkTaskOptions(
            count: numFaces, countFlag: "--num-faces", maximum: FaceLandmarkerOptions.maximumNumFaces,
            confidences: confidences.flagged,
            threads: threads)
    }

    /// The bundle argument: `--model`, or the plain or refined default.
    var modelArgument: String { model ?? (refine ? ModelLocation.refinedFaceBundle : ModelLocation.faceBundle) }

    var recorded: [String: String] {
        ["numFaces": "\(numFaces)", "minFaceDetectionConfidence": "\(confidences.minDetectionConfidence)",
         "minFacePresenceConfidence": "\(confidences.minPresenceConfidence)",
         "minTrackingConfidence": "\(confidences.minTrackingConfidence)"]
    }

    func makeEntryRun(modelPath: String) throws -> EntryRun {
        let landmarker = try makeLandmarker(modelPath: modelPath, mode: .video)
        return EntryRun { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) }
    }

    /// A landmarker with these options.
    func makeLandmarker(modelPath: String, mode: RunningMode) throws -> FaceLandmarker {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numFaces = numFaces
        options.minFaceDetectionConfidence = confidences.minDetectionConfidence
        options.minFacePresenceConfidence = confidences.minPresenceConfidence
        options.minTrackingConfidence = confidences.minTrackingConfidence
        let landmarker: FaceLandmarker
        do {
            landmarker = try FaceLandmarker(options: options)
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
        releaseFreedHeap()
        return landmarker
    }
}

/// The holistic landmarker's options, shared by `landmarker holistic` and
/// `landmarker extract holistic`.
struct HolisticTaskOptions: ParsableArguments, LandmarkerTaskOptions {
    @Option(help: """
        The holistic landmarker bundle (.task) holding the pose, face and hand models \
        (pose_detector, pose_landmarks_detector, face_detector, face_landmarks_detector, \
        hand_recrop, hand_landmarks_detector .tflite): a path, or a name looked up in the model \
        folders (default \(ModelLocation.holisticBundle); see landmarker --version).
        """)
    var model: String?

    @Flag(help: """
        Refine the eyes and lips and add the irises: 478 face landmarks instead of 468 \
        (\(ModelLocation.refinedHolisticBundle), MediaPipe's refine_face_landmarks).
        """)
    var refine = false

    @Option(parsing: .unconditional, help: "Maximum number of people (1 is MediaPipe's holistic graph; more are tracked as pose tracks them).")
    var numPoses = 1

    @Option(parsing: .unconditional, help: "Minimum pose detector score (MediaPipe Holistic's min_detection_confidence).")
    var minDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Minimum pose presence score (MediaPipe Holistic's min_tracking_confidence).")
    var minPresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Threads for the model kernels (results are the same for every count).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !(refine && model != nil) else { throw ValidationError("give --refine or --model, not both") }
        try checkTaskOptions(
            count: numPoses, countFlag: "--num-poses", maximum: HolisticLandmarkerOptions.maximumNumPoses,
            confidences: [(minDetectionConfidence, "--min-detection-confidence"),
                          (minPresenceConfidence, "--min-presence-confidence")],
            threads: threads)
    }

    /// The bundle argument: `--model`, or the plain or refined default.
    var modelArgument: String { model ?? (refine ? ModelLocation.refinedHolisticBundle : ModelLocation.holisticBundle) }

    var recorded: [String: String] {
        ["numPoses": "\(numPoses)", "minPoseDetectionConfidence": "\(minDetectionConfidence)",
         "minPosePresenceConfidence": "\(minPresenceConfidence)"]
    }

    func makeEntryRun(modelPath: String) throws -> EntryRun {
        let landmarker = try makeLandmarker(modelPath: modelPath, mode: .video)
        return EntryRun { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) }
    }

    /// A landmarker with these options; `masks`: each person's segmentation mask.
    func makeLandmarker(modelPath: String, mode: RunningMode, masks: Bool = false) throws -> HolisticLandmarker {
        let options = HolisticLandmarkerOptions()
        options.outputPoseSegmentationMasks = masks
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = minDetectionConfidence
        options.minPosePresenceConfidence = minPresenceConfidence
        let landmarker: HolisticLandmarker
        do {
            landmarker = try HolisticLandmarker(options: options)
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
        releaseFreedHeap()
        return landmarker
    }
}

/// The confidence options every task has, `--min-detection-confidence`,
/// `--min-presence-confidence` and `--min-tracking-confidence` (default 0.5 each), with the
/// task's own help (`Help`). They are checked by the task's `validate()`, in its order.
struct ConfidenceOptions<Help: ConfidenceOptionsHelp>: ParsableArguments {
    @Option(parsing: .unconditional, help: Help.detection)
    var minDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: Help.presence)
    var minPresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: Help.tracking)
    var minTrackingConfidence: Float = 0.5

    /// The three values with their flags, as `checkTaskOptions` takes them.
    var flagged: [(value: Float, flag: String)] {
        [(minDetectionConfidence, "--min-detection-confidence"),
         (minPresenceConfidence, "--min-presence-confidence"),
         (minTrackingConfidence, "--min-tracking-confidence")]
    }
}

/// A task's help for its ``ConfidenceOptions``.
protocol ConfidenceOptionsHelp {
    static var detection: ArgumentHelp { get }
    static var presence: ArgumentHelp { get }
    static var tracking: ArgumentHelp { get }
}

/// Checks a task's options with the landmarkers' own rules before any input is read (so that
/// `extract` refuses them once instead of failing every entry), naming them as the flags spell
/// them: a usage error.
private func checkTaskOptions(
    count: Int, countFlag: String, maximum: Int, confidences: [(value: Float, flag: String)], threads: Int
) throws {
    do {
        try OptionValidation.checkCount(count, option: countFlag, maximum: maximum)
        for confidence in confidences {
            try OptionValidation.checkConfidence(confidence.value, option: confidence.flag)
        }
        try OptionValidation.checkCount(threads, option: "--threads", maximum: BaseOptions.maximumNumThreads)
    } catch {
        throw ValidationError("\(error)")
    }
}

/// Gives the heap's free pages back to the system once a landmarker has loaded its models: the
/// bundle's bytes, the parsed model and the unpacked weights that loading freed would
/// otherwise stay in glibc's heap, resident for the rest of the command. `malloc_trim` is
/// glibc's own (`<malloc.h>`, which the Glibc module does not include), so it is looked up in
/// the process; without it this does nothing.
private func releaseFreedHeap() {
    #if canImport(Glibc)
    typealias MallocTrim = @convention(c) (Int) -> Int32
    guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
    _ = unsafeBitCast(address, to: MallocTrim.self)(0)
    #endif
}
