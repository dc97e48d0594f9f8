import Foundation
import Testing
import FlatBufferReader

/// Locations of the models and fixtures this test target reads.
enum TestPaths {
    /// The package root: this file is `<root>/Tests/FlatBufferReaderTests/TestSupport.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The committed golden outputs, `<root>/Tests/Fixtures` (`scripts/make_fixtures.sh`).
    static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    static let modelNames = [
        "pose_detection", "pose_landmark_full", "palm_detection_full", "palm_detection_lite",
        "hand_landmark_full", "hand_landmark_lite", "face_detection_short_range",
        "face_detection_full_range_sparse", "face_landmark", "hand_recrop",
    ]

    /// Models with MediaPipe's custom operators, which LiteRT cannot run (so the fixtures
    /// manifest has no entry for them).
    static let customOperatorModelNames = ["face_landmark_with_attention"]

    /// Every model the tests read.
    static let allModelNames = modelNames + customOperatorModelNames

    /// The path of `models/<name>.tflite`, recording a loud failure if it is missing.
    static func model(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        let path = packageRoot.appendingPathComponent("models/\(name).tflite").path
        guard FileManager.default.fileExists(atPath: path) else {
            Issue.record("missing model file \(path): run models/fetch_models.sh", sourceLocation: sourceLocation)
            return nil
        }
        return path
    }

    /// The bytes of `models/<name>.tflite`, recording a loud failure if it is missing.
    static func modelBytes(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8]? {
        guard let path = model(name, sourceLocation: sourceLocation),
              let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return [UInt8](data)
    }

    /// A fixture file's contents, recording a loud failure if it is missing.
    static func fixture(_ relativePath: String, sourceLocation: SourceLocation = #_sourceLocation) -> Data? {
        let url = fixtures.appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record(
                "missing fixture \(url.path) (committed in Tests/Fixtures; regenerate with scripts/make_fixtures.sh)",
                sourceLocation: sourceLocation)
            return nil
        }
        return data
    }
}

/// Loads `bytes` and returns the `ModelError` it throws, recording an issue if loading
/// succeeds or throws anything else.
@discardableResult
func expectModelError(
    _ bytes: [UInt8], limits: VerifierLimits = .default, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ModelError? {
    do {
        _ = try TFLiteModel(bytes: ModelBytes(bytes: bytes), limits: limits)
        Issue.record("model loaded but an error was expected \(comment.map { "(\($0))" } ?? "")", sourceLocation: sourceLocation)
        return nil
    } catch let error as ModelError {
        return error
    } catch {
        Issue.record("unexpected error type \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
