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

    /// Up to this many outputs, each one's own cost is worked out (one validation of the graph
    /// per output).
    static let maxOutputsCosted = 64

    func run() throws {
        let path = try ModelLocation.resolve(model)
        let interpreter: Interpreter
        let onlyFor: [InspectReport.Tensor.OnlyItNeeds?]
        do {
            interpreter = try Interpreter(contentsOfFile: path, options: .init(mode: .reference))
            // What each output alone costs, for models of a sane output count.
            let costs = try Interpreter.costOfEachOutput(contentsOfFile: path, maxOutputs: Self.maxOutputsCosted)
            onlyFor = costs?.map {
                InspectReport.Tensor.OnlyItNeeds(operators: $0.operators, multiplyAccumulates: $0.multiplyAccumulates)
            } ?? interpreter.outputs.map { _ in nil }
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
        let summary = interpreter.summary
        if json {
            let report = InspectReport(
                model: path,
                inputs: interpreter.inputs.map { .init(name: $0.name, shape: $0.shape.dimensions, onlyItNeeds: nil) },
                outputs: zip(interpreter.outputs, onlyFor).map {
                    .init(name: $0.name, shape: $0.shape.dimensions, onlyItNeeds: $1)
                },
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
        for (k, (output, only)) in zip(interpreter.outputs, onlyFor).enumerated() {
            guard let only, only.operators > 0 else {
                print("output \(k): \(output.name) \(output.shape) float32")
                continue
            }
            let operators = only.operators == 1 ? "1 operator" : "\(only.operators) operators"
            let cost = " (only it needs \(operators), "
                + formatted("%.2f MMAC", Double(only.multiplyAccumulates) / 1e6)
                + ": bench --skip-output \(k) leaves \(only.operators == 1 ? "it" : "them") out)"
            print("output \(k): \(output.name) \(output.shape) float32\(cost)")
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
        /// What a graph output alone costs: the operators (and their multiply-accumulates) that
        /// no other output needs.
        struct OnlyItNeeds: Encodable {
            let operators: Int
            let multiplyAccumulates: Int
        }
        let name: String
        let shape: [Int]
        /// Outputs only.
        let onlyItNeeds: OnlyItNeeds?
    }
    let model: String
    let inputs: [Tensor]
    let outputs: [Tensor]
    let summary: ModelSummary
}
