import Foundation
import Inference
import TestSupport
import Testing

/// Replays model files kept from fuzzing, each stored as a patch against one
/// of the real models (the format `Fuzz/run.sh export` writes, see
/// `Fuzz/Sources/ModelFuzzer/ModelPatch.swift`):
/// - `Fuzz/regressions/`: inputs the fuzzer found that fail deep in loading
///   (graph validation, constant folding, operator checks), one per distinct
///   error, kept as a corpus that must stay handled;
/// - `Fuzz/crashes/`: inputs that once crashed or hung the fuzzer.
///
/// Each must give a typed error or a loaded model, and `Interpreter.validate`
/// (what the fuzzer runs) must agree with a full load: the same error, or the
/// same summary.
@Suite struct FuzzRegressionTests {
    /// One stored patch file.
    struct ModelPatch: Decodable {
        struct Patch: Decodable {
            let offset: Int
            let hex: String
        }
        /// The real model edited, or nil when the patches hold the whole file.
        let model: String?
        let length: Int
        let patches: [Patch]

        /// The real model's bytes, cut or zero-extended to `length`, with the patches written over them.
        func apply() throws -> [UInt8] {
            var bytes = try model.map { [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.model($0)))) } ?? []
            bytes = Array(bytes.prefix(length)) + [UInt8](repeating: 0, count: max(0, length - bytes.count))
            for patch in patches {
                let values = try Self.decodeHex(patch.hex)
                guard patch.offset >= 0, patch.offset + values.count <= length else {
                    throw CorruptPatch("a patch at \(patch.offset) lies outside the \(length)-byte file")
                }
                bytes.replaceSubrange(patch.offset..<(patch.offset + values.count), with: values)
            }
            return bytes
        }

        static func decodeHex(_ hex: String) throws -> [UInt8] {
            let digits = Array(hex.utf8)
            guard digits.count % 2 == 0 else {
                throw CorruptPatch("hex digits of odd length \(digits.count)")
            }
            return try stride(from: 0, to: digits.count, by: 2).map { i in
                guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else {
                    throw CorruptPatch("not hex digits at \(i)")
                }
                return byte
            }
        }
    }

    struct CorruptPatch: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func patchFiles(in folder: String) -> [URL] {
        let url = Fixtures.packageRoot.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { url.appendingPathComponent($0) }
    }

    static let regressions = patchFiles(in: "Fuzz/regressions")
    static let crashes = patchFiles(in: "Fuzz/crashes")

    @Test func regressionCorpusIsPresent() {
        #expect(
            Self.regressions.count >= 10,
            "Fuzz/regressions/ holds \(Self.regressions.count) patch files: the fuzz regression replay would check nothing")
        let readme = Fixtures.packageRoot.appendingPathComponent("Fuzz/crashes/README.md")
        #expect(FileManager.default.fileExists(atPath: readme.path), "Fuzz/crashes/ is missing")
    }

    @Test(arguments: regressions + crashes)
    func storedInputLoadsOrThrows(file: URL) throws {
        let patch = try JSONDecoder().decode(ModelPatch.self, from: Data(contentsOf: file))
        let bytes = try patch.apply()
        #expect(bytes.count == patch.length)

        let loaded: Result<ModelSummary, InterpreterError>
        do {
            let interpreter = try Interpreter(bytes: bytes, options: .init(mode: .reference))
            loaded = .success(interpreter.summary)
        } catch let error as InterpreterError {
            loaded = .failure(error)
        }
        let validated: Result<ModelSummary, InterpreterError>
        do {
            validated = .success(try Interpreter.validate(bytes: bytes))
        } catch let error as InterpreterError {
            validated = .failure(error)
        }
        switch (loaded, validated) {
        case (.failure(let load), .failure(let validate)):
            #expect(!load.description.isEmpty)
            #expect(load.description == validate.description, "\(file.lastPathComponent)")
        case (.success(let load), .success(let validate)):
            #expect(load.parameterCount == validate.parameterCount, "\(file.lastPathComponent)")
            #expect(load.multiplyAccumulates == validate.multiplyAccumulates, "\(file.lastPathComponent)")
            #expect(load.arenaBytes == validate.arenaBytes, "\(file.lastPathComponent)")
        default:
            Issue.record("\(file.lastPathComponent): a load gives \(loaded) but validate gives \(validated)")
        }
    }
}
