import Tensor

/// General convolution (CONV_2D with any kernel size, stride, dilation and
/// padding) as im2col + GEMM:
/// `out[n, oy, ox, o] = clamp(bias[o] + Σ_{ky,kx,i} in[n, iy, ix, i] · w[o, ky, kx, i])`
/// with `iy`, `ix` from `ConvolutionGeometry` and zero outside the input.
///
/// Output pixels (all images, row-major) are cut into tiles of
/// `im2colTileRows(kernelDepth:)` pixels. For each tile, the taps of every
/// pixel are gathered into a row of `K = KH·KW·Cin` floats in the calling
/// thread's slice of `workspace` (zeros for padding taps), and the tile is
/// multiplied with `gemmF32Block`. Each output pixel's value depends only on
/// its own gathered row, so results are bit-identical for every thread count.
///
/// - Parameters:
///   - input: `[batch, inputHeight, inputWidth, inputChannels]`.
///   - output: `[batch, outputHeight, outputWidth, weights.outputChannels]`;
///     must not overlap `input` or `workspace`.
///   - weights: packed from the `[Cout, KH, KW, Cin]` filter as `[Cout, K]`
///     (`weights.inputChannels == KH·KW·inputChannels`).
///   - workspace: at least `im2colWorkspaceSize(weights:threadCount:)` floats
///     for `runner.threadCount`, used as scratch.
///   - clamp: output range, e.g. `FusedActivation.clampRange`.
public func convolutionF32Im2col(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    batch: Int, geometry: ConvolutionGeometry, inputChannels: Int,
    weights: PackedGemmWeights, workspace: UnsafeMutableBufferPointer<Float>,
    clamp: (lower: Float, upper: Float), runner: ParallelRunner
) {
    let g = geometry
    let depth = weights.inputChannels
    precondition(
        g.kernelHeight * g.kernelWidth * inputChannels == depth, "geometry and filter disagree")
    let tileRows = im2colTileRows(kernelDepth: depth)
    let scratchPerThread = tileRows * depth
    precondition(
        workspace.count >= scratchPerThread * runner.threadCount, "workspace too small")
    // Validated tensor sizes: the pixel count is an output element count.
    let pixelsPerImage = g.outputHeight * g.outputWidth
    let pixels = batch * pixelsPerImage
    let tiles = (pixels + tileRows - 1) / tileRows
    let workers = min(
        tiles,
        usefulThreadCount(
            runner.threadCount, multiplyAdds: pixels, depth, weights.outputChannels))
    let scratchBase = workspace.baseAddress!
    runner.forEach(workers) { worker in
        let scratch = scratchBase + worker * scratchPerThread
        for tile in (tiles * worker / workers)..<(tiles * (worker + 1) / workers) {
            let first = tile * tileRows
            let rows = min(tileRows, pixels - first)
            for r in 0..<rows {
                let pixel = first + r
                let n = pixel / pixelsPerImage, inImage = pixel % pixelsPerImage
                im2colGatherF32(
                    image: input + n * g.inputHeight * g.inputWidth * inputChannels,
                    geometry: g, channels: inputChannels,
                    oy: inImage / g.outputWidth, ox: inImage % g.outputWidth,
                    row: scratch + r * depth)
            }
            gemmF32Block(
                a: UnsafePointer(scratch), aStride: depth, rows: rows,
                weights: weights, panels: 0..<weights.columnBlockCount,
                c: output + first * weights.outputChannels, cStride: weights.outputChannels,
                lower: clamp.lower, upper: clamp.upper)
        }
    }
}

/// Floats of scratch `convolutionF32Im2col` needs for `threadCount`
/// threads: one tile of gathered rows per thread.
/// - Throws: `KernelError` when that exceeds `TensorShape.maxElements`.
public func im2colWorkspaceSize(
    weights: PackedGemmWeights, threadCount: Int
) throws(KernelError) -> Int {
    let perThread = im2colTileRows(kernelDepth: weights.inputChannels) * weights.inputChannels
    let (total, overflow) = perThread.multipliedReportingOverflow(by: max(1, threadCount))
    guard !overflow, total <= TensorShape.maxElements else {
        throw KernelError(
            op: "CONV_2D",
            "im2col scratch of \(threadCount) × \(perThread) floats exceeds \(TensorShape.maxElements)")
    }
    return total
}

/// Pixels per im2col tile: about 32 KiB of gathered rows, a multiple of 24
/// so that both the 6-row and the 8-row GEMM microkernels fill their tiles.
func im2colTileRows(kernelDepth: Int) -> Int {
    let budget = 8 * 1024
    return max(24, budget / kernelDepth / 24 * 24)
}

/// Writes the `KH·KW·channels` taps of output pixel `(oy, ox)` to `row`, in
/// `(ky, kx, channel)` order, with zeros for taps outside the input.
/// `image` is one `[H, W, channels]` input image.
@inline(__always)
func im2colGatherF32(
    image: UnsafePointer<Float>, geometry g: ConvolutionGeometry, channels: Int,
    oy: Int, ox: Int, row: UnsafeMutablePointer<Float>
) {
    let rowLength = g.kernelWidth * channels
    let validRows = g.validKernelRows(outputRow: oy)
    let validColumns = g.validKernelColumns(outputColumn: ox)
    let iy0 = oy * g.strideHeight - g.padTop, ix0 = ox * g.strideWidth - g.padLeft
    var out = row
    for ky in 0..<g.kernelHeight {
        guard validRows.contains(ky) else {
            out.update(repeating: 0, count: rowLength)
            out += rowLength
            continue
        }
        let inputRow = image + (iy0 + ky * g.dilationHeight) * g.inputWidth * channels
        if g.dilationWidth == 1 && validColumns.count == g.kernelWidth {
            // The whole filter row is one contiguous run of the input row.
            copyFloats(from: inputRow + ix0 * channels, to: out, count: rowLength)
            out += rowLength
            continue
        }
        for kx in 0..<g.kernelWidth {
            if validColumns.contains(kx) {
                copyFloats(
                    from: inputRow + (ix0 + kx * g.dilationWidth) * channels, to: out, count: channels)
            } else {
                out.update(repeating: 0, count: channels)
            }
            out += channels
        }
    }
}

/// Copies `count` floats, 8 at a time while it can.
@inline(__always)
private func copyFloats(from source: UnsafePointer<Float>, to target: UnsafeMutablePointer<Float>, count: Int) {
    var i = 0
    while i + 8 <= count {
        storeVector8(loadVector8(source + i), target + i)
        i += 8
    }
    while i < count {
        target[i] = source[i]
        i += 1
    }
}
