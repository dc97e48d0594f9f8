import FlatBufferReader
import KernelTemplates
import Tensor

/// PAD: surrounds the input with zeros.
///
/// Inputs, in order: `input` (float32, rank ≤ 5) and `paddings`, a constant
/// int32 tensor of shape `[rank, 2]` whose row `d` is (before, after): the
/// number of zeros added in front of and behind dimension `d`, both ≥ 0.
/// Output: `[d0 + before0 + after0, d1 + before1 + after1, ...]`; e.g. an
/// `[N, H, W, C]` input with rows `(0,0), (1,1), (2,2), (0,0)` becomes
/// `[N, H + 2, W + 4, C]`. The options table (`PadOptions`) is empty.
public struct Pad: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.pad
    public static let optionsType = BuiltinOptionsType.pad

    /// The most dimensions TFLite's PAD accepts.
    public static let maxRank = 5

    public let opName = "PAD"
    public let outputShapes: [TensorShape]
    /// Input sizes, left-padded with 1 to `maxRank` entries.
    let inputSizes: [Int]
    /// Leading padding per dimension, left-padded with 0 to `maxRank` entries.
    let padBefore: [Int]
    /// Row-major element strides of the output, left-padded to `maxRank` entries.
    let outputStrides: [Int]
    /// For `run`: the input sizes after merging every dimension into the one
    /// before it when that one is not padded (so each row below is as long
    /// as possible), left-padded with 1 to `maxRank` entries. Each
    /// merged dimension keeps its own padding scaled by the later sizes.
    let mergedInputSizes: [Int]
    /// Leading padding per merged dimension.
    let mergedBefore: [Int]
    /// Padded size per merged dimension.
    let mergedOutputSizes: [Int]

    /// The rows and columns this PAD adds to an `[N, H, W, C]` tensor, when
    /// it pads only those two dimensions; nil otherwise.
    var spatialPadding: (top: Int, bottom: Int, left: Int, right: Int)? {
        let rank = outputShapes[0].rank
        guard rank == 4 else { return nil }
        let first = Self.maxRank - rank  // the entries of the 4 dimensions
        let output = outputShapes[0].dimensions
        // Each difference is a padding of a validated shape: no overflow.
        let after = (0..<rank).map { output[$0] - inputSizes[first + $0] - padBefore[first + $0] }
        guard padBefore[first] == 0, after[0] == 0, padBefore[first + 3] == 0, after[3] == 0 else { return nil }
        return (padBefore[first + 1], after[1], padBefore[first + 2], after[2])
    }

    /// Validates the input rank and the constant, non-negative paddings.
    public static func prepare(inputs: [Operand], options: NoOptions = NoOptions()) throws -> Pad {
        guard inputs.count == 2 else {
            throw KernelError(op: "PAD", "expects 2 inputs (input, paddings), got \(inputs.count)")
        }
        let input = inputs[0].shape, paddings = inputs[1]
        guard input.rank <= maxRank else {
            throw KernelError(op: "PAD", "input \(input) has rank \(input.rank); at most \(maxRank) is supported")
        }
        guard paddings.shape.dimensions == [input.rank, 2] else {
            throw KernelError(
                op: "PAD",
                "paddings must have shape [\(input.rank), 2] for input \(input), got \(paddings.shape)")
        }
        guard let constant = paddings.constant else {
            throw KernelError(op: "PAD", "paddings must be a constant tensor; a computed paddings tensor is not supported")
        }
        guard let values = constant.int32Values else {
            throw KernelError(op: "PAD", "paddings must be int32")
        }
        guard values.count == paddings.shape.elementCount else {
            throw KernelError(
                op: "PAD", "paddings hold \(values.count) values but their shape \(paddings.shape) needs \(paddings.shape.elementCount)")
        }

        var outputDims: [Int] = []
        var before: [Int] = []
        for axis in 0..<input.rank {
            let lead = Int(values[2 * axis]), trail = Int(values[2 * axis + 1])
            guard lead >= 0, trail >= 0 else {
                throw KernelError(
                    op: "PAD", "padding (\(lead), \(trail)) of dimension \(axis) is negative; paddings must be ≥ 0")
            }
            // Checked: next to a zero-sized dimension an input size is unbounded.
            let (padded, overflow) = input[axis].addingReportingOverflow(lead + trail)
            guard !overflow else {
                throw KernelError(op: "PAD", "padded size of dimension \(axis) of \(input) overflows")
            }
            outputDims.append(padded)
            before.append(lead)
        }
        let output: TensorShape
        do {
            output = try TensorShape(outputDims)
        } catch {
            throw KernelError(op: "PAD", "padded shape of \(input) is invalid: \(error)")
        }

        let unused = maxRank - input.rank
        var strides = [Int](repeating: 0, count: maxRank)
        var stride = 1
        for axis in (0..<maxRank).reversed() {
            strides[axis] = stride
            // Checked: a shape with a zero dimension passes TensorShape
            // whatever its other sizes.
            let (next, overflow) = stride.multipliedReportingOverflow(
                by: axis < unused ? 1 : outputDims[axis - unused])
            guard !overflow else {
                throw KernelError(op: "PAD", "sizes of the padded shape \(output) overflow")
            }
            stride = next
        }
        // Merge from the innermost dimension outwards: while the block built
        // so far is unpadded, the dimension before it joins it. With an empty
        // input the sizes may be unbounded, but `run` then only zero-fills.
        var blocks: [(size: Int, before: Int, outputSize: Int)] = []
        if input.elementCount > 0 {
            var current = (size: 1, before: 0, outputSize: 1)
            for axis in (0..<input.rank).reversed() {
                let lead = Int(values[2 * axis])
                if current.before == 0, current.outputSize == current.size {
                    // Cannot overflow: the products are at most the padded
                    // shape's element count.
                    current = (
                        input[axis] * current.size, lead * current.size, outputDims[axis] * current.size)
                } else {
                    blocks.append(current)
                    current = (input[axis], lead, outputDims[axis])
                }
            }
            blocks.append(current)
        }
        let merged = Array(blocks.reversed())
        let mergedPadding = [(size: Int, before: Int, outputSize: Int)](
            repeating: (1, 0, 1), count: max(0, maxRank - merged.count)) + merged
        return Pad(
            outputShapes: [output],
            inputSizes: [Int](repeating: 1, count: unused) + input.dimensions,
            padBefore: [Int](repeating: 0, count: unused) + before,
            outputStrides: strides,
            mergedInputSizes: mergedPadding.map(\.size),
            mergedBefore: mergedPadding.map(\.before),
            mergedOutputSizes: mergedPadding.map(\.outputSize))
    }

    /// Writes each output row (the last merged dimension) once: zeros for a
    /// row in the padding, otherwise leading zeros, one copy of the input
    /// row and trailing zeros. Rows are split over `runner` in memory-bound
    /// tasks. Bit-identical to `runReference`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let total = outputShapes[0].elementCount
        guard !inputSizes.contains(0) else {
            runner.forEach(
                total, minimumPerChunk: memoryBoundTaskGrain, ZeroFloatsWork(destination: io.outputs[0]))
            return
        }
        let rowLength = mergedOutputSizes[4]
        runner.forEach(
            total / rowLength, minimumPerChunk: minimumRowsPerTask(rowLength: rowLength),
            PadRows(pad: self, x: io.inputs[0], y: io.outputs[0]))
    }

    /// Writes output rows `rows` of `run`. The first row's output coordinates along the four
    /// merged outer dimensions come from dividing its index; each next row's from counting on
    /// (no division per row).
    fileprivate func writeRows(_ rows: Range<Int>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        guard !rows.isEmpty else { return }
        let n = mergedInputSizes, before = mergedBefore, padded = mergedOutputSizes
        let rowLength = padded[4], copied = n[4], lead = before[4], trail = rowLength - lead - copied
        if (0..<4).allSatisfy({ before[$0] == 0 && n[$0] == padded[$0] }) {
            // Only the rows themselves are padded (a PAD of channels): output row `row` holds
            // input row `row`, with no coordinates to follow and no call for a run of no zeros.
            if lead == 0 && copied >= 8 && trail > 0 && rowLength <= 128 {
                writeChannelTails(rows, x: x, y: y, copied: copied, rowLength: rowLength)
                return
            }
            for row in rows {
                let destination = y + row * rowLength
                if lead > 0 { zeroFloats(destination, count: lead) }
                copyFloats(x + row * copied, to: destination + lead, count: copied)
                if trail > 0 { zeroFloats(destination + lead + copied, count: trail) }
            }
            return
        }
        // Input elements between consecutive indices of each outer merged dimension.
        let inputStrides = SIMD4(n[1] * n[2] * n[3] * n[4], n[2] * n[3] * n[4], n[3] * n[4], n[4])
        var coordinates = SIMD4<Int>()
        var rest = rows.lowerBound
        for axis in stride(from: 3, through: 0, by: -1) {
            coordinates[axis] = rest % padded[axis]
            rest /= padded[axis]
        }
        for row in rows {
            let destination = y + row * rowLength
            // The input row the output row reads, if its coordinates are all inside the input.
            var inside = true
            for axis in 0..<4 where coordinates[axis] < before[axis] || coordinates[axis] - before[axis] >= n[axis] {
                inside = false
            }
            if inside {
                var source = 0
                for axis in 0..<4 { source += (coordinates[axis] - before[axis]) * inputStrides[axis] }
                zeroFloats(destination, count: lead)
                copyFloats(x + source, to: destination + lead, count: copied)
                zeroFloats(destination + lead + copied, count: trail)
            } else {
                zeroFloats(destination, count: rowLength)
            }
            // The next row's coordinates.
            var axis = 3
            coordinates[axis] += 1
            while axis > 0 && coordinates[axis] == padded[axis] {
                coordinates[axis] = 0
                axis -= 1
                coordinates[axis] += 1
            }
        }
    }

    /// `writeRows` for rows of at most 128 floats padded at their end only (the face detectors',
    /// palm detectors', face_landmark's and hand_recrop's channel PADs: a pixel's 8–128 channels
    /// and a few zeros), in eight-lane stores rather than a `memset` and a `memmove` call a pixel,
    /// each row written front to back: the copied floats, the last vector reaching back over
    /// those already copied, then the zeros, in whole vectors, the last one reaching back over
    /// zeros only, or, fewer than 8 of them, in stores of 4, 2 and 1 lanes. So every store stays
    /// inside the row and no zero is stored where the copy then lands: writing the zeros first,
    /// the last vector over copied floats, took up to 1.9× as long for face_detection_short_range's
    /// PADs of 4 and 6 channels on 64 × 64 and 32 × 32 maps on a Xeon (AVX-512),
    /// `Benchmarks/JOURNAL.md`, "Channel PADs front to back".
    private func writeChannelTails(
        _ rows: Range<Int>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>, copied: Int, rowLength: Int
    ) {
        let zero = SIMD8<Float>(repeating: 0)
        let lastCopy = copied - 8, lastZeros = rowLength - 8
        var source = x + rows.lowerBound * copied, destination = y + rows.lowerBound * rowLength
        @inline(__always) func copyRow() {
            var c = 0
            while c < lastCopy {
                storeVector8(loadVector8(source + c), destination + c)
                c += 8
            }
            storeVector8(loadVector8(source + lastCopy), destination + lastCopy)
        }
        // Chosen once for all the rows: a row of two or three stores has no room for tests.
        if lastZeros >= copied {
            for _ in rows {
                copyRow()
                var c = copied
                while c < lastZeros {
                    storeVector8(zero, destination + c)
                    c += 8
                }
                storeVector8(zero, destination + lastZeros)
                source += copied
                destination += rowLength
            }
        } else {
            let zeros = rowLength - copied
            for _ in rows {
                copyRow()
                storeVector8Lanes(zero, destination + copied, count: zeros)
                source += copied
                destination += rowLength
            }
        }
    }

    public func runReference(_ io: KernelIO) {
        // x: input [d0, d1, d2, d3, d4] (left-padded with 1s); y: padded output.
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<outputShapes[0].elementCount { y[i] = 0 }
        // Nothing to copy; also keeps a zero-sized dimension from leaving the
        // loops over the other (unbounded) sizes spinning.
        guard !inputSizes.contains(0) else { return }
        let n = inputSizes, before = padBefore, s = outputStrides
        var source = 0
        for i0 in 0..<n[0] {
            for i1 in 0..<n[1] {
                for i2 in 0..<n[2] {
                    for i3 in 0..<n[3] {
                        let rowStart = (i0 + before[0]) * s[0] + (i1 + before[1]) * s[1]
                            + (i2 + before[2]) * s[2] + (i3 + before[3]) * s[3] + before[4]
                        for i4 in 0..<n[4] {
                            y[rowStart + i4] = x[source]
                            source += 1
                        }
                    }
                }
            }
        }
    }
}

/// The output rows of one PAD invocation, for `ParallelRunner.forEach`.
private struct PadRows: ParallelWork {
    let pad: Pad
    let x: UnsafePointer<Float>
    let y: UnsafeMutablePointer<Float>

    func run(_ rows: Range<Int>, thread: Int) { pad.writeRows(rows, x: x, y: y) }
}
