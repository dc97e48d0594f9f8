import FlatBufferReader
import Kernels
import Tensor

/// Maps a TFLite builtin operator and its options table to a prepared operator. Every op with a
/// kernel declares itself in its kernel file (`OperatorDescriptor`: builtin code, options
/// table, option fields, optional inputs, preparation) and is added here with one line in
/// `descriptors`; nothing here or in the model reader is specific to one op.
enum OperatorRegistry {
    /// The ops with a kernel, one line each.
    static var descriptors: [any OperatorDescriptor.Type] {
        [
            Conv2D.self,
            DepthwiseConv2D.self,
            FullyConnected.self,
            Add.self,
            MaxPool2D.self,
            Reshape.self,
            Concatenation.self,
            DepthToSpace.self,
            Logistic.self,
            Mean.self,
            Pad.self,
            Prelu.self,
            ResizeBilinear.self,
            HardSwish.self,
            Tanh.self,
            Mul.self,
            Relu.self,
            StridedSlice.self,
        ]
    }

    /// The ops that only fold into constants at load time (`ConstantTensors.fold`: DEQUANTIZE
    /// of float weights, DENSIFY of a sparse constant); one whose input is anything else is
    /// refused.
    static let foldedOperators: [BuiltinOperator] = [.dequantize, .densify]

    /// Every op `prepare` gives a kernel.
    static var operators: [BuiltinOperator] { descriptors.map { $0.builtin } }

    /// Prepares operator `index`, a `builtin`, for a load in `context` (with
    /// `context.readsWeights` false the weighted ops are only validated).
    /// - Parameters:
    ///   - optionsTable: the operator's options table.
    ///   - inputs: the operator's inputs in order, nil where the model gives -1 (absent), which
    ///     only the descriptor's `optionalInputPositions` accept; absent ones are dropped
    ///     before the descriptor prepares the operator.
    ///   - customCode: the operator code's `custom_code`, for a CUSTOM operator.
    /// - Throws: `InterpreterError.unsupportedOperator` for an op without a descriptor
    ///   (`.unsupportedCustomOperator`, naming its code, for a CUSTOM one),
    ///   `.unsupportedOption` for a folded op that was not folded, `.invalidOperator` for what
    ///   the kernel refuses (or an absent required input), `.invalidModel` for an options field
    ///   that cannot be read.
    static func prepare(
        builtin: BuiltinOperator, customCode: String? = nil, optionsTable: OptionsTable, inputs: [Operand?], index: Int,
        context: PrepareContext
    ) throws -> PreparedOperator {
        let name = builtin.description
        guard let descriptor = descriptors.first(where: { $0.builtin == builtin }) else {
            if foldedOperators.contains(builtin) {
                throw InterpreterError.unsupportedOption(
                    index: index, op: name, detail: "only constant inputs are supported (folded at load time)")
            }
            if builtin == .custom, let customCode {
                throw InterpreterError.unsupportedCustomOperator(index: index, code: customCode)
            }
            throw InterpreterError.unsupportedOperator(index: index, name: name)
        }
        do {
            for (position, input) in inputs.enumerated()
            where input == nil && !descriptor.optionalInputPositions.contains(position) {
                throw KernelError(op: name, "input \(position) is -1 (absent), but \(name) requires it")
            }
            return try descriptor.prepare(inputs: inputs.compactMap { $0 }, optionsTable: optionsTable, context: context)
        } catch let error as KernelError {
            throw InterpreterError.invalidOperator(index: index, error: error)
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
    }
}
