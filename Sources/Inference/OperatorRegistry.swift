import FlatBufferReader
import Kernels
import Tensor

/// One operator after load-time preparation.
enum PreparedOperator {
    /// A kernel ready to run.
    case kernel(any PreparedKernel)
    /// A weighted op checked by its `validate` entry point, with no kernel
    /// built (`Interpreter.validate`: weights are neither read nor packed).
    case validated(ValidatedOperator)

    var outputShapes: [TensorShape] {
        switch self {
        case .kernel(let kernel): return kernel.outputShapes
        case .validated(let validated): return validated.outputShapes
        }
    }

    var multiplyAccumulates: Int {
        switch self {
        case .kernel(let kernel): return kernel.multiplyAccumulates
        case .validated(let validated): return validated.multiplyAccumulates
        }
    }
}

/// Maps a TFLite builtin operator and its options table to a prepared kernel.
/// An op whose kernel declares itself (`OperatorDescriptor`: builtin code, options table,
/// option fields, validation) is added with one line in `descriptors`; the ops before that
/// form have a case in `prepare` and their options decoded by the model reader.
enum OperatorRegistry {
    /// The ops declared by their kernel files, one line each.
    static var descriptors: [any OperatorDescriptor.Type] {
        [
            DepthToSpace.self,
            Logistic.self,
            Mean.self,
            Pad.self,
            Prelu.self,
            ResizeBilinear.self,
            HardSwish.self,
            Tanh.self,
            Mul.self,
        ]
    }

    /// The ops whose options the model reader decodes (`BuiltinOptions`), each with its case
    /// in `prepare`.
    static let readerDecodedOperators: [BuiltinOperator] = [
        .conv2D, .depthwiseConv2D, .fullyConnected, .add, .maxPool2D, .reshape, .concatenation,
    ]

    /// Every op `prepare` gives a kernel: the declared ones and the reader-decoded ones.
    static var operators: [BuiltinOperator] { descriptors.map { $0.builtin } + readerDecodedOperators }

    /// Prepares the kernel for operator `index`, or, when `readsWeights` is
    /// false, only validates the weighted ops (CONV_2D, DEPTHWISE_CONV_2D,
    /// FULLY_CONNECTED), whose weight and bias operands may then be unread
    /// constants. Every other op is prepared either way: none of them reads
    /// float constant values at prepare time.
    /// - Parameters:
    ///   - optionsTable: the operator's options table, read by the ops in `descriptors`.
    ///   - operands: the operator's present inputs (absent optional inputs dropped).
    ///   - instructionSet: the microkernel family of the kernels that have two.
    ///   - defersCompressedRows: whether a CONV_2D leaves a 1×1 filter stored
    ///     as compressed rows unpacked (`Conv2D.prepare`), for the caller to pack.
    static func prepare(
        builtin: BuiltinOperator, options: BuiltinOptions, optionsTable: OptionsTable, operands: [Operand],
        index: Int, readsWeights: Bool = true, instructionSet: KernelInstructionSet = .detected,
        defersCompressedRows: Bool = false
    ) throws -> PreparedOperator {
        let name = builtin.description
        if let descriptor = descriptors.first(where: { $0.builtin == builtin }) {
            do {
                return .kernel(try descriptor.prepare(inputs: operands, optionsTable: optionsTable))
            } catch let error as KernelError {
                throw InterpreterError.invalidOperator(index: index, error: error)
            } catch let error as ModelError {
                throw InterpreterError.invalidModel(error)
            }
        }
        /// A weighted op: its kernel, or only its validation.
        func weighted<Options, Kernel: PreparedKernel>(
            _ prepare: ([Operand], Options) throws -> Kernel,
            _ validate: ([Operand], Options) throws -> ValidatedOperator,
            _ options: Options
        ) throws -> PreparedOperator {
            readsWeights ? .kernel(try prepare(operands, options)) : .validated(try validate(operands, options))
        }
        func activation(_ value: ActivationFunction) throws -> FusedActivation {
            switch value {
            case .none: return .none
            case .relu: return .relu
            case .reluN1To1: return .reluN1To1
            case .relu6: return .relu6
            default:
                throw InterpreterError.unsupportedOption(
                    index: index, op: name, detail: "fused activation \(value)")
            }
        }
        func padding(_ value: FlatBufferReader.Padding) -> Kernels.Padding {
            value == .same ? .same : .valid
        }
        func mismatchedOptions() -> InterpreterError {
            .unsupportedOption(index: index, op: name, detail: "options table of another operator type")
        }

        do {
            switch (builtin, options) {
            case (.conv2D, .conv2D(let o)):
                return try weighted(
                    {
                        try Conv2D.prepare(
                            inputs: $0, options: $1, instructionSet: instructionSet,
                            defersCompressedRows: defersCompressedRows)
                    },
                    Conv2D.validate, Conv2D.Options(
                        padding: padding(o.padding),
                        strideH: Int(o.strideH), strideW: Int(o.strideW),
                        dilationH: Int(o.dilationHFactor), dilationW: Int(o.dilationWFactor),
                        activation: try activation(o.fusedActivation)))
            case (.depthwiseConv2D, .depthwiseConv2D(let o)):
                return try weighted(
                    { try DepthwiseConv2D.prepare(inputs: $0, options: $1, instructionSet: instructionSet) },
                    DepthwiseConv2D.validate, DepthwiseConv2D.Options(
                        padding: padding(o.padding),
                        strideH: Int(o.strideH), strideW: Int(o.strideW),
                        dilationH: Int(o.dilationHFactor), dilationW: Int(o.dilationWFactor),
                        depthMultiplier: Int(o.depthMultiplier),
                        activation: try activation(o.fusedActivation)))
            case (.fullyConnected, .fullyConnected(let o)):
                return try weighted(
                    { try FullyConnected.prepare(inputs: $0, options: $1, instructionSet: instructionSet) },
                    FullyConnected.validate, FullyConnected.Options(
                        activation: try activation(o.fusedActivation), keepNumDims: o.keepNumDims))
            case (.add, .add(let o)):
                return .kernel(try Add.prepare(inputs: operands, options: .init(
                    activation: try activation(o.fusedActivation))))
            case (.maxPool2D, .pool2D(let o)):
                return .kernel(try MaxPool2D.prepare(inputs: operands, options: .init(
                    padding: padding(o.padding),
                    strideH: Int(o.strideH), strideW: Int(o.strideW),
                    filterH: Int(o.filterHeight), filterW: Int(o.filterWidth),
                    activation: try activation(o.fusedActivation))))
            case (.reshape, .reshape(let o)):
                return .kernel(try Reshape.prepare(inputs: operands, options: .init(newShape: o.newShape)))
            case (.reshape, .none):
                return .kernel(try Reshape.prepare(inputs: operands, options: .init(newShape: nil)))
            case (.concatenation, .concatenation(let o)):
                return .kernel(try Concatenation.prepare(inputs: operands, options: .init(
                    axis: Int(o.axis), activation: try activation(o.fusedActivation))))
            case (.dequantize, _), (.densify, _):
                throw InterpreterError.unsupportedOption(
                    index: index, op: name, detail: "only constant inputs are supported (folded at load time)")
            default:
                if readerDecodedOperators.contains(builtin) { throw mismatchedOptions() }
                throw InterpreterError.unsupportedOperator(index: index, name: name)
            }
        } catch let error as KernelError {
            throw InterpreterError.invalidOperator(index: index, error: error)
        }
    }
}
