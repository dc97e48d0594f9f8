import Foundation
import Inference

/// The six real models every input edits (see `ModelSkeleton`).
let realModelNames = [
    "pose_detection", "pose_landmark_full", "palm_detection_full", "palm_detection_lite",
    "hand_landmark_full", "hand_landmark_lite",
]

nonisolated(unsafe) private var skeleton: ModelSkeleton!
/// The decoded model, reused across executions: decoding an input rewrites
/// only its structural bytes and touches no fresh memory once the capacity
/// has grown (a multi-megabyte copy or allocation per execution would cost
/// more than the validation itself).
nonisolated(unsafe) private var decoded = DecodedModel()
/// Where to write each executed input as a patch file (`$MODEL_FUZZER_EXPORT`),
/// the form the test suite replays (see `ModelPatch`).
nonisolated(unsafe) private var exportFolder: String?

/// Loads the real models from `$MODEL_FUZZER_MODELS`, else from the package's
/// `models/` folder. With `$MODEL_FUZZER_WRITE_SEEDS` set to a folder, writes
/// one seed input per real model there and exits.
@_cdecl("LLVMFuzzerInitialize")
public func initializeFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    let folder = environment["MODEL_FUZZER_MODELS"] ?? URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("models").path
    do {
        skeleton = try ModelSkeleton(models: try realModelNames.map { name in
            let path = "\(folder)/\(name).tflite"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ExportError("missing real model \(path): run models/fetch_models.sh or set MODEL_FUZZER_MODELS")
            }
            return (name, [UInt8](data))
        })
        if let seeds = environment["MODEL_FUZZER_WRITE_SEEDS"] {
            try FileManager.default.createDirectory(atPath: seeds, withIntermediateDirectories: true)
            for (index, base) in skeleton.models.enumerated() {
                try Data(skeleton.seed(index)).write(to: URL(fileURLWithPath: "\(seeds)/\(base.name).seed"))
            }
            exit(0)
        }
    } catch {
        FileHandle.standardError.write(Data("ModelFuzzer: \(error)\n".utf8))
        exit(1)
    }
    exportFolder = environment["MODEL_FUZZER_EXPORT"]
    return 0
}

/// libFuzzer entry point: the model bytes an input stands for go through every
/// load-time check of `Interpreter.validate(bytes:)`: verify the flatbuffer,
/// validate the graph, fold constants, check every operator's operands and
/// options, the packed weight sizes and the memory plan. Any outcome but a
/// typed error or a summary (a trap, an overflow, an out-of-bounds access) is
/// a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    skeleton.decode(input, into: &decoded)
    guard let exportFolder else {
        _ = try? Interpreter.validate(bytes: decoded.bytes)
        return 0
    }
    // Exported before validating, so that an input that crashes is written too;
    // the outcome follows on standard output.
    let name: String
    do {
        name = try ModelPatch(model: decoded.bytes, base: skeleton.base(of: input)).write(into: exportFolder)
    } catch {
        FileHandle.standardError.write(Data("ModelFuzzer: cannot export: \(error)\n".utf8))
        exit(1)
    }
    do {
        let summary = try Interpreter.validate(bytes: decoded.bytes)
        print("\(name)\tloads: \(summary.preparedOperatorCount) operators")
    } catch {
        print("\(name)\t\(error)")
    }
    return 0
}

struct ExportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
