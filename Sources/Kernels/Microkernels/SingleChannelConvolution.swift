import KernelTemplates
import Tensor

/// A convolution with one output channel (pose_landmark_full's segmentation
/// head: 3×3 over 8 channels into 1, 256×256 pixels) computed with output
/// pixels across the vector lanes:
/// `out[n, oy, ox] = clamp(bias + Σ_{ky,kx,i} in[n, iy, ix, i] · w[ky, kx, i])`
/// with `iy`, `ix` from `ConvolutionGeometry`, zero outside the input.
///
/// `convolutionF32` gives such a layer's outputs as dot products
/// (`gemmF32DotMicrokernel8x1`): eight pixels' taps transposed so that a
/// vector holds one tap of eight pixels, then one chain of dependent
/// multiply-adds, at about a tenth of the FMA peak (AVX2 family, a Zen 3).
/// Here each input row a thread needs is transposed once into channel planes
/// (`[Cin][columns]`, zeros in the padding), kept while the filter's rows
/// slide over it, and a tap of eight consecutive output pixels is then one
/// unaligned load; four groups of eight pixels take each tap in turn, four
/// independent chains.
/// Every output is the same operations in the same order as there: the
/// bias, then one fused multiply-add per tap in `(ky, kx, i)` order, the
/// padding's taps included as `0 · w`, then the clamp. So the outputs are
/// `convolutionF32`'s bits, for any thread count.
///
/// For filters not dilated, at horizontal stride 1 and with at most
/// `singleChannelMaximumKernelHeight` rows (`singleChannelConvolutionApplies`).
///
/// - Parameters:
///   - input: `[batch, inputHeight, inputWidth, inputChannels]`.
///   - output: `[batch, outputHeight, outputWidth, 1]`; must not overlap
///     `input` or `workspace`.
///   - weights: packed from the `[1, KH, KW, Cin]` filter (the dot-product
///     layout of one output channel).
///   - workspace: at least `singleChannelConvolutionWorkspaceSize` floats
///     for `runner.threadCount`.
///   - clamp: output range, e.g. `FusedActivation.clampRange`.
func singleChannelConvolutionF32(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    batch: Int, geometry g: ConvolutionGeometry, inputChannels: Int,
    weights: PackedGemmWeights, workspace: UnsafeMutableBufferPointer<Float>,
    clamp: (lower: Float, upper: Float), runner: ParallelRunner
) {
    precondition(
        singleChannelConvolutionApplies(geometry: g, inputChannels: inputChannels, weights: weights),
        "not a convolution singleChannelConvolutionF32 runs")
    let planes = ChannelPlanes(geometry: g, inputChannels: inputChannels)
    precondition(
        workspace.count >= planes.threadFloats * runner.threadCount,
        "the workspace is smaller than singleChannelConvolutionWorkspaceSize asked for")
    let totalRows = batch * g.outputHeight
    let threads = usefulThreadCount(
        runner.threadCount, multiplyAdds: totalRows * g.outputWidth, weights.inputChannels, 1)
    runner.limited(to: threads).forEach(
        totalRows,
        SingleChannelRows(
            geometry: g, planes: planes, input: input, output: output,
            weights: UnsafePointer(weights.storage.baseAddress), bias: weights.bias[0],
            workspace: workspace.baseAddress!, outputRange: clamp))
}

/// The most filter rows `singleChannelConvolutionF32` takes (each thread
/// keeps one transposed input row per filter row).
let singleChannelMaximumKernelHeight = 16

/// Whether `singleChannelConvolutionF32` computes a convolution of `geometry`
/// over `inputChannels` channels with `weights`: one output channel, a
/// filter not dilated, horizontal stride 1, at most
/// `singleChannelMaximumKernelHeight` filter rows.
func singleChannelConvolutionApplies(
    geometry g: ConvolutionGeometry, inputChannels: Int, weights: PackedGemmWeights
) -> Bool {
    weights.outputChannels == 1 && weights.usesDotProducts
        && weights.inputChannels == g.kernelHeight * g.kernelWidth * inputChannels
        && g.strideWidth == 1 && g.dilationWidth == 1 && g.dilationHeight == 1
        && g.kernelHeight <= singleChannelMaximumKernelHeight
}

/// Floats of scratch `singleChannelConvolutionF32` needs for `threadCount`
/// threads: per thread, one transposed input row per filter row and one of
/// zeros.
/// - Throws: `KernelError` when that exceeds `TensorShape.maxElements`.
func singleChannelConvolutionWorkspaceSize(
    geometry: ConvolutionGeometry, inputChannels: Int, threadCount: Int
) throws(KernelError) -> Int {
    let perThread = ChannelPlanes(geometry: geometry, inputChannels: inputChannels).threadFloats
    let (total, overflow) = perThread.multipliedReportingOverflow(by: max(1, threadCount))
    guard !overflow, total <= TensorShape.maxElements else {
        throw KernelError(
            op: "CONV_2D", "single-channel convolution scratch of \(threadCount) × \(perThread) floats "
                + "exceeds \(TensorShape.maxElements)")
    }
    return total
}

/// How one thread's scratch holds transposed input rows: a row is `Cin`
/// planes of `length` floats, plane `i` holding channel `i` of input column
/// `c − padLeft` at index `c` (zero where that column is outside the
/// input), so that tap `kx` of output column `ox` is at index `ox + kx`.
/// `length` covers the last output column's last tap and the seven lanes a
/// vector of pixels may read past it. The thread's scratch is
/// `kernelHeight` such rows, a ring by input row, then a row of zeros for
/// the filter rows outside the input.
private struct ChannelPlanes {
    let inputChannels: Int
    /// Floats per plane, a multiple of 8.
    let length: Int
    let kernelHeight: Int

    init(geometry g: ConvolutionGeometry, inputChannels: Int) {
        self.inputChannels = inputChannels
        // Sizes are validated: these sums stay far below Int.max.
        length = (g.outputWidth + g.kernelWidth - 1 + 7 + 7) / 8 * 8
        kernelHeight = g.kernelHeight
    }

    /// Floats of one transposed row.
    var rowFloats: Int { inputChannels * length }
    /// Floats of one thread's scratch: the ring and the row of zeros.
    var threadFloats: Int {
        let (rows, overflow) = (kernelHeight + 1).multipliedReportingOverflow(by: rowFloats)
        return overflow ? Int.max : rows
    }
}

/// Output rows `items` (over all images) of `singleChannelConvolutionF32`.
private struct SingleChannelRows: ParallelWork {
    let geometry: ConvolutionGeometry
    let planes: ChannelPlanes
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    /// The filter, `[KH·KW·Cin]` in `(ky, kx, i)` order.
    let weights: UnsafePointer<Float>
    let bias: Float
    let workspace: UnsafeMutablePointer<Float>
    /// The clamp's bounds.
    let outputRange: (lower: Float, upper: Float)

    func run(_ items: Range<Int>, thread: Int) {
        let g = geometry, rowFloats = planes.rowFloats
        let scratch = workspace + thread * planes.threadFloats
        // Zeroed when a filter row first falls outside the input: chunks of interior rows
        // never need it.
        let zeroRow = scratch + g.kernelHeight * rowFloats
        var zeroRowReady = false
        // Ring slot `s` holds the transposed input row `held[s]` (image · H + row), -1 for none.
        // At most 16 slots and 16 row pointers: 256 bytes, which a temporary allocation
        // always keeps on the stack.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: singleChannelMaximumKernelHeight) { held in
            held.initialize(repeating: -1)
            withUnsafeTemporaryAllocation(
                of: UnsafePointer<Float>.self, capacity: singleChannelMaximumKernelHeight
            ) { rowPointers in
                let rows = rowPointers.baseAddress!
                for outputRow in items {
                    let n = outputRow / g.outputHeight, oy = outputRow % g.outputHeight
                    for ky in 0..<g.kernelHeight {
                        let iy = oy * g.strideHeight - g.padTop + ky
                        guard iy >= 0 && iy < g.inputHeight else {
                            if !zeroRowReady {
                                zeroRow.update(repeating: 0, count: rowFloats)
                                zeroRowReady = true
                            }
                            rows[ky] = UnsafePointer(zeroRow)
                            continue
                        }
                        // Rows iy of one output row are consecutive, so distinct modulo KH.
                        let key = n * g.inputHeight + iy, slot = key % g.kernelHeight
                        let row = scratch + slot * rowFloats
                        if held[slot] != key {
                            transposeRow(
                                input + key * g.inputWidth * planes.inputChannels, into: row)
                            held[slot] = key
                        }
                        rows[ky] = UnsafePointer(row)
                    }
                    multiplyRow(rows, output: output + outputRow * g.outputWidth)
                }
            }
        }
    }

    /// Input row `source` (`[W][Cin]`) as `Cin` planes at `row` (`ChannelPlanes`).
    private func transposeRow(_ source: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        let g = geometry, channels = planes.inputChannels, length = planes.length
        let width = g.inputWidth, left = g.padLeft
        // Columns of the planes that hold input columns: `left ..< left + width`, cut to the plane.
        let first = min(left, length), end = min(left + width, length)
        for channel in 0..<channels {
            let plane = row + channel * length
            plane.update(repeating: 0, count: first)
            (plane + end).update(repeating: 0, count: length - end)
        }
        let columns = end - first
        guard columns > 0 else { return }
        var column = 0
        if channels % 8 == 0 {
            // Eight columns of eight channels at a time, transposed.
            while column + 8 <= columns {
                let pixels = source + column * channels
                var channel = 0
                while channel < channels {
                    transposeSquare8x8(
                        pixels + channel, sourceStride: channels,
                        into: row + channel * length + first + column, targetStride: length)
                    channel += 8
                }
                column += 8
            }
        }
        while column < columns {
            let pixel = source + column * channels
            for channel in 0..<channels { row[channel * length + first + column] = pixel[channel] }
            column += 1
        }
    }

    /// One output row from the transposed input rows `rows[ky]`.
    private func multiplyRow(_ rows: UnsafePointer<UnsafePointer<Float>>, output: UnsafeMutablePointer<Float>) {
        let g = geometry
        let low = SIMD8<Float>(repeating: outputRange.lower), high = SIMD8<Float>(repeating: outputRange.upper)
        var column = 0
        // Four groups of eight pixels, each its own chain of multiply-adds, tap by tap.
        while column + 32 <= g.outputWidth {
            var sums0 = SIMD8<Float>(repeating: bias), sums1 = sums0, sums2 = sums0, sums3 = sums0
            forEachTap(rows, column: column) { pixels, weight in
                sums0 = multiplyAdd(loadVector8(pixels), weight, sums0)
                sums1 = multiplyAdd(loadVector8(pixels + 8), weight, sums1)
                sums2 = multiplyAdd(loadVector8(pixels + 16), weight, sums2)
                sums3 = multiplyAdd(loadVector8(pixels + 24), weight, sums3)
            }
            storeVector8(clamp(sums0, lower: low, upper: high), output + column)
            storeVector8(clamp(sums1, lower: low, upper: high), output + column + 8)
            storeVector8(clamp(sums2, lower: low, upper: high), output + column + 16)
            storeVector8(clamp(sums3, lower: low, upper: high), output + column + 24)
            column += 32
        }
        // The rest eight pixels at a time, the last group's lanes past the row dropped.
        while column < g.outputWidth {
            var sums = SIMD8<Float>(repeating: bias)
            forEachTap(rows, column: column) { pixels, weight in
                sums = multiplyAdd(loadVector8(pixels), weight, sums)
            }
            storeVector8(clamp(sums, lower: low, upper: high), output + column, count: min(8, g.outputWidth - column))
            column += 8
        }
    }

    /// Calls `body` for every tap in `(ky, kx, i)` order with where that tap of output
    /// column `column` and the pixels after it lies in the transposed rows `rows[ky]`, and
    /// the tap's weight in every lane.
    @inline(__always)
    private func forEachTap(
        _ rows: UnsafePointer<UnsafePointer<Float>>, column: Int,
        _ body: (_ pixels: UnsafePointer<Float>, _ weight: SIMD8<Float>) -> Void
    ) {
        let g = geometry, channels = planes.inputChannels, length = planes.length
        var w = weights
        for ky in 0..<g.kernelHeight {
            let row = rows[ky] + column
            for kx in 0..<g.kernelWidth {
                var plane = row + kx
                for _ in 0..<channels {
                    body(plane, SIMD8<Float>(repeating: w.pointee))
                    plane += length
                    w += 1
                }
            }
        }
    }
}
