import FlatBufferReader
import Kernels
import Tensor

/// Everything that can stop a model from loading or an input from being set.
/// Messages say what is wrong and where (operator index, op name, tensor).
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum InterpreterError: Error, CustomStringConvertible, Sendable {
    /// The file failed verification or semantic validation.
    case invalidModel(ModelError)
    /// The model has no subgraph to run.
    case noSubgraph
    /// An operator this runtime does not implement.
    case unsupportedOperator(index: Int, name: String)
    /// A CUSTOM operator whose `custom_code` no kernel here implements.
    case unsupportedCustomOperator(index: Int, code: String)
    /// A form of an operator this runtime does not implement: a sparse constant input without
    /// a DENSIFY, or a DEQUANTIZE or DENSIFY whose input is not a constant to fold.
    case unsupportedOption(index: Int, op: String, detail: String)
    /// A tensor element type this runtime cannot compute with.
    case unsupportedTensorType(tensor: String, type: String)
    /// A tensor whose shape cannot be represented.
    case invalidShape(tensor: String, detail: String)
    /// An operator whose operands or options its kernel rejected.
    case invalidOperator(index: Int, error: KernelError)
    /// A kernel's computed output shape disagrees with the shape the file declares.
    case outputShapeMismatch(index: Int, op: String, tensor: String, declared: [Int], computed: [Int])
    /// An input or output index or name that does not exist.
    case noSuchTensor(String)
    /// Input data of the wrong length.
    case inputSizeMismatch(input: String, expected: Int, got: Int)
    /// An output the interpreter was loaded not to compute (`Interpreter.Options.skippedOutputs`).
    case outputNotComputed(output: String, index: Int)

    public var description: String {
        switch self {
        case .invalidModel(let error):
            return "invalid model: \(error)"
        case .noSubgraph:
            return "the model has no subgraph"
        case .unsupportedOperator(let index, let name):
            return "operator \(index): \(name) is not supported"
        case .unsupportedCustomOperator(let index, let code):
            return "operator \(index): custom operator '\(code)' is not supported"
        case .unsupportedOption(let index, let op, let detail):
            return "operator \(index) (\(op)): unsupported option: \(detail)"
        case .unsupportedTensorType(let tensor, let type):
            return "tensor '\(tensor)': element type \(type) is not supported"
        case .invalidShape(let tensor, let detail):
            return "tensor '\(tensor)': \(detail)"
        case .invalidOperator(let index, let error):
            return "operator \(index) (\(error.op)): \(error.message)"
        case .outputShapeMismatch(let index, let op, let tensor, let declared, let computed):
            return "operator \(index) (\(op)): output '\(tensor)' is declared \(declared) but computes to \(computed)"
        case .noSuchTensor(let what):
            return "no such tensor: \(what)"
        case .inputSizeMismatch(let input, let expected, let got):
            return "input '\(input)' takes \(expected) floats, got \(got)"
        case .outputNotComputed(let output, let index):
            return "output \(index) ('\(output)') is not computed: the interpreter was loaded to skip it"
        }
    }
}
