import FlatBufferReader
import Tensor

/// STRIDED_SLICE: every `stride`-th element of a box of the input, e.g. the first 32 of 64
/// channels of `[1, 4, 4, 64]`.
///
/// Inputs, in order: `input` (float32, rank 1…5), and `begin`, `end` and `strides`, constant
/// int32 vectors of the input's rank. Along axis `d` the slice starts at `begin[d]` and runs to
/// `end[d]` (exclusive) in steps of `strides[d]` (≠ 0, negative to walk backwards); negative
/// indices count from the end, and both are clamped to the axis, as TFLite's
/// `strided_slice_logic.h` does. Options (`StridedSliceOptions`): `begin_mask` and `end_mask`
/// (bit `d` set: the slice starts, or ends, at the end of axis `d` the stride walks from, or
/// to), `shrink_axis_mask` (bit `d` set: axis `d` takes the one element at `begin[d]` and is
/// left out of the output's shape). `ellipsis_mask`, `new_axis_mask` and `offset` are refused.
/// Output: the element count along each axis not shrunk, `ceil((stop − start) / stride)` or 0.
///
/// Both kernels copy elements, so `run` is bit-identical to `runReference`.
public struct StridedSlice: OperatorDescriptor {
    /// STRIDED_SLICE's options (TFLite `StridedSliceOptions`, bit `d` of a mask for axis `d`).
    public struct Options: Sendable, Hashable {
        public var beginMask: Int32
        public var endMask: Int32
        public var shrinkAxisMask: Int32

        public init(beginMask: Int32 = 0, endMask: Int32 = 0, shrinkAxisMask: Int32 = 0) {
            self.beginMask = beginMask
            self.endMask = endMask
            self.shrinkAxisMask = shrinkAxisMask
        }
    }

    public static let builtin = BuiltinOperator.stridedSlice
    public static let optionsType = BuiltinOptionsType.stridedSlice
    /// The most dimensions TFLite's STRIDED_SLICE accepts.
    public static let maxRank = 5

    /// `StridedSliceOptions`: `begin_mask`, `end_mask` and `shrink_axis_mask`; a non-zero
    /// `ellipsis_mask` or `new_axis_mask`, or `offset` true, is refused with a `KernelError`.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.StridedSlice
        for field in [Fields.ellipsisMask, Fields.newAxisMask] {
            let mask = try table.value(field)
            guard mask == 0 else {
                throw KernelError(op: "STRIDED_SLICE", "\(field.name) is \(mask); only 0 is supported")
            }
        }
        guard try !table.value(Fields.offset) else {
            throw KernelError(op: "STRIDED_SLICE", "offset is true; only begin/end indices are supported")
        }
        return Options(
            beginMask: try table.value(Fields.beginMask), endMask: try table.value(Fields.endMask),
            shrinkAxisMask: try table.value(Fields.shrinkAxisMask))
    }

    public let opName = "STRIDED_SLICE"
    public let outputShapes: [TensorShape]
    /// Per axis, left-padded to `maxRank` entries: the first input index read.
    let starts: [Int]
    /// Per axis, left-padded to `maxRank` entries: how many elements the slice takes.
    let counts: [Int]
    /// Per axis, left-padded to `maxRank` entries: the step between them, in input indices.
    let steps: [Int]
    /// Row-major element strides of the input, left-padded to `maxRank` entries.
    let inputStrides: [Int]

    /// Validates the operands and computes the slice of every axis.
    public static func prepare(inputs: [Operand], options: Options) throws -> StridedSlice {
        let op = "STRIDED_SLICE"
        guard inputs.count == 4 else {
            throw KernelError(op: op, "expects 4 inputs (input, begin, end, strides), got \(inputs.count)")
        }
        let input = inputs[0].shape
        guard (1...maxRank).contains(input.rank) else {
            throw KernelError(op: op, "input \(input) has rank \(input.rank); 1 to \(maxRank) are supported")
        }
        func indices(_ position: Int, _ name: String) throws -> [Int] {
            let operand = inputs[position]
            guard operand.shape.dimensions == [input.rank] else {
                throw KernelError(op: op, "\(name) must have shape [\(input.rank)] for input \(input), got \(operand.shape)")
            }
            guard let constant = operand.constant else {
                throw KernelError(op: op, "\(name) must be a constant tensor")
            }
            guard let values = constant.int32Values, values.count == input.rank else {
                throw KernelError(op: op, "\(name) must hold \(input.rank) int32 values")
            }
            return values.map(Int.init)
        }
        let begin = try indices(1, "begin"), end = try indices(2, "end"), strides = try indices(3, "strides")

        var starts: [Int] = [], counts: [Int] = [], steps: [Int] = [], outputDims: [Int] = []
        for axis in 0..<input.rank {
            let size = input[axis], stride = strides[axis]
            guard stride != 0 else { throw KernelError(op: op, "stride of axis \(axis) is 0") }
            let bit = Int32(1) << Int32(axis)
            let shrinks = options.shrinkAxisMask & bit != 0
            // TFLite's StartForAxis and StopForAxis: a masked index is the far end; a negative
            // one counts from the end; both are clamped to [0, size] walking forwards and to
            // [-1, size - 1] walking backwards.
            func clamped(_ index: Int) -> Int {
                let wrapped = index < 0 ? index + size : index
                return stride > 0 ? min(max(wrapped, 0), size) : min(max(wrapped, -1), size - 1)
            }
            let start = options.beginMask & bit != 0 ? (stride > 0 ? 0 : size - 1) : clamped(begin[axis])
            if shrinks {
                guard (0..<size).contains(start) else {
                    throw KernelError(op: op, "begin \(begin[axis]) of shrunk axis \(axis) is outside its size \(size)")
                }
                starts.append(start)
                counts.append(1)
                steps.append(1)
                continue
            }
            let stop = options.endMask & bit != 0 ? (stride > 0 ? size : -1) : clamped(end[axis])
            // Indices are clamped to the axis: no overflow.
            let span = stride > 0 ? stop - start : start - stop
            let count = span <= 0 ? 0 : (span + abs(stride) - 1) / abs(stride)
            starts.append(count == 0 ? 0 : start)
            counts.append(count)
            steps.append(stride)
            outputDims.append(count)
        }
        let output: TensorShape
        do {
            output = try TensorShape(outputDims)
        } catch {
            throw KernelError(op: op, "output shape \(outputDims) is invalid: \(error)")
        }
        let unused = maxRank - input.rank
        var inputStrides = [Int](repeating: 0, count: maxRank)
        var elementStride = 1
        for axis in (unused..<maxRank).reversed() {
            inputStrides[axis] = elementStride
            // At most the input's element count, or any size next to a zero-sized axis, in
            // which case nothing is read: saturate instead of trapping.
            elementStride = elementStride.multipliedReportingOverflow(by: input[axis - unused]).partialValue
        }
        return StridedSlice(
            outputShapes: [output],
            starts: [Int](repeating: 0, count: unused) + starts,
            counts: [Int](repeating: 1, count: unused) + counts,
            steps: [Int](repeating: 1, count: unused) + steps,
            inputStrides: inputStrides)
    }

    /// One output row (the innermost axis) at a time, a contiguous copy when its step is 1;
    /// rows split over `runner` in memory-bound tasks.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let rowLength = counts[Self.maxRank - 1]
        let rows = counts.dropLast().reduce(1, *)
        guard rowLength > 0, rows > 0 else { return }
        runner.forEach(
            rows, minimumPerChunk: minimumRowsPerTask(rowLength: rowLength),
            StridedSliceRows(kernel: self, x: io.inputs[0], y: io.outputs[0]))
    }

    /// Writes output rows `rows` of `run`.
    fileprivate func writeRows(_ rows: Range<Int>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        let last = Self.maxRank - 1
        let rowLength = counts[last], step = steps[last]
        for row in rows {
            // The row's index along each outer axis, from its number.
            var rest = row
            var source = starts[last] * inputStrides[last]
            for axis in stride(from: last - 1, through: 0, by: -1) {
                let index = rest % counts[axis]
                rest /= counts[axis]
                source += (starts[axis] + index * steps[axis]) * inputStrides[axis]
            }
            let destination = y + row * rowLength
            if step == 1 {
                copyFloats(x + source, to: destination, count: rowLength)
            } else {
                for i in 0..<rowLength { destination[i] = x[source + i * step] }
            }
        }
    }

    public func runReference(_ io: KernelIO) {
        let x = io.inputs[0], y = io.outputs[0]
        var written = 0
        for i0 in 0..<counts[0] {
            for i1 in 0..<counts[1] {
                for i2 in 0..<counts[2] {
                    for i3 in 0..<counts[3] {
                        for i4 in 0..<counts[4] {
                            let index = [i0, i1, i2, i3, i4]
                            var source = 0
                            for axis in 0..<Self.maxRank {
                                source += (starts[axis] + index[axis] * steps[axis]) * inputStrides[axis]
                            }
                            y[written] = x[source]
                            written += 1
                        }
                    }
                }
            }
        }
    }
}

/// The output rows of one STRIDED_SLICE invocation, for `ParallelRunner.forEach`.
private struct StridedSliceRows: ParallelWork {
    let kernel: StridedSlice
    let x: UnsafePointer<Float>
    let y: UnsafeMutablePointer<Float>

    func run(_ range: Range<Int>, thread: Int) { kernel.writeRows(range, x: x, y: y) }
}
