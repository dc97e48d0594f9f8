import KernelTemplates
import Tensor

/// General convolution (CONV_2D with any kernel size, stride, dilation and
/// padding) on the GEMM microkernels:
/// `out[n, oy, ox, o] = clamp(bias[o] + Σ_{ky,kx,i} in[n, iy, ix, i] · w[o, ky, kx, i])`
/// with `iy`, `ix` from `ConvolutionGeometry` and zero outside the input.
///
/// Each output pixel is one row of a GEMM with `K = KH·KW·Cin`, its taps
/// read as `KH` runs of `KW·Cin` floats (`GemmRows`). Where every tap of a
/// pixel lies inside the input and the filter is not dilated across
/// columns (the interior of most rows), those runs are read in place from
/// the input, with no copy. A row's other pixels (its border, or the whole
/// row where it overlaps the padding) are read in place from zero-padded
/// copies of the input rows they need (`RowBands`, `PaddedBand`) in the
/// calling thread's slice of `workspace`, the border rounded up to whole
/// microkernel tiles, where those bands fit the slice (every row of the
/// models' convolutions does); else they are gathered (im2col) there, with
/// zeros for the padding, in the same run layout: once per row for all its
/// panels where they fit in one tile, else a tile at a time for each group
/// of panels.
/// Output rows are split over threads, and when a layer has too few rows to
/// share evenly (the 7×7 and 1×1 maps at the end of a network), each row's
/// panels too (`convolutionPanelGroups`); a pixel's value never depends on
/// the split, so results are bit-identical for every thread count. With
/// float16 panels, each output row is computed a panel at a time, so that a
/// thread widens each panel once per row (`WidenedPanel`), not once per run
/// of pixels.
///
/// - Parameters:
///   - input: `[batch, inputHeight, inputWidth, inputChannels]`.
///   - output: `[batch, outputHeight, outputWidth, weights.outputChannels]`;
///     must not overlap `input` or `workspace`.
///   - weights: packed from the `[Cout, KH, KW, Cin]` filter as `[Cout, K]`
///     (`weights.inputChannels == KH·KW·inputChannels`).
///   - workspace: at least `convolutionF32WorkspaceSize(weights:threadCount:)`
///     floats for `runner.threadCount`, used as scratch.
///   - clamp: output range, e.g. `FusedActivation.clampRange`.
///   - epilogue: element-wise operations applied to the output after the
///     clamp; `residual` is its ADD's other operand, the output's shape
///     (nil when it has no ADD).
public func convolutionF32(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    batch: Int, geometry: ConvolutionGeometry, inputChannels: Int,
    weights: PackedGemmWeights, workspace: UnsafeMutableBufferPointer<Float>,
    clamp: (lower: Float, upper: Float),
    epilogue: ConvolutionEpilogue = .none, residual: UnsafePointer<Float>? = nil,
    runner: ParallelRunner
) {
    /// The output rows of this call (over all images), each cut into
    /// `panelGroups` groups of panels, for `ParallelRunner.forEach`: item
    /// `i` is group `i mod panelGroups` of row `i / panelGroups`.
    struct Rows: ParallelWork {
        let geometry: ConvolutionGeometry
        let inputChannels: Int
        let weights: PackedGemmWeights
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        /// One tile of gathered pixels per thread, then (float16 panels) one
        /// widened panel per thread.
        let scratch: UnsafeMutablePointer<Float>
        let tilePixels: Int
        let threadCount: Int
        let panelGroups: Int
        let clamp: (lower: Float, upper: Float)
        /// The call's epilogue, alive while the rows run.
        let epilogue: UnsafePointer<EpilogueOperands>?

        func run(_ items: Range<Int>, thread: Int) {
            let g = geometry
            let depth = weights.inputChannels, outputs = weights.outputChannels
            let runLength = g.kernelWidth * inputChannels
            // Validated tensor sizes: these products are element counts of
            // the input and output tensors.
            let imageSize = g.inputHeight * g.inputWidth * inputChannels
            let inputRowSize = g.inputWidth * inputChannels
            let inPlaceRuns = GemmRows(
                rowStride: g.strideWidth * inputChannels, segmentCount: g.kernelHeight,
                segmentLength: runLength, segmentStride: g.dilationHeight * inputRowSize)
            let gatheredRuns = GemmRows(
                rowStride: depth, segmentCount: g.kernelHeight, segmentLength: runLength,
                segmentStride: runLength)
            let interior = g.dilationWidth == 1 ? g.interiorColumns : 0..<0
            let scratch = self.scratch + thread * tilePixels * depth
            let tileRows = weights.microkernels.gemmTileRows
            var widened = WidenedPanel(
                weights: weights, workspace: self.scratch + threadCount * tilePixels * depth, thread: thread)
            let blocks = weights.columnBlockCount
            for item in items {
                let outputRow = item / panelGroups, group = item % panelGroups
                let groupBlocks = (blocks * group / panelGroups)..<(blocks * (group + 1) / panelGroups)
                let n = outputRow / g.outputHeight, oy = outputRow % g.outputHeight
                let image = input + n * imageSize
                let out = output + outputRow * g.outputWidth * outputs
                let validRows = g.validKernelRows(outputRow: oy)
                // The columns read in place, and the border around them that is gathered (the
                // whole row where a filter row falls outside the input).
                let inPlace = validRows.count == g.kernelHeight ? interior : 0..<0
                let left = 0..<(inPlace.isEmpty ? g.outputWidth : inPlace.lowerBound)
                let right = (inPlace.isEmpty ? g.outputWidth : inPlace.upperBound)..<g.outputWidth
                // A row with a border reads it in place from padded bands where they fit the
                // scratch, in whole microkernel tiles; else the border is gathered, once for every
                // panel when it fits in one tile, else again for each group of panels.
                let bands = left.isEmpty && right.isEmpty || g.dilationWidth != 1
                    ? nil
                    : RowBands(geometry: g, channels: inputChannels, inPlace: inPlace, tileRows: tileRows)
                let readsBands = bands.map { $0.floats <= tilePixels * depth } ?? false
                let borderGatheredOnce = !readsBands && left.count + right.count <= tilePixels

                // Gathers the taps of columns `columns` into `tile`, one row of `depth` floats a pixel.
                func gather(_ columns: Range<Int>, into tile: UnsafeMutablePointer<Float>) {
                    for (p, ox) in columns.enumerated() {
                        im2colGatherF32(
                            image: image, geometry: g, channels: inputChannels, oy: oy, ox: ox,
                            validRows: validRows, row: tile + p * depth)
                    }
                }

                // Columns `columns` of this row, panels `panels`, from their gathered taps at `tile`.
                func multiplyGathered(
                    _ tile: UnsafeMutablePointer<Float>, _ columns: Range<Int>, _ panels: Range<Int>
                ) {
                    guard !columns.isEmpty else { return }
                    gemmF32Block(
                        a: UnsafePointer(tile), layout: gatheredRuns, rows: columns.count,
                        weights: weights, panels: panels,
                        c: out + columns.lowerBound * outputs, cStride: outputs,
                        lower: clamp.lower, upper: clamp.upper, epilogue: epilogue, widened: &widened)
                }

                // Columns `columns` of this row, panels `panels`: gathered a tile at a time, then multiplied.
                func gatherAndMultiply(_ columns: Range<Int>, _ panels: Range<Int>) {
                    for first in stride(from: columns.lowerBound, to: columns.upperBound, by: tilePixels) {
                        let tileColumns = first..<min(columns.upperBound, first + tilePixels)
                        gather(tileColumns, into: scratch)
                        multiplyGathered(scratch, tileColumns, panels)
                    }
                }

                var bandsFilled = false
                // The columns of `band`, panels `panels`, read in place from the band at `a`.
                func multiplyBand(_ band: PaddedBand, at a: UnsafeMutablePointer<Float>, _ panels: Range<Int>) {
                    guard !band.columns.isEmpty else { return }
                    gemmF32Block(
                        a: UnsafePointer(a), layout: band.runs, rows: band.columns.count, weights: weights,
                        panels: panels, c: out + band.columns.lowerBound * outputs, cStride: outputs,
                        lower: clamp.lower, upper: clamp.upper, epilogue: epilogue, widened: &widened)
                }

                // The whole row, panels `panels`.
                func multiplyRow(_ panels: Range<Int>) {
                    if readsBands, let bands {
                        if !bands.middle.isEmpty {
                            let iy0 = oy * g.strideHeight - g.padTop
                            let ix0 = bands.middle.lowerBound * g.strideWidth - g.padLeft
                            gemmF32Block(
                                a: image + iy0 * inputRowSize + ix0 * inputChannels, layout: inPlaceRuns,
                                rows: bands.middle.count, weights: weights, panels: panels,
                                c: out + bands.middle.lowerBound * outputs, cStride: outputs,
                                lower: clamp.lower, upper: clamp.upper, epilogue: epilogue, widened: &widened)
                        }
                        // Filled after the middle has brought the input rows into cache, once a row.
                        if !bandsFilled {
                            bands.left.fill(scratch, image: image, outputRow: oy)
                            bands.right.fill(scratch + bands.left.floats, image: image, outputRow: oy)
                            bandsFilled = true
                        }
                        multiplyBand(bands.left, at: scratch, panels)
                        multiplyBand(bands.right, at: scratch + bands.left.floats, panels)
                        return
                    }
                    if !inPlace.isEmpty {
                        let iy0 = oy * g.strideHeight - g.padTop
                        let ix0 = inPlace.lowerBound * g.strideWidth - g.padLeft
                        gemmF32Block(
                            a: image + iy0 * inputRowSize + ix0 * inputChannels, layout: inPlaceRuns,
                            rows: inPlace.count, weights: weights, panels: panels,
                            c: out + inPlace.lowerBound * outputs, cStride: outputs,
                            lower: clamp.lower, upper: clamp.upper, epilogue: epilogue, widened: &widened)
                    }
                    if borderGatheredOnce {
                        multiplyGathered(scratch, left, panels)
                        multiplyGathered(scratch + left.count * depth, right, panels)
                    } else {
                        gatherAndMultiply(left, panels)
                        gatherAndMultiply(right, panels)
                    }
                }

                if borderGatheredOnce {
                    gather(left, into: scratch)
                    gather(right, into: scratch + left.count * depth)
                }
                if widened == nil {
                    multiplyRow(groupBlocks)
                } else {
                    for p in groupBlocks { multiplyRow(p..<p + 1) }
                }
            }
        }
    }
    let g = geometry
    let depth = weights.inputChannels, outputs = weights.outputChannels
    precondition(g.kernelHeight * g.kernelWidth * inputChannels == depth, "geometry and filter disagree")
    let tilePixels = convolutionTilePixels(kernelDepth: depth)
    precondition(
        workspace.count >= (tilePixels * depth + weights.widenedPanelFloats) * runner.threadCount,
        "workspace too small")
    // Validated tensor sizes: the product is the output's pixel count.
    let totalRows = batch * g.outputHeight
    let threads = usefulThreadCount(
        runner.threadCount, multiplyAdds: totalRows * g.outputWidth, depth, outputs)
    let panelGroups = convolutionPanelGroups(
        rows: totalRows, columnBlocks: weights.columnBlockCount, threadCount: threads)
    withUnsafePointer(
        toOptional: epilogue.operands(
            output: output, elementCount: totalRows * g.outputWidth * outputs, residual: residual)
    ) { epilogue in
        runner.limited(to: threads).forEach(
            totalRows * panelGroups,
            Rows(
                geometry: g, inputChannels: inputChannels, weights: weights, input: input, output: output,
                scratch: workspace.baseAddress!, tilePixels: tilePixels, threadCount: runner.threadCount,
                panelGroups: panelGroups, clamp: clamp, epilogue: epilogue))
    }
}

/// Groups of panels (or dot-product columns) each output row is cut into
/// for `threadCount` threads: 1 when there are at least
/// `rowsPerThreadUncut` rows per thread (whole rows then share out evenly
/// enough), else enough groups for that many items per thread, at most one
/// per column block. Cutting costs little: a panel-at-a-time GEMM reads
/// every row of A once per panel anyway, and only border pixels, gathered
/// once per group, are copied again. A 7-row layer at two threads then
/// splits 7 : 7 instead of 4 : 3, and a 1×1 map (pose_landmark_full's
/// heads) runs on every thread instead of one.
func convolutionPanelGroups(rows: Int, columnBlocks: Int, threadCount: Int) -> Int {
    let wanted = threadCount * rowsPerThreadUncut
    guard threadCount > 1, rows < wanted, rows > 0 else { return 1 }
    return min(columnBlocks, (wanted + rows - 1) / rows)
}

/// Rows per thread from which `convolutionF32` splits whole rows only.
let rowsPerThreadUncut = 4

/// Floats of scratch `convolutionF32` needs for `threadCount` threads: one
/// tile of gathered pixels per thread, and for float16 panels one widened
/// panel per thread (`PackedGemmWeights.widenedPanelFloats`).
/// - Throws: `KernelError` when that exceeds `TensorShape.maxElements`.
public func convolutionF32WorkspaceSize(
    weights: PackedGemmWeights, threadCount: Int
) throws(KernelError) -> Int {
    // Both terms are at most a few times the packed weights' float count: no overflow.
    let perThread = convolutionTilePixels(kernelDepth: weights.inputChannels) * weights.inputChannels
        + weights.widenedPanelFloats
    let (total, overflow) = perThread.multipliedReportingOverflow(by: max(1, threadCount))
    guard !overflow, total <= TensorShape.maxElements else {
        throw KernelError(
            op: "CONV_2D",
            "convolution scratch of \(threadCount) × \(perThread) floats exceeds \(TensorShape.maxElements)")
    }
    return total
}

/// Pixels gathered per tile: about 32 KiB, a multiple of 24 so that both
/// the 6-row and the 8-row GEMM microkernels fill their tiles.
func convolutionTilePixels(kernelDepth: Int) -> Int {
    let budget = 8 * 1024
    return max(24, budget / kernelDepth / 24 * 24)
}

/// Writes the `KH·KW·channels` taps of output pixel `(oy, ox)` to `row`,
/// in `(ky, kx, channel)` order, with zeros for taps outside the input.
/// `image` is one `[H, W, channels]` input image; `validRows` is
/// `geometry.validKernelRows(outputRow: oy)`.
@inline(__always)
func im2colGatherF32(
    image: UnsafePointer<Float>, geometry g: ConvolutionGeometry, channels: Int,
    oy: Int, ox: Int, validRows: Range<Int>, row: UnsafeMutablePointer<Float>
) {
    let validColumns = g.validKernelColumns(outputColumn: ox)
    let iy0 = oy * g.strideHeight - g.padTop, ix0 = ox * g.strideWidth - g.padLeft
    let runLength = g.kernelWidth * channels
    for ky in 0..<g.kernelHeight {
        let out = row + ky * runLength
        guard validRows.contains(ky), !validColumns.isEmpty else {
            out.update(repeating: 0, count: runLength)
            continue
        }
        let inputRow = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * channels
        if g.dilationWidth == 1 {
            // The valid taps of an undilated filter row are one run of the input row.
            let lead = validColumns.lowerBound * channels, copied = validColumns.count * channels
            out.update(repeating: 0, count: lead)
            copyShortFloats(from: inputRow + (ix0 + validColumns.lowerBound) * channels, to: out + lead, count: copied)
            (out + lead + copied).update(repeating: 0, count: runLength - lead - copied)
            continue
        }
        for kx in 0..<g.kernelWidth {
            let tap = out + kx * channels
            if validColumns.contains(kx) {
                copyShortFloats(from: inputRow + (ix0 + kx * g.dilationWidth) * channels, to: tap, count: channels)
            } else {
                tap.update(repeating: 0, count: channels)
            }
        }
    }
}
