import FlatBufferReader
import KernelTemplates
import Tensor

/// HARD_SWISH: `y = x · min(max(x + 3, 0), 6) / 6`, element-wise. One float32 input of any
/// shape, one output of the same shape. The options table (`HardSwishOptions`) is empty.
///
/// Both kernels evaluate TFLite's reference formula in its order (`x + 3`, clamped with C++
/// `std::max(0, ·)` and `std::min(6, ·)`, times `x`, then a true division by 6), so `run` is
/// bit-identical to `runReference`. XNNPACK's f32 hswish microkernels (`f32-vhswish`, e.g. the
/// FMA3 one) compute `x · min(max(x · (1/6) + 1/2, 0), 1)` with a rounded `1/6` and a fused
/// multiply-add instead. Over every 64th float32 (that formula evaluated in numpy, the fused
/// multiply-add done exactly in float64) the two agree for |x| ≥ 3, differ by at most 13 ulps
/// where |x + 3| > 0.1, and by at most 2.4e-7 absolute near x = -3, where the result nears 0
/// (up to about 10^5 ulps there). That formula was not checked against the XNNPACK that
/// MediaPipe ships, so the reference formula is kept.
public struct HardSwish: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.hardSwish
    public static let optionsType = BuiltinOptionsType.hardSwish

    public let opName = "HARD_SWISH"
    public let outputShapes: [TensorShape]
    let count: Int

    /// Validates the operands: exactly one input, any shape.
    public static func prepare(inputs: [Operand], options: NoOptions) throws -> HardSwish {
        guard inputs.count == 1 else {
            throw KernelError(op: "HARD_SWISH", "expects 1 input, got \(inputs.count)")
        }
        return HardSwish(outputShapes: [inputs[0].shape], count: inputs[0].shape.elementCount)
    }

    /// The reference formula on eight lanes at a time, split over `runner`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runLanes(HardSwishLanes(), count: count, input: io.inputs[0], output: io.outputs[0], runner: runner)
    }

    public func runReference(_ io: KernelIO) {
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<count {
            let shifted = x[i] + 3
            // std::max(0, v) is `0 < v ? v : 0` and std::min(6, v) is `v < 6 ? v : 6`.
            let raised: Float = 0 < shifted ? shifted : 0
            let clamped: Float = raised < 6 ? raised : 6
            y[i] = x[i] * clamped / 6
        }
    }
}

/// `x · min(max(x + 3, 0), 6) / 6` per lane, with the reference's comparisons.
private struct HardSwishLanes: LaneFunction {
    @inline(__always)
    func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let zero = SIMD8<Float>(repeating: 0), six = SIMD8<Float>(repeating: 6)
        let shifted = x + 3
        let raised = select(zero .< shifted, shifted, zero)
        let clamped = select(raised .< six, raised, six)
        return x * clamped / six
    }
}
