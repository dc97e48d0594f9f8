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

/// A small deterministic generator (SplitMix64) so random sweeps can print and replay their seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
