import FlatBufferReader
import KernelTemplates
import Tensor

/// MEAN: the arithmetic mean of a tensor over a constant set of axes, computed
/// as TFLite's builtin reference kernel computes it (float32).
///
/// Operands, in order:
/// - `input`, any rank up to `TensorShape.maxRank`, row-major
/// - `axis`, a constant int32 scalar or 1-D list of axes to reduce; an axis `a`
///   may be negative (meaning `a + rank`); repeats are ignored; an empty list
///   reduces nothing (the output is a copy of the input)
///
/// Output: the input's shape with each reduced dimension set to 1
/// (`keepDims`) or removed (otherwise; reducing every axis gives a scalar `[]`).
/// A scalar input gives a scalar output equal to it, whatever the axes (TFLite
/// ignores the axes of a scalar input).
///
/// `runReference` sums in Float, into each output in increasing input index
/// order, then divides by the number of reduced elements, as TFLite's
/// reference kernel does. `run` multiplies the same sums by the reciprocal
/// `1 / N` (rounded to Float) instead, as XNNPACK's mean does; see `run`. An
/// empty reduction (a zero-sized reduced dimension with a non-empty output)
/// gives NaN, as in TFLite.
///
/// Options (`ReducerOptions`): `keep_dims` (default false).
public struct Mean: OperatorDescriptor {
    /// MEAN's builtin options (TFLite `ReducerOptions`).
    public struct Options: Sendable, Hashable {
        /// Keep each reduced dimension as size 1 instead of removing it.
        public var keepDims: Bool

        public init(keepDims: Bool) {
            self.keepDims = keepDims
        }
    }

    public static let builtin = BuiltinOperator.mean
    public static let optionsType = BuiltinOptionsType.reducer

    /// `ReducerOptions.keep_dims`.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        Options(keepDims: try table.value(BuiltinOptionsFields.Reducer.keepDims))
    }

    public let opName = "MEAN"
    /// The reduced shape (see the type's documentation).
    public let outputShapes: [TensorShape]

    /// The input's dimensions, outermost first.
    let inputDimensions: [Int]
    /// For each input axis, the step of that axis in the output buffer: 0 for a
    /// reduced axis, the row-major stride of the kept-dims output otherwise.
    let outputStrides: [Int]
    /// The input's element count.
    let inputCount: Int
    /// The output's element count.
    let outputCount: Int
    /// How many input elements each output averages (the product of the
    /// reduced dimensions).
    let reducedCount: Int
    /// For `run`: the input viewed as `[outer, reduced, inner]` with the
    /// reduced axes in the middle, or nil when they are not one contiguous
    /// block (ignoring size-1 axes) or the reduction is empty; `run` then
    /// runs the reference.
    let blockView: (outer: Int, reduced: Int, inner: Int)?

    /// Validates the operands and resolves the axes.
    ///
    /// Throws `KernelError` for: an operand count other than 2; an axis operand
    /// that is not a constant, not int32 or not 0-D/1-D; an axis outside
    /// `-rank..<rank`; an empty output.
    public static func prepare(inputs: [Operand], options: Options) throws -> Mean {
        let op = "MEAN"
        guard inputs.count == 2 else {
            throw KernelError(op: op, "expects 2 inputs (input, axis), got \(inputs.count)")
        }
        let inputShape = inputs[0].shape, axisOperand = inputs[1]
        guard axisOperand.shape.rank <= 1 else {
            throw KernelError(op: op, "axis must be 0-D or 1-D, got shape \(axisOperand.shape)")
        }
        guard let constant = axisOperand.constant else {
            throw KernelError(op: op, "axis must be a constant tensor, got a runtime tensor")
        }
        guard let axes = constant.int32Values else {
            throw KernelError(op: op, "axis must be an int32 constant, got a float32 constant")
        }
        guard axes.count == axisOperand.shape.elementCount else {
            throw KernelError(
                op: op,
                "axis constant holds \(axes.count) values but its shape \(axisOperand.shape) needs "
                    + "\(axisOperand.shape.elementCount)")
        }

        let rank = inputShape.rank
        var isReduced = [Bool](repeating: false, count: rank)
        if rank > 0 {
            for axis in axes {
                let resolved = axis < 0 ? Int(axis) + rank : Int(axis)
                guard resolved >= 0, resolved < rank else {
                    throw KernelError(
                        op: op, "axis \(axis) is out of range for a rank \(rank) input (valid: \(-rank)..<\(rank))")
                }
                isReduced[resolved] = true
            }
        }

        var keptDimensions: [Int] = []  // the output shape without keepDims
        var unitDimensions: [Int] = []  // the output shape with keepDims
        for (axis, size) in inputShape.dimensions.enumerated() {
            unitDimensions.append(isReduced[axis] ? 1 : size)
            if !isReduced[axis] { keptDimensions.append(size) }
        }
        let outputShape = try makeOutputShape(op: op, options.keepDims ? unitDimensions : keptDimensions)
        guard outputShape.elementCount > 0 else {
            throw KernelError(op: op, "output shape \(outputShape) of input \(inputShape) is empty")
        }

        // Row-major strides of the kept-dims output; dropping its size-1 axes
        // (no keepDims) leaves the same flat layout.
        var outputStrides = [Int](repeating: 0, count: rank)
        var step = 1
        var reducedCount = 1
        for axis in stride(from: rank - 1, through: 0, by: -1) {
            if isReduced[axis] {
                // Cannot overflow: a product of input dimensions is at most the
                // input's element count (≤ 2^31), or 0.
                reducedCount *= inputShape[axis]
            } else {
                outputStrides[axis] = step
                // Cannot overflow: a product of output dimensions (≤ 2^31).
                step *= inputShape[axis]
            }
        }
        // Axes of size 1 do not change the layout; the others must be kept,
        // reduced, kept, in that order. Products of input dimensions cannot
        // overflow when the input is not empty.
        var blockView: (outer: Int, reduced: Int, inner: Int)?
        if inputShape.elementCount > 0 {
            let significant = (0..<rank).filter { inputShape[$0] > 1 }
            let reducedPositions = significant.indices.filter { isReduced[significant[$0]] }
            let contiguous = reducedPositions.isEmpty
                || reducedPositions.count == reducedPositions.last! - reducedPositions.first! + 1
            if contiguous {
                let firstReduced = reducedPositions.first.map { significant[$0] } ?? rank
                let lastReduced = reducedPositions.last.map { significant[$0] } ?? rank - 1
                let product = { (axes: Range<Int>) in axes.reduce(1) { $0 * inputShape[$1] } }
                blockView = (
                    product(0..<firstReduced), product(firstReduced..<(lastReduced + 1)),
                    product((lastReduced + 1)..<rank))
            }
        }
        return Mean(
            outputShapes: [outputShape], inputDimensions: inputShape.dimensions,
            outputStrides: outputStrides, inputCount: inputShape.elementCount,
            outputCount: outputShape.elementCount, reducedCount: reducedCount, blockView: blockView)
    }

    /// For reduced axes forming one block: each output `[outer, inner]` sums
    /// its `reduced` inputs in increasing input order in a register starting
    /// from +0, eight inner elements at a time (a whole block's 32 as four
    /// eights side by side; a scalar tail), then multiplies
    /// by `1 / N` (N = `reduced`, the quotient rounded to Float). That is
    /// XNNPACK's f32 mean when the reduced block is not innermost
    /// (`inner` > 1, e.g. the global average pool over H and W of NHWC): its
    /// `f32_rdsum` microkernels add the rows one after another into each
    /// output's accumulator, then scale by that reciprocal, so the result is
    /// XNNPACK's bit for bit. (When the block is innermost, XNNPACK's
    /// `f32_rsum` kernels split each sum over several accumulators, which
    /// this kernel does not reproduce.) The sums are the reference's, so the
    /// result is within an ulp or so of `runReference`. Blocks of 32 inner
    /// elements are split over `runner`. Other reductions run the reference.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        guard let (outer, reduced, inner) = blockView else {
            runReference(io)
            return
        }
        let blockWidth = MeanBlocks.blockWidth
        let blocksPerRow = (inner + blockWidth - 1) / blockWidth
        let blockWork = reduced * min(inner, blockWidth)
        runner.forEach(
            outer * blocksPerRow, minimumPerChunk: minimumRowsPerTask(rowLength: blockWork),
            MeanBlocks(
                input: io.inputs[0], output: io.outputs[0], reduced: reduced, inner: inner,
                blocksPerRow: blocksPerRow, scale: 1 / Float(reducedCount)))
    }

    /// Adds every input element to its output in input order, then divides
    /// each output by the number of elements it received.
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // the input shape, row-major
        let output = io.outputs[0]  // the output shape, row-major
        for o in 0..<outputCount {
            output[o] = 0
        }
        for i in 0..<inputCount {
            // Split the flat input index into per-axis coordinates, innermost
            // first, and map them to the output offset.
            var rest = i
            var outputIndex = 0
            for axis in stride(from: inputDimensions.count - 1, through: 0, by: -1) {
                let size = inputDimensions[axis]
                outputIndex += (rest % size) * outputStrides[axis]
                rest /= size
            }
            output[outputIndex] += input[i]
        }
        let divisor = Float(reducedCount)
        for o in 0..<outputCount {
            output[o] = output[o] / divisor
        }
    }
}

/// The blocks of one MEAN invocation's block view, for `ParallelRunner.forEach`:
/// block `k` holds inner elements `(k % blocksPerRow) · 32 ..<` (up to 32 of
/// them) of outer row `k / blocksPerRow`.
private struct MeanBlocks: ParallelWork {
    static let blockWidth = 32

    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let reduced: Int
    let inner: Int
    let blocksPerRow: Int
    /// `1 / N`, rounded to Float, for N reduced elements.
    let scale: Float

    func run(_ blocks: Range<Int>, thread: Int) {
        let scaleLanes = SIMD8<Float>(repeating: scale)
        for block in blocks {
            let o = block / blocksPerRow, start = (block % blocksPerRow) * Self.blockWidth
            let end = min(start + Self.blockWidth, inner)
            let source = input + o * reduced * inner, destination = output + o * inner
            var i = start
            if end - start == Self.blockWidth {
                // A whole block: its four groups of eight summed side by side, so that four
                // independent additions are in flight rather than one chain of `reduced`.
                var sum0 = SIMD8<Float>(repeating: 0), sum1 = sum0, sum2 = sum0, sum3 = sum0
                for r in 0..<reduced {
                    let row = source + r * inner + start
                    sum0 += loadVector8(row)
                    sum1 += loadVector8(row + 8)
                    sum2 += loadVector8(row + 16)
                    sum3 += loadVector8(row + 24)
                }
                storeVector8(sum0 * scaleLanes, destination + start)
                storeVector8(sum1 * scaleLanes, destination + start + 8)
                storeVector8(sum2 * scaleLanes, destination + start + 16)
                storeVector8(sum3 * scaleLanes, destination + start + 24)
                continue
            }
            while i + 8 <= end {
                var sum = SIMD8<Float>(repeating: 0)
                for r in 0..<reduced { sum += loadVector8(source + r * inner + i) }
                storeVector8(sum * scaleLanes, destination + i)
                i += 8
            }
            while i < end {
                var sum: Float = 0
                for r in 0..<reduced { sum += source[r * inner + i] }
                destination[i] = sum * scale
                i += 1
            }
        }
    }
}
