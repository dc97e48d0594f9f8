import FlatBufferReader
import KernelTemplates
import Tensor

/// MUL: `output = activation(lhs · rhs)`, element-wise with broadcasting.
///
/// Inputs, in order: `lhs` and `rhs`, float32 of any shapes that broadcast (see
/// `BinaryBroadcast`: aligned at the last dimension, each pair of sizes equal or one of them
/// 1), at most rank 6 when the shapes differ, e.g. `[1, H, W, C] · [1, 1, 1, C]`. Output: the
/// broadcast shape. Options (`MulOptions`): `fused_activation_function` (NONE, RELU,
/// RELU_N1_TO_1 or RELU6).
///
/// Numerics: one IEEE product per element, then the clamp TFLite's float kernel applies, with
/// finite bounds (without an activation an infinite product becomes
/// ±`Float.greatestFiniteMagnitude`; NaN passes through). `run` is bit-identical to
/// `runReference`. XNNPACK's f32 `vmul_minmax` microkernels compute the same product and clamp,
/// so the results agree with them wherever the product is finite; XNNPACK's clamp bounds for
/// NONE are infinite, so an overflowing product stays infinite there.
public struct Mul: OperatorDescriptor {
    /// MUL's options (TFLite `MulOptions`).
    public struct Options: Sendable, Hashable {
        /// Activation applied to each product.
        public var activation: FusedActivation

        public init(activation: FusedActivation = .none) {
            self.activation = activation
        }
    }

    public static let builtin = BuiltinOperator.mul
    public static let optionsType = BuiltinOptionsType.mul

    /// `MulOptions.fused_activation_function` (default NONE); TANH and SIGN_BIT are refused with
    /// a `KernelError`.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        Options(activation: try FusedActivation(table, BuiltinOptionsFields.Mul.fusedActivationFunction, op: "MUL"))
    }

    public let opName = "MUL"
    public let outputShapes: [TensorShape]
    let broadcast: BinaryBroadcast
    /// The broadcast walked as rows, for `run`.
    let rows: BroadcastRows
    /// Finite clamp bounds of the activation.
    let lower: Float
    let upper: Float

    /// Validates two inputs whose shapes broadcast (rank ≤ 6 when they differ).
    public static func prepare(inputs: [Operand], options: Options) throws -> Mul {
        guard inputs.count == 2 else {
            throw KernelError(op: "MUL", "expects 2 inputs, got \(inputs.count)")
        }
        let broadcast = try BinaryBroadcast(
            op: "MUL", lhs: inputs[0].shape, rhs: inputs[1].shape, maxBroadcastRank: BinaryBroadcast.maxRank)
        let range = options.activation.clampRange
        return Mul(
            outputShapes: [broadcast.outputShape],
            broadcast: broadcast,
            rows: BroadcastRows(broadcast),
            lower: max(range.lower, -Float.greatestFiniteMagnitude),
            upper: min(range.upper, Float.greatestFiniteMagnitude))
    }

    /// Eight lanes at a time along each output row, split over `runner` in memory-bound tasks.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runner.forEach(rows.elementCount, minimumPerChunk: memoryBoundTaskGrain, MulElements(kernel: self, io: io))
    }

    /// Writes output elements `range` of `run`.
    fileprivate func writeElements(_ range: Range<Int>, _ io: KernelIO) {
        rows.combine(
            range, lhs: io.inputs[0], rhs: io.inputs[1], output: io.outputs[0],
            ClampedProduct(lower: lower, upper: upper))
    }

    public func runReference(_ io: KernelIO) {
        // lhs, rhs: their own shapes; y: the broadcast shape, row-major.
        let lhs = io.inputs[0], rhs = io.inputs[1], y = io.outputs[0]
        broadcast.forEachElement { output, left, right in
            let product = lhs[left] * rhs[right]
            // `min(max(product, lower), upper)` with C++ std::max and std::min.
            let raised = product < lower ? lower : product
            y[output] = upper < raised ? upper : raised
        }
    }
}

/// The output elements of one MUL invocation, for `ParallelRunner.forEach`.
private struct MulElements: ParallelWork {
    let kernel: Mul
    let io: KernelIO

    func run(_ range: Range<Int>, thread: Int) { kernel.writeElements(range, io) }
}

/// MUL's arithmetic: the product, clamped to the activation's finite bounds.
private struct ClampedProduct: ElementwiseOperation {
    let clamped: ElementwiseClamp

    init(lower: Float, upper: Float) { clamped = ElementwiseClamp(lower: lower, upper: upper) }

    @inline(__always)
    func vector(_ left: SIMD8<Float>, _ right: SIMD8<Float>) -> SIMD8<Float> { clamped(left * right) }

    @inline(__always)
    func scalar(_ left: Float, _ right: Float) -> Float { clamped(left * right) }
}
