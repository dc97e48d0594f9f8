#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MediaPipeTasksVision

/// Why a ``PoseDetector`` cannot detect poses.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum PoseDetectorError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The pose model bundle at `path` could not be loaded when the detector was made; every
    /// call of that detector reports this error. `reason` is the loader's message.
    case modelUnavailable(path: String, reason: String)

    public var description: String {
        switch self {
        case let .modelUnavailable(path, reason):
            let cause = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            return "The pose model could not be loaded from \(path): \(cause). "
                + "Set PoseDetectorOptions.modelPath or the environment variable "
                + "\(PoseDetectorOptions.modelPathEnvironmentVariable) to a pose_landmarker .task bundle, "
                + "or put \(PoseDetectorOptions.defaultModelName) in one of the model folders: "
                + ModelFiles().folders.map(\.description).joined(separator: ", ") + "."
        }
    }

    public var errorDescription: String? { description }
}
