import FlatBufferReader
import KernelTemplates
import Tensor

/// PRELU: `output = input >= 0 ? input : alpha * input`, element-wise, with
/// `alpha` broadcast against `input`.
///
/// Inputs, in order: `input` and `alpha` (usually a constant), float32 of
/// shapes that broadcast (see `BinaryBroadcast`), e.g. `input [1, H, W, C]`
/// with `alpha [1, 1, C]` or `[C]`. As in TFLite, shapes that differ may
/// have at most 4 dimensions. Output: the broadcast shape (`[1, H, W, C]`).
/// The schema gives PRELU no options table.
public struct Prelu: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.prelu
    public static let optionsType: UInt8 = 0

    /// The most dimensions TFLite's PRELU broadcasts over.
    public static let maxBroadcastRank = 4

    public let opName = "PRELU"
    public let outputShapes: [TensorShape]
    let broadcast: BinaryBroadcast
    /// The broadcast walked as rows, for `run`.
    let rows: BroadcastRows

    /// Validates `input` and `alpha`: two inputs whose shapes broadcast.
    public static func prepare(inputs: [Operand], options: NoOptions = NoOptions()) throws -> Prelu {
        guard inputs.count == 2 else {
            throw KernelError(op: "PRELU", "expects 2 inputs (input, alpha), got \(inputs.count)")
        }
        let broadcast = try BinaryBroadcast(
            op: "PRELU", lhs: inputs[0].shape, rhs: inputs[1].shape,
            maxBroadcastRank: maxBroadcastRank)
        return Prelu(
            outputShapes: [broadcast.outputShape], broadcast: broadcast, rows: BroadcastRows(broadcast))
    }

    /// Eight lanes at a time along each output row (the channels for
    /// `input [1, H, W, C]` with `alpha [C]`), split over `runner` in
    /// memory-bound tasks. Bit-identical to `runReference`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runner.forEach(
            rows.elementCount, minimumPerChunk: memoryBoundTaskGrain, PreluElements(kernel: self, io: io))
    }

    /// Writes output elements `range` of `run`.
    fileprivate func writeElements(_ range: Range<Int>, _ io: KernelIO) {
        rows.combine(range, lhs: io.inputs[0], rhs: io.inputs[1], output: io.outputs[0], PreluOperation())
    }

    public func runReference(_ io: KernelIO) {
        // x: input shape; alpha: alpha shape; y: the broadcast shape, row-major.
        let x = io.inputs[0], alpha = io.inputs[1], y = io.outputs[0]
        broadcast.forEachElement { output, xIndex, alphaIndex in
            let value = x[xIndex]
            y[output] = value >= 0 ? value : value * alpha[alphaIndex]
        }
    }
}

/// The output elements of one PRELU invocation, for `ParallelRunner.forEach`.
private struct PreluElements: ParallelWork {
    let kernel: Prelu
    let io: KernelIO

    func run(_ range: Range<Int>, thread: Int) { kernel.writeElements(range, io) }
}

/// PRELU's arithmetic: the product where `value >= 0` fails, which also keeps NaN and -0.
private struct PreluOperation: ElementwiseOperation {
    @inline(__always)
    func vector(_ value: SIMD8<Float>, _ alpha: SIMD8<Float>) -> SIMD8<Float> { prelu(value, alpha: alpha) }

    @inline(__always)
    func scalar(_ value: Float, _ alpha: Float) -> Float { value >= 0 ? value : value * alpha }
}
