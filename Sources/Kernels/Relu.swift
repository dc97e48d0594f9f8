import FlatBufferReader
import KernelTemplates
import Tensor

/// RELU: `y = max(0, x)`, element-wise. One float32 input of any shape, one output of the same
/// shape; the operator carries no options table.
///
/// Both kernels compute `0 < x ? x : 0`, TFLite's reference `std::max(0.0f, x)`, so `run` is
/// bit-identical to `runReference`. That is also what XNNPACK's f32 ReLU gives (`maxps(x, 0)`,
/// which returns its second operand when the first is NaN or both are zero): negative values,
/// −0 and NaN become +0, +∞ stays +∞.
public struct Relu: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.relu
    public static let optionsType: UInt8 = 0

    public let opName = "RELU"
    public let outputShapes: [TensorShape]
    let count: Int

    /// Validates the operands: exactly one input, any shape.
    public static func prepare(inputs: [Operand], options: NoOptions) throws -> Relu {
        guard inputs.count == 1 else {
            throw KernelError(op: "RELU", "expects 1 input, got \(inputs.count)")
        }
        return Relu(outputShapes: [inputs[0].shape], count: inputs[0].shape.elementCount)
    }

    /// Eight lanes at a time, split over `runner`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runLanes(ReluLanes(), count: count, input: io.inputs[0], output: io.outputs[0], runner: runner)
    }

    public func runReference(_ io: KernelIO) {
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<count {
            // std::max(0.0f, v) is `0 < v ? v : 0`.
            y[i] = 0 < x[i] ? x[i] : 0
        }
    }
}

/// `0 < x ? x : 0` per lane.
private struct ReluLanes: LaneFunction {
    @inline(__always)
    func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let zero = SIMD8<Float>(repeating: 0)
        return select(zero .< x, x, zero)
    }
}
