import FlatBufferReader
import Kernels
import Tensor

/// Maps a TFLite builtin operator and its options table to a prepared kernel.
/// This is the one place that knows both the file format and the kernels:
/// adding an op means one case here plus its kernel file.
enum OperatorRegistry {
    /// Prepares the kernel for operator `index`.
    /// - Parameters:
    ///   - operands: the operator's present inputs (absent optional inputs dropped).
    ///   - instructionSet: the microkernel family of the kernels that have two.
    static func prepare(
        builtin: BuiltinOperator, options: BuiltinOptions, operands: [Operand], index: Int,
        instructionSet: KernelInstructionSet
    ) throws -> any PreparedKernel {
        let name = builtin.description
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
                return try Conv2D.prepare(inputs: operands, options: .init(
                    padding: padding(o.padding),
                    strideH: Int(o.strideH), strideW: Int(o.strideW),
                    dilationH: Int(o.dilationHFactor), dilationW: Int(o.dilationWFactor),
                    activation: try activation(o.fusedActivation)),
                    instructionSet: instructionSet)
            case (.depthwiseConv2D, .depthwiseConv2D(let o)):
                return try DepthwiseConv2D.prepare(inputs: operands, options: .init(
                    padding: padding(o.padding),
                    strideH: Int(o.strideH), strideW: Int(o.strideW),
                    dilationH: Int(o.dilationHFactor), dilationW: Int(o.dilationWFactor),
                    depthMultiplier: Int(o.depthMultiplier),
                    activation: try activation(o.fusedActivation)),
                    instructionSet: instructionSet)
            case (.fullyConnected, .fullyConnected(let o)):
                return try FullyConnected.prepare(
                    inputs: operands,
                    options: .init(activation: try activation(o.fusedActivation), keepNumDims: o.keepNumDims),
                    instructionSet: instructionSet)
            case (.add, .add(let o)):
                return try Add.prepare(inputs: operands, options: .init(
                    activation: try activation(o.fusedActivation)))
            case (.maxPool2D, .pool2D(let o)):
                return try MaxPool2D.prepare(inputs: operands, options: .init(
                    padding: padding(o.padding),
                    strideH: Int(o.strideH), strideW: Int(o.strideW),
                    filterH: Int(o.filterHeight), filterW: Int(o.filterWidth),
                    activation: try activation(o.fusedActivation)))
            case (.mean, .reducer(let o)):
                return try Mean.prepare(inputs: operands, options: .init(keepDims: o.keepDims))
            case (.pad, _):
                return try Pad.prepare(inputs: operands)
            case (.prelu, _):
                return try Prelu.prepare(inputs: operands)
            case (.logistic, _):
                return try Logistic.prepare(inputs: operands)
            case (.reshape, .reshape(let o)):
                return try Reshape.prepare(inputs: operands, options: .init(newShape: o.newShape))
            case (.reshape, .none):
                return try Reshape.prepare(inputs: operands, options: .init(newShape: nil))
            case (.concatenation, .concatenation(let o)):
                return try Concatenation.prepare(inputs: operands, options: .init(
                    axis: Int(o.axis), activation: try activation(o.fusedActivation)))
            case (.resizeBilinear, .resizeBilinear(let o)):
                return try ResizeBilinear.prepare(inputs: operands, options: .init(
                    alignCorners: o.alignCorners, halfPixelCenters: o.halfPixelCenters))
            case (.depthToSpace, .depthToSpace(let o)):
                return try DepthToSpace.prepare(inputs: operands, options: .init(
                    blockSize: Int(o.blockSize)))
            case (.dequantize, _), (.densify, _):
                throw InterpreterError.unsupportedOption(
                    index: index, op: name, detail: "only constant inputs are supported (folded at load time)")
            case (.conv2D, _), (.depthwiseConv2D, _), (.fullyConnected, _), (.add, _),
                (.maxPool2D, _), (.mean, _), (.reshape, _), (.concatenation, _),
                (.resizeBilinear, _), (.depthToSpace, _):
                throw mismatchedOptions()
            default:
                throw InterpreterError.unsupportedOperator(index: index, name: name)
            }
        } catch let error as KernelError {
            throw InterpreterError.invalidOperator(index: index, error: error)
        }
    }
}
