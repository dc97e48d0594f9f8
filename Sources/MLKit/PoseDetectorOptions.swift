#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MediaPipeTasksVision

/// How a ``PoseDetector`` treats successive images (ML Kit's `PoseDetectorMode`).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum PoseDetectorMode: Sendable, Hashable {
    /// Video: the most prominent person is detected once, then tracked from frame to frame
    /// (the person detector runs again only when the track is lost) and the landmarks are
    /// smoothed over time. This is the pose landmarker's video mode with `numPoses` 1.
    case stream
    /// Still images: the person detector runs on every image; no tracking, no smoothing.
    /// This is the pose landmarker's image mode with `numPoses` 1.
    case singleImage
}

/// Options of the base pose detector (ML Kit's `PoseDetectorOptions`).
///
/// A reference type, so that `let options = PoseDetectorOptions(); options.detectorMode = …`
/// works as in ML Kit's snippets. ``PoseDetector/poseDetector(options:)`` reads the options
/// once; later changes do not affect a detector already made.
///
/// **Model location** (a Linux addition: ML Kit links its models into the app). The `.task`
/// bundle is, in order of precedence:
/// 1. ``modelPath``, when set and not empty;
/// 2. the environment variable `LANDMARKER_POSE_MODEL` (``modelPathEnvironmentVariable``), when
///    set and not empty;
/// 3. ``defaultModelName``, `pose_landmarker_full.task`, in the model folders `ModelFiles`
///    searches (`$LANDMARKER_MODELS`, the install prefix's `share/landmarker/models`, `models/`
///    beside the executable or in the current folder, the user's cache).
///
/// Relative paths are resolved against the process's current directory when the detector is made.
///
/// Thread safety: not `Sendable` (a mutable class, as on iOS): set it up on one thread. The
/// detector (``PoseDetector/poseDetector(options:)``) reads it once, when it is created; later
/// changes do not reach an existing detector.
public class PoseDetectorOptions {
    /// The bundle looked up in the model folders when neither ``modelPath`` nor the environment
    /// variable names one.
    public static let defaultModelName = "pose_landmarker_full.task"
    /// The environment variable that overrides the model folders' ``defaultModelName``.
    public static let modelPathEnvironmentVariable = "LANDMARKER_POSE_MODEL"

    /// `.stream` by default.
    public var detectorMode: PoseDetectorMode = .stream

    /// Path of the pose landmarker `.task` bundle (`pose_detector.tflite` +
    /// `pose_landmarks_detector.tflite`); nil to use the environment variable or the default.
    public var modelPath: String?

    public init() {}

    /// The bundle path these options select, given the process environment and the model
    /// folders (see the type's notes; by default, this process's). When no folder holds
    /// ``defaultModelName``, the bare name: loading it then fails, and the detector's error
    /// names the folders.
    public func resolvedModelPath(
        environment: [String: String] = ProcessInfo.processInfo.environment, models: ModelFiles? = nil
    ) -> String {
        if let modelPath, !modelPath.isEmpty { return modelPath }
        if let fromEnvironment = environment[Self.modelPathEnvironmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        let search = models ?? ModelFiles(
            environment: environment, executablePath: ModelFiles.runningExecutablePath(),
            currentDirectory: FileManager.default.currentDirectoryPath)
        return (try? search.locate(Self.defaultModelName)) ?? Self.defaultModelName
    }
}

/// Options of the accurate pose detector (ML Kit's `AccuratePoseDetectorOptions`).
///
/// ML Kit ships two SDKs with different models. Here both run the same pipeline and the same
/// model, `pose_landmark_full` (the only one available), so the two option classes behave
/// identically; the choice is only a label kept for source compatibility.
///
/// Thread safety: as ``PoseDetectorOptions``: not `Sendable`; set it up on one thread.
public final class AccuratePoseDetectorOptions: PoseDetectorOptions {}
