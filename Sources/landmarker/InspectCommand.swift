import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Inference

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a model's inputs, outputs, operator histogram, parameters and multiply-accumulates.")

    @Argument(help: "A .tflite file, or a model name looked up in the model folders (e.g. pose_detection).")
    var model: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let path = try ModelLocation.resolve(model)
        let interpreter: Interpreter
        do {
            interpreter = try Interpreter(contentsOfFile: path, options: .init(mode: .reference))
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
        let summary = interpreter.summary
        if json {
            let report = InspectReport(
                model: path,
                inputs: interpreter.inputs.map { .init(name: $0.name, shape: $0.shape.dimensions) },
                outputs: interpreter.outputs.map { .init(name: $0.name, shape: $0.shape.dimensions) },
                summary: summary)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        print("model: \(path)")
        for (k, input) in interpreter.inputs.enumerated() {
            print("input \(k): \(input.name) \(input.shape) float32")
        }
        for (k, output) in interpreter.outputs.enumerated() {
            print("output \(k): \(output.name) \(output.shape) float32")
        }
        print("operators (in file):")
        // Custom operators' names (e.g. Landmarks2TransformMatrix) can be longer than builtin ones.
        let nameWidth = max(20, summary.operatorHistogram.keys.map(\.count).max() ?? 0)
        for (name, count) in summary.operatorHistogram.sorted(by: { $0.key < $1.key }) {
            print("  \(padded(name, to: nameWidth)) \(count)")
        }
        print("operators run per invoke: \(summary.preparedOperatorCount)")
        print("parameters: \(summary.parameterCount)")
        print(formatted("multiply-accumulates: %ld (%.3f GMAC)", summary.multiplyAccumulates,
                     Double(summary.multiplyAccumulates) / 1e9))
        print(formatted("activation arena: %.2f MiB", Double(summary.arenaBytes) / 1_048_576))
    }
}

/// The JSON form of `landmarker inspect --json`.
struct InspectReport: Encodable {
    struct Tensor: Encodable {
        let name: String
        let shape: [Int]
    }
    let model: String
    let inputs: [Tensor]
    let outputs: [Tensor]
    let summary: ModelSummary
}
