import KernelTemplates

/// Depthwise convolution with depth multiplier 1 (DEPTHWISE_CONV_2D):
/// `out[n, oy, ox, c] = clamp(bias[c] + Σ_{ky,kx} in[n, iy, ix, c] · w[ky, kx, c])`
/// over the taps inside the input (`ConvolutionGeometry` gives `iy`, `ix`).
///
/// Each output row is cut into a left border, an interior whose pixels use
/// every filter column, and a right border. Interior pixels go through the
/// `depthwiseInterior` microkernel of `weights.instructionSet`'s family
/// (`MicrokernelTable`), compiled for 3×3 and 5×5 filters at stride 1 and
/// 2, or `depthwiseF32Block4x16` for any other filter; border pixels go one
/// at a time through the family's `depthwisePixel` with their own tap window.
/// Rows near the top and bottom simply walk fewer filter rows, so no tap is
/// ever tested against the padding.
///
/// - Parameters:
///   - input: `[batch, inputHeight, inputWidth, C]`.
///   - output: `[batch, outputHeight, outputWidth, C]`; must not overlap `input`.
///   - geometry: its kernel size must match `weights`.
///   - clamp: output range, e.g. `FusedActivation.clampRange`.
///   - runner: output rows are split over threads; results are
///     bit-identical for every thread count.
public func depthwiseConvolutionF32(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
    batch: Int, geometry: ConvolutionGeometry, weights: PackedDepthwiseWeights,
    clamp: (lower: Float, upper: Float), runner: ParallelRunner
) {
    precondition(
        geometry.kernelHeight == weights.kernelHeight && geometry.kernelWidth == weights.kernelWidth,
        "geometry and filter disagree")
    /// The output rows of this call (over all images), for `ParallelRunner.forEach`.
    struct Rows: ParallelWork {
        let geometry: ConvolutionGeometry
        let weights: PackedDepthwiseWeights
        /// `weights.instructionSet.microkernels`, looked up once per call.
        let kernels: MicrokernelTable
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let clamp: (lower: Float, upper: Float)

        func run(_ rows: Range<Int>, thread: Int) {
            let g = geometry, channels = weights.channels
            // Tensor sizes were validated: these products are element counts of
            // the input and output tensors.
            let inputImage = g.inputHeight * g.inputWidth * channels
            let outputRowSize = g.outputWidth * channels
            let interior = g.interiorColumns
            for outputRow in rows {
                let n = outputRow / g.outputHeight, oy = outputRow % g.outputHeight
                let image = input + n * inputImage
                let out = output + outputRow * outputRowSize
                depthwiseF32Row(
                    geometry: g, weights: weights, kernels: kernels, image: image, outputRow: out, oy: oy,
                    interior: interior, lower: clamp.lower, upper: clamp.upper)
            }
        }
    }
    let g = geometry
    // Validated tensor sizes: the product is the output's element count.
    let totalRows = batch * g.outputHeight
    let threads = usefulThreadCount(
        runner.threadCount, multiplyAdds: totalRows, g.outputWidth * weights.channels,
        g.kernelHeight * g.kernelWidth)
    runner.limited(to: threads).forEach(
        totalRows,
        Rows(
            geometry: g, weights: weights, kernels: weights.instructionSet.microkernels, input: input,
            output: output, clamp: clamp))
}

/// One output row `oy` of one image: the interior, then the border pixels,
/// with `kernels`, the microkernels of `weights.instructionSet`.
private func depthwiseF32Row(
    geometry g: ConvolutionGeometry, weights: PackedDepthwiseWeights, kernels: MicrokernelTable,
    image: UnsafePointer<Float>, outputRow: UnsafeMutablePointer<Float>,
    oy: Int, interior: Range<Int>, lower: Float, upper: Float
) {
    let channels = weights.channels, kernelWidth = g.kernelWidth
    let kernelRows = g.validKernelRows(outputRow: oy)
    // With no valid filter row the walk is empty and only the bias is read;
    // anchor the pointers at row 0 so they stay inside their buffers.
    let firstKernelRow = kernelRows.isEmpty ? 0 : kernelRows.lowerBound
    let firstInputRow = kernelRows.isEmpty ? 0 : oy * g.strideHeight - g.padTop
        + firstKernelRow * g.dilationHeight
    let inputRow = image + firstInputRow * g.inputWidth * channels
    var walk = DepthwiseTapWalk(
        kernelRows: kernelRows.count, kernelColumns: kernelWidth,
        inputRowStep: g.dilationHeight * g.inputWidth * channels,
        inputTapStep: g.dilationWidth * channels,
        weightRowStep: g.kernelWidth * weights.channelStride,
        weightTapStep: weights.channelStride)
    let bias = weights.bias

    // Square 3×3 or 5×5, undilated, stride 1 or 2: the specialised interior kernels.
    let square = g.kernelHeight == kernelWidth && (kernelWidth == 3 || kernelWidth == 5)
    let specialised = square && g.strideHeight == g.strideWidth && g.strideWidth <= 2
        && g.dilationHeight == 1 && g.dilationWidth == 1
    if specialised && !interior.isEmpty {
        let row = DepthwiseInteriorRow(
            input: inputRow + (interior.lowerBound * g.strideWidth - g.padLeft) * channels,
            inputRowStep: walk.inputRowStep, kernelRows: walk.kernelRows, pixels: interior.count,
            weights: weights.taps(row: firstKernelRow, column: 0), weightTapStep: walk.weightTapStep,
            bias: bias, output: outputRow + interior.lowerBound * channels, channels: channels,
            lower: lower, upper: upper)
        kernels.depthwiseInterior(kernelWidth, g.strideWidth, row)
    } else {
        var ox = interior.lowerBound
        while ox < interior.upperBound {
            depthwiseF32Block4x16(
                walk: walk,
                input: inputRow + (ox * g.strideWidth - g.padLeft) * channels,
                pixels: min(4, interior.upperBound - ox), inputPixelStep: g.strideWidth * channels,
                weights: weights.taps(row: firstKernelRow, column: 0), bias: bias,
                output: outputRow + ox * channels, channels: channels, lower: lower, upper: upper)
            ox += 4
        }
    }
    /// Channels `chunk` of border pixel `ox`.
    func borderPixel(_ ox: Int, channels chunk: Range<Int>) {
        let kernelColumns = g.validKernelColumns(outputColumn: ox)
        let firstKernelColumn = kernelColumns.isEmpty ? 0 : kernelColumns.lowerBound
        let firstInputColumn = kernelColumns.isEmpty ? 0 : ox * g.strideWidth - g.padLeft
            + firstKernelColumn * g.dilationWidth
        walk.kernelColumns = kernelColumns.count
        let input = inputRow + firstInputColumn * channels + chunk.lowerBound
        let taps = weights.taps(row: firstKernelRow, column: firstKernelColumn) + chunk.lowerBound
        let output = outputRow + ox * channels + chunk.lowerBound
        kernels.depthwisePixel(
            walk, input, taps, bias + chunk.lowerBound, output, chunk.count, lower, upper)
    }
    // The border pixels of the row a chunk of channels at a time, so that the chunk's weights
    // stay in L1 from one pixel to the next (a 5 × 5 filter of 1152 channels is 115 KB).
    var chunkStart = 0
    while chunkStart < channels {
        let chunk = chunkStart..<(channels - chunkStart < 2 * borderChannelChunk ? channels : chunkStart + borderChannelChunk)
        for ox in 0..<interior.lowerBound { borderPixel(ox, channels: chunk) }
        for ox in interior.upperBound..<g.outputWidth { borderPixel(ox, channels: chunk) }
        chunkStart = chunk.upperBound
    }
}

/// Channels a border pixel's kernel takes at a time (`depthwiseF32Row`): a multiple of every
/// family's vector widths, whose 5 × 5 taps of weights (12.5 KiB) and of input fit in L1.
private let borderChannelChunk = 128
