import FlatBufferReader
import Kernels
import Tensor

/// Maps a TFLite operator (a builtin one, or a CUSTOM one by its custom code) and its options
/// to a prepared operator. Every op with a kernel declares itself in its kernel file
/// (`OperatorDescriptor`: builtin code or custom code and version, options, option fields,
/// optional inputs, preparation) and is added here with one line in `descriptors`; nothing
/// here or in the model reader is specific to one op.
enum OperatorRegistry {
    /// The ops with a kernel, one line each.
    static let descriptors: [any OperatorDescriptor.Type] = [
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
            LandmarksToTransformMatrix.self,
            TransformTensorBilinear.self,
            TransformLandmarks.self,
        ]

    /// The ops that only fold into constants at load time (`ConstantTensors.fold`: DEQUANTIZE
    /// of float weights, DENSIFY of a sparse constant); one whose input is anything else is
    /// refused.
    static let foldedOperators: [BuiltinOperator] = [.dequantize, .densify]

    /// Every op `prepare` gives a kernel, by name (a custom op by its custom code).
    static var operators: [String] { descriptors.map { $0.name } }

    /// The builtin ops' descriptors by builtin code (the first declared for a code wins).
    private static let builtinDescriptors: [BuiltinOperator: any OperatorDescriptor.Type] =
        Dictionary(descriptors.filter { $0.custom == nil }.map { ($0.builtin, $0) }, uniquingKeysWith: { first, _ in first })

    /// The custom ops' descriptors by custom code (the first declared for a code wins).
    private static let customDescriptors: [String: any OperatorDescriptor.Type] =
        Dictionary(descriptors.compactMap { d in d.custom.map { ($0.code, d) } }, uniquingKeysWith: { first, _ in first })

    /// The descriptor of a `builtin` operator, or of a CUSTOM one of `customCode`.
    static func descriptor(builtin: BuiltinOperator, customCode: String?) -> (any OperatorDescriptor.Type)? {
        guard builtin == .custom else { return builtinDescriptors[builtin] }
        return customCode.flatMap { customDescriptors[$0] }
    }

    /// Prepares operator `index`, a `builtin`, for a load in `context` (with
    /// `context.readsWeights` false the weighted ops are only validated).
    /// - Parameters:
    ///   - customCode: the operator code's `custom_code`, for a CUSTOM operator.
    ///   - version: the operator code's `version`, which a custom operator's descriptor must
    ///     implement (builtin ones take every version the model reader accepts).
    ///   - optionsTable: the operator's options (table, or custom options).
    ///   - inputs: the operator's present inputs in order (those the model gives as -1 left out).
    ///   - absentInputPositions: the input positions at which the model gives -1 (absent), which
    ///     only the descriptor's `optionalInputPositions` accept.
    /// - Throws: `InterpreterError.unsupportedOperator` for an op without a descriptor
    ///   (`.unsupportedCustomOperator`, naming its code, for a CUSTOM one),
    ///   `.unsupportedOption` for a folded op that was not folded, `.invalidOperator` for what
    ///   the kernel refuses (or an absent required input, or a custom operator's other
    ///   version), `.invalidModel` for an options field that cannot be read.
    static func prepare(
        builtin: BuiltinOperator, customCode: String? = nil, version: Int32 = 1, optionsTable: OptionsTable,
        inputs: [Operand], absentInputPositions: [Int] = [], index: Int, context: PrepareContext
    ) throws -> PreparedOperator {
        guard let descriptor = descriptor(builtin: builtin, customCode: customCode) else {
            let name = builtin.description
            if foldedOperators.contains(builtin) {
                throw InterpreterError.unsupportedOption(
                    index: index, op: name, detail: "only constant inputs are supported (folded at load time)")
            }
            if builtin == .custom, let customCode {
                throw InterpreterError.unsupportedCustomOperator(index: index, code: customCode)
            }
            throw InterpreterError.unsupportedOperator(index: index, name: name)
        }
        let name = descriptor.name
        do {
            if let custom = descriptor.custom, custom.version != version {
                throw KernelError(op: name, "has version \(version); only version \(custom.version) is supported")
            }
            if !absentInputPositions.isEmpty {
                let optional = descriptor.optionalInputPositions
                if let position = absentInputPositions.first(where: { !optional.contains($0) }) {
                    throw KernelError(op: name, "input \(position) is -1 (absent), but \(name) requires it")
                }
            }
            return try descriptor.prepare(inputs: inputs, optionsTable: optionsTable, context: context)
        } catch let error as KernelError {
            throw InterpreterError.invalidOperator(index: index, error: error)
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
    }
}
