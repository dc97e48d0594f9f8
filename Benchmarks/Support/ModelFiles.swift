import Foundation

/// The six MediaPipe models the benchmarks run, and where their files are.
///
/// The folder is `LANDMARKER_MODELS` when that variable is set, otherwise the
/// repository's `models/` folder, found from this source file's location
/// (`Benchmarks/Support/` → repository root). `models/fetch_models.sh` fetches
/// the files.
public enum ModelFiles {
    /// Model names, without the `.tflite` extension, in the order reports list them.
    public static let names = [
        "pose_detection",
        "pose_landmark_full",
        "palm_detection_full",
        "palm_detection_lite",
        "hand_landmark_full",
        "hand_landmark_lite",
    ]

    /// The folder holding the `.tflite` files.
    public static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["LANDMARKER_MODELS"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support/
            .deletingLastPathComponent()  // Benchmarks/
            .deletingLastPathComponent()  // repository root
            .appendingPathComponent("models", isDirectory: true)
    }

    /// The path of model `name`'s file; throws `MissingModelError` if it is absent.
    public static func path(of name: String) throws -> String {
        let path = directory.appendingPathComponent(name + ".tflite").path
        guard FileManager.default.fileExists(atPath: path) else { throw MissingModelError(path: path) }
        return path
    }
}

/// A model file the benchmarks need is not there.
public struct MissingModelError: Error, CustomStringConvertible {
    /// The path that was looked for.
    public let path: String

    public var description: String {
        "missing model file \(path): run models/fetch_models.sh, or point LANDMARKER_MODELS at the folder holding it"
    }
}
