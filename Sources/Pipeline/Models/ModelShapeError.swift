import Inference

/// A model whose tensor shapes are not the ones its graph reads; `description` names the
/// model's role, the shapes the graph needs and the ones the model has. The landmarkers
/// report it as `TaskError.invalidModel(description)`.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
package struct ModelShapeError: Error, Equatable, Sendable, CustomStringConvertible {
    package let description: String

    /// Checks that `model` has the tensor shapes its graph reads.
    package static func requireShapes(
        of model: Interpreter, inputs: [[Int]], outputs: [[Int]], role: String
    ) throws(ModelShapeError) {
        let actualInputs = model.inputs.map(\.shape.dimensions)
        let actualOutputs = model.outputs.map(\.shape.dimensions)
        guard actualInputs == inputs, actualOutputs == outputs else {
            throw ModelShapeError(
                description: "the \(role) must have inputs \(inputs) and outputs \(outputs); this one has inputs \(actualInputs) and outputs \(actualOutputs)")
        }
    }
}
