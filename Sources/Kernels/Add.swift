import FlatBufferReader
import KernelTemplates
import Tensor

/// ADD: `output = activation(lhs + rhs)`, element-wise with broadcasting.
///
/// Inputs, in order: `lhs` and `rhs`, float32 of any shapes that broadcast
/// (see `BinaryBroadcast`: aligned at the last dimension, each pair of sizes
/// equal or one of them 1), at most rank 6 when the shapes differ, e.g.
/// `[1, H, W, C] + [1, 1, 1, C]` or `[1, H, W, C] + [C]`. Output: the
/// broadcast shape (`[1, H, W, C]` in both examples).
///
/// As TFLite's float kernel does, the sum is clamped to the activation's
/// range with finite bounds: without an activation an infinite sum becomes
/// ±`Float.greatestFiniteMagnitude`, and RELU caps at the largest finite
/// float. NaN passes through unchanged.
///
/// A RELU operator that alone reads the sum can be fused (``fusing(relu:)``,
/// "ADD+RELU"): after the clamp each value becomes `0 < v ? v : 0`, what the
/// RELU kernel computes, so the output is bit-identical to running both
/// (−0 and NaN become +0 there, which the clamp alone would keep).
public struct Add: OperatorDescriptor {
    /// ADD's options (TFLite `AddOptions`).
    public struct Options: Sendable, Hashable {
        /// Activation applied to each sum.
        public var activation: FusedActivation

        public init(activation: FusedActivation = .none) {
            self.activation = activation
        }
    }

    public static let builtin = BuiltinOperator.add
    public static let optionsType = BuiltinOptionsType.add

    /// `AddOptions.fused_activation_function` (default NONE; TANH and SIGN_BIT refused);
    /// `pot_scale_int16` concerns int16 inputs only and is not read.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        Options(activation: try FusedActivation(table, BuiltinOptionsFields.Add.fusedActivationFunction, op: "ADD"))
    }

    public var opName: String { rectifies ? "ADD+RELU" : "ADD" }
    public let outputShapes: [TensorShape]
    let broadcast: BinaryBroadcast
    /// The broadcast walked as rows, for `run`.
    let rows: BroadcastRows
    /// Finite clamp bounds of the activation.
    let lower: Float
    let upper: Float
    /// Whether a fused RELU follows the clamp (``fusing(relu:)``).
    private(set) var rectifies = false

    /// Whether both operands have the output's shape (no broadcasting): each
    /// output element is the sum of the operands' elements at its own index,
    /// so the sum does not depend on the order the elements are stored in.
    public var isElementwise: Bool { broadcast.isElementwise }

    /// Validates two inputs whose shapes broadcast (rank ≤ 6 when they differ).
    public static func prepare(inputs: [Operand], options: Options) throws -> Add {
        guard inputs.count == 2 else {
            throw KernelError(op: "ADD", "expects 2 inputs, got \(inputs.count)")
        }
        let broadcast = try BinaryBroadcast(
            op: "ADD", lhs: inputs[0].shape, rhs: inputs[1].shape,
            maxBroadcastRank: BinaryBroadcast.maxRank)
        let range = options.activation.clampRange
        return Add(
            outputShapes: [broadcast.outputShape],
            broadcast: broadcast,
            rows: BroadcastRows(broadcast),
            lower: max(range.lower, -Float.greatestFiniteMagnitude),
            upper: min(range.upper, Float.greatestFiniteMagnitude))
    }

    /// This ADD followed by `relu`, run as one kernel, bit-identical to running both. Nil when
    /// a RELU is already fused or `relu`'s shape is not this ADD's output shape.
    public func fusing(relu: Relu) -> Add? {
        guard !rectifies, relu.outputShapes[0] == outputShapes[0] else { return nil }
        var fused = self
        fused.rectifies = true
        return fused
    }

    /// Eight lanes at a time along each output row, split over `runner` in
    /// memory-bound tasks. Bit-identical to `runReference`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runner.forEach(
            rows.elementCount, minimumPerChunk: memoryBoundTaskGrain, AddElements(kernel: self, io: io))
    }

    /// Writes output elements `range` of `run`.
    fileprivate func writeElements(_ range: Range<Int>, _ io: KernelIO) {
        if rectifies {
            rows.combine(
                range, lhs: io.inputs[0], rhs: io.inputs[1], output: io.outputs[0],
                RectifiedClampedSum(lower: lower, upper: upper))
        } else {
            rows.combine(
                range, lhs: io.inputs[0], rhs: io.inputs[1], output: io.outputs[0],
                ClampedSum(lower: lower, upper: upper))
        }
    }

    public func runReference(_ io: KernelIO) {
        // lhs, rhs: their own shapes; y: the broadcast shape, row-major.
        let lhs = io.inputs[0], rhs = io.inputs[1], y = io.outputs[0]
        broadcast.forEachElement { output, left, right in
            let sum = lhs[left] + rhs[right]
            // Clamp as `min(max(sum, lower), upper)` in C++ (`std::max` and
            // `std::min` keep their first argument when comparisons fail, so
            // NaN stays NaN and -0 stays -0).
            let raised = sum < lower ? lower : sum
            let clamped = upper < raised ? upper : raised
            // The fused RELU: `std::max(0.0f, v)`.
            y[output] = rectifies ? (0 < clamped ? clamped : 0) : clamped
        }
    }
}

/// The output elements of one ADD invocation, for `ParallelRunner.forEach`.
private struct AddElements: ParallelWork {
    let kernel: Add
    let io: KernelIO

    func run(_ range: Range<Int>, thread: Int) { kernel.writeElements(range, io) }
}

/// ADD's arithmetic: the sum, clamped to the activation's finite bounds.
private struct ClampedSum: ElementwiseOperation {
    let clamped: ElementwiseClamp

    init(lower: Float, upper: Float) { clamped = ElementwiseClamp(lower: lower, upper: upper) }

    @inline(__always)
    func vector(_ left: SIMD8<Float>, _ right: SIMD8<Float>) -> SIMD8<Float> { clamped(left + right) }

    @inline(__always)
    func scalar(_ left: Float, _ right: Float) -> Float { clamped(left + right) }
}

/// ADD+RELU's arithmetic: the clamped sum, then `0 < v ? v : 0`.
private struct RectifiedClampedSum: ElementwiseOperation {
    let sum: ClampedSum

    init(lower: Float, upper: Float) { sum = ClampedSum(lower: lower, upper: upper) }

    @inline(__always)
    func vector(_ left: SIMD8<Float>, _ right: SIMD8<Float>) -> SIMD8<Float> {
        let clamped = sum.vector(left, right), zero = SIMD8<Float>(repeating: 0)
        return select(zero .< clamped, clamped, zero)
    }

    @inline(__always)
    func scalar(_ left: Float, _ right: Float) -> Float {
        let clamped = sum.scalar(left, right)
        return 0 < clamped ? clamped : 0
    }
}
