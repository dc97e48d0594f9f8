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

    @Option(parsing: .unconditional, help: "Minimum detector score.")
    var minDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Minimum pose presence score.")
    var minPresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Minimum IoU to keep tracking a person (video).")
    var minTrackingConfidence: Float = 0.5

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
            confidences: [(minDetectionConfidence, "--min-detection-confidence"),
                          (minPresenceConfidence, "--min-presence-confidence"),
                          (minTrackingConfidence, "--min-tracking-confidence")],
            threads: threads)
    }

    var modelArgument: String { model }

    var recorded: [String: String] {
        ["numPoses": "\(numPoses)", "minPoseDetectionConfidence": "\(minDetectionConfidence)",
         "minPosePresenceConfidence": "\(minPresenceConfidence)", "minTrackingConfidence": "\(minTrackingConfidence)",
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
        options.minPoseDetectionConfidence = minDetectionConfidence
        options.minPosePresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
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

    @Option(parsing: .unconditional, help: "Minimum palm detector score.")
    var minDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Minimum hand presence score.")
    var minPresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "IoU above which a new palm counts as an already tracked hand (video).")
    var minTrackingConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Threads for the model kernels (results are the same for every count).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !(lite && model != nil) else { throw ValidationError("give --lite or --model, not both") }
        try checkTaskOptions(
            count: numHands, countFlag: "--num-hands", maximum: HandLandmarkerOptions.maximumNumHands,
            confidences: [(minDetectionConfidence, "--min-detection-confidence"),
                          (minPresenceConfidence, "--min-presence-confidence"),
                          (minTrackingConfidence, "--min-tracking-confidence")],
            threads: threads)
    }

    /// The bundle argument: `--model`, or the full or lite default.
    var modelArgument: String { model ?? (lite ? ModelLocation.liteHandBundle : ModelLocation.handBundle) }

    var recorded: [String: String] {
        ["numHands": "\(numHands)", "minHandDetectionConfidence": "\(minDetectionConfidence)",
         "minHandPresenceConfidence": "\(minPresenceConfidence)", "minTrackingConfidence": "\(minTrackingConfidence)"]
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
        options.minHandDetectionConfidence = minDetectionConfidence
        options.minHandPresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
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

    @Option(parsing: .unconditional, help: "Minimum face detector score.")
    var minDetectionConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Minimum face presence score (MediaPipe Face Mesh's min_tracking_confidence).")
    var minPresenceConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "IoU above which a tracked face replaces a new detection of it (video).")
    var minTrackingConfidence: Float = 0.5

    @Option(parsing: .unconditional, help: "Threads for the model kernels (results are the same for every count).")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard !(refine && model != nil) else { throw ValidationError("give --refine or --model, not both") }
        try checkTaskOptions(
            count: numFaces, countFlag: "--num-faces", maximum: FaceLandmarkerOptions.maximumNumFaces,
            confidences: [(minDetectionConfidence, "--min-detection-confidence"),
                          (minPresenceConfidence, "--min-presence-confidence"),
                          (minTrackingConfidence, "--min-tracking-confidence")],
            threads: threads)
    }

    /// The bundle argument: `--model`, or the plain or refined default.
    var modelArgument: String { model ?? (refine ? ModelLocation.refinedFaceBundle : ModelLocation.faceBundle) }

    var recorded: [String: String] {
        ["numFaces": "\(numFaces)", "minFaceDetectionConfidence": "\(minDetectionConfidence)",
         "minFacePresenceConfidence": "\(minPresenceConfidence)", "minTrackingConfidence": "\(minTrackingConfidence)"]
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
        options.minFaceDetectionConfidence = minDetectionConfidence
        options.minFacePresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
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
