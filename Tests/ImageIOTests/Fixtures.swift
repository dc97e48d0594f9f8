import Foundation
import Testing

/// Locates the shared fixtures: `$LANDMARKER_FIXTURES`, else `../shared/fixtures` next to the package root.
enum Fixtures {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["LANDMARKER_FIXTURES"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // ImageIOTests
            .deletingLastPathComponent()   // Tests
            .deletingLastPathComponent()   // package root
        return packageRoot.appendingPathComponent("../shared/fixtures", isDirectory: true).standardized
    }()

    /// The absolute path of a fixture file; records a loud failure naming the file when it is missing.
    static func path(_ relative: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("Missing fixture file: \(url.path) (set LANDMARKER_FIXTURES to the fixtures folder)",
                         sourceLocation: sourceLocation)
            throw MissingFixture(path: url.path)
        }
        return url.path
    }

    struct MissingFixture: Error, CustomStringConvertible {
        let path: String
        var description: String { "missing fixture \(path)" }
    }
}
