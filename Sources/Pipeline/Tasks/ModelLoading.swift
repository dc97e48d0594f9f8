import Inference

/// Loading and checking the two models of a landmarker bundle.
enum ModelLoading {
    /// Loads one model of a bundle, reporting failures as `TaskError.invalidModel`.
    static func interpreter(_ bytes: [UInt8], name: String, threads: Int) throws -> Interpreter {
        do {
            return try Interpreter(bytes: bytes, options: .init(threadCount: threads))
        } catch let error as InterpreterError {
            throw TaskError.invalidModel("\(name): \(error)")
        }
    }

    /// Checks that a model has the tensor shapes its graph reads.
    static func requireShapes(of model: Interpreter, inputs: [[Int]], outputs: [[Int]], role: String) throws {
        let actualInputs = model.inputs.map(\.shape.dimensions)
        let actualOutputs = model.outputs.map(\.shape.dimensions)
        guard actualInputs == inputs, actualOutputs == outputs else {
            throw TaskError.invalidModel(
                "the \(role) must have inputs \(inputs) and outputs \(outputs); this one has inputs \(actualInputs) and outputs \(actualOutputs)")
        }
    }
}

/// Carries a graph into the runner's `@Sendable` processor. Contract: the runner never runs
/// the processor concurrently with itself, so the graph is used by one thread at a time.
/// `@unchecked Sendable` because the graph (interpreters, tracking state) is mutable and not
/// `Sendable`; the lock that makes this safe is the runner's (`VisionTaskRunner` runs the
/// processor under its synchronous-call lock or on its serial delivery queue, never both, as a
/// runner has one running mode), and the stress tests check it under the thread sanitizer.
struct UnsafeSendableGraph<Graph>: @unchecked Sendable {
    let graph: Graph
    init(_ graph: Graph) { self.graph = graph }
}
