import KernelTemplates

/// Depthwise convolution with depth multiplier 1 (DEPTHWISE_CONV_2D):
/// `out[n, oy, ox, c] = clamp(bias[c] + Σ_{ky,kx} in[n, iy, ix, c] · w[ky, kx, c])`
/// over the taps inside the input (`ConvolutionGeometry` gives `iy`, `ix`).
///
/// For 3×3 and 5×5 filters at stride 1 and 2, undilated, with at least 8
/// channels, each image's output rows are cut into three regions (the rows
/// whose top filter rows lie in the padding, the rows whose every filter row
/// lands inside the input, the rows whose bottom filter rows lie in the
/// padding), and each region the band kernels take (the interior, and the
/// 2-row edges of a 5×5 filter's same padding at stride 1) into bands of 2 to
/// 4 rows that go through the `depthwiseBand` microkernel of
/// `weights.instructionSet`'s family (`MicrokernelTable`): column by column,
/// each column's pixels of the band over their valid filter columns and rows.
/// Every other row (alone in its region, in a region with other padding, or
/// of any other filter) is cut into a left border, an interior
/// whose pixels use every filter column, and a right border. Interior pixels
/// go through the family's `depthwiseInterior` microkernel (those filters) or
/// `depthwiseF32Block4x16` (any other filter); border pixels go one at a time
/// through the family's `depthwisePixel` with their own tap window. Rows near
/// the top and bottom simply walk fewer filter rows, so no tap is ever tested
/// against the padding. Which kernel computes a row never changes its sums.
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
    /// The output rows of this call (over all images) in units of one row or one band, for
    /// `ParallelRunner.forEach`.
    struct Rows: ParallelWork {
        let geometry: ConvolutionGeometry
        let weights: PackedDepthwiseWeights
        /// `weights.instructionSet.microkernels`, looked up once per call.
        let kernels: MicrokernelTable
        let units: DepthwiseRowUnits
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let clamp: (lower: Float, upper: Float)

        func run(_ items: Range<Int>, thread: Int) {
            let g = geometry, channels = weights.channels
            // Tensor sizes were validated: these products are element counts of
            // the input and output tensors.
            let inputImage = g.inputHeight * g.inputWidth * channels
            let outputImage = g.outputHeight * g.outputWidth * channels
            let outputRowSize = g.outputWidth * channels
            let interior = g.interiorColumns
            for item in items {
                let n = item / units.perImage
                let (oy, rows) = units.rows(ofUnit: item % units.perImage)
                let image = input + n * inputImage
                let out = output + n * outputImage + oy * outputRowSize
                if rows > 1 {
                    depthwiseF32Band(
                        geometry: g, weights: weights, kernels: kernels, image: image, output: out, oy: oy,
                        rows: rows, lower: clamp.lower, upper: clamp.upper)
                } else {
                    depthwiseF32Row(
                        geometry: g, weights: weights, kernels: kernels, image: image, outputRow: out, oy: oy,
                        interior: interior, lower: clamp.lower, upper: clamp.upper)
                }
            }
        }
    }
    let g = geometry
    // The band kernels take the filters they are compiled for and channels enough for their vectors.
    let takesBands = g.kernelHeight == g.kernelWidth && (g.kernelWidth == 3 || g.kernelWidth == 5)
        && g.strideHeight == g.strideWidth && g.strideWidth <= 2
        && g.dilationHeight == 1 && g.dilationWidth == 1
        && weights.channels >= depthwiseBandMinimumChannels
    let units = DepthwiseRowUnits(
        outputHeight: g.outputHeight, interiorRows: g.interiorRows,
        bands: { rows in takesBands && bandKernelsTake(rows, geometry: g) })
    // Validated tensor sizes: the products are the output's element count and at most its rows.
    let totalRows = batch * g.outputHeight
    let threads = usefulThreadCount(
        runner.threadCount, multiplyAdds: totalRows, g.outputWidth * weights.channels,
        g.kernelHeight * g.kernelWidth)
    runner.limited(to: threads).forEach(
        batch * units.perImage,
        Rows(
            geometry: g, weights: weights, kernels: weights.instructionSet.microkernels, units: units,
            input: input, output: output, clamp: clamp))
}

/// Whether the band kernels take every band of the region `rows` (its bands of 4 rows from its
/// first, the last one 1...4): each with no more padding than they take
/// (`depthwiseBandTakesEdge`).
private func bandKernelsTake(_ rows: Range<Int>, geometry g: ConvolutionGeometry) -> Bool {
    var first = rows.lowerBound
    while first < rows.upperBound {
        let count = min(4, rows.upperBound - first)
        let (above, below) = g.paddingRows(ofBandFrom: first, rows: count)
        if count > 1 && !depthwiseBandTakesEdge(above: above, below: below) { return false }
        first += count
    }
    return true
}

extension ConvolutionGeometry {
    /// The input rows of padding above and below the band of output rows `first ..< first +
    /// rows` (undilated): of the rows its filter rows cover, those before input row 0 and those
    /// past the last.
    func paddingRows(ofBandFrom first: Int, rows: Int) -> (above: Int, below: Int) {
        let top = first * strideHeight - padTop
        let spanned = (rows - 1) * strideHeight + kernelHeight
        return (min(spanned, max(0, -top)), min(spanned, max(0, top + spanned - inputHeight)))
    }
}

/// How `depthwiseConvolutionF32` cuts each image's output rows into work items (units). The
/// rows fall into three regions: those above the interior rows (whose top filter rows lie in
/// the padding), the interior rows (every filter row inside the input), those below (bottom
/// filter rows in the padding). A region the band kernels take is cut into bands of 4 rows,
/// the last one 1...4 rows (a single row where 1); in any other region every row is a unit
/// of its own. Threads split whole units, so a band is never cut.
struct DepthwiseRowUnits {
    /// The first row of each region and the end of the last (each region possibly empty).
    private let bounds: (Int, Int, Int, Int)
    /// Rows per band in each region: 4, or 1 where the band kernels do not take it.
    private let bandRows: (Int, Int, Int)
    /// Units in the first region, and in the first two.
    private let unitsBefore: (Int, Int)
    let perImage: Int

    /// `interiorRows` is `ConvolutionGeometry.interiorRows` (empty where no row has every filter
    /// row inside the input); `bands` says whether the band kernels take a region's rows.
    init(outputHeight: Int, interiorRows: Range<Int>, bands: (Range<Int>) -> Bool) {
        let top = min(interiorRows.lowerBound, outputHeight)
        let bottom = min(max(top, interiorRows.upperBound), outputHeight)
        bounds = (0, top, bottom, outputHeight)
        let perBand = (bands(0..<top) ? 4 : 1, bands(top..<bottom) ? 4 : 1, bands(bottom..<outputHeight) ? 4 : 1)
        bandRows = perBand
        let first = (top + perBand.0 - 1) / perBand.0, second = (bottom - top + perBand.1 - 1) / perBand.1
        unitsBefore = (first, first + second)
        perImage = first + second + (outputHeight - bottom + perBand.2 - 1) / perBand.2
    }

    /// The first output row and the rows (1...4) of an image's unit `unit` (`0..<perImage`).
    func rows(ofUnit unit: Int) -> (first: Int, count: Int) {
        let (regionStart, regionEnd, firstUnit, perBand) =
            unit < unitsBefore.0 ? (bounds.0, bounds.1, 0, bandRows.0)
            : unit < unitsBefore.1 ? (bounds.1, bounds.2, unitsBefore.0, bandRows.1)
            : (bounds.2, bounds.3, unitsBefore.1, bandRows.2)
        let first = regionStart + (unit - firstUnit) * perBand
        return (first, min(perBand, regionEnd - first))
    }
}

/// Output rows `oy ..< oy + rows` (2...4) of one image with `kernels`' band kernel for the
/// weights' square 3×3 or 5×5 filter, each over its filter rows inside the input.
private func depthwiseF32Band(
    geometry g: ConvolutionGeometry, weights: PackedDepthwiseWeights, kernels: MicrokernelTable,
    image: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, oy: Int, rows: Int,
    lower: Float, upper: Float
) {
    let channels = weights.channels
    // The band's input rows from the one under its first row's top filter row, and those of
    // them inside the input (`bandKernelsTake` chose bands with none or 2 outside).
    let (above, below) = g.paddingRows(ofBandFrom: oy, rows: rows)
    let validRows = above..<((rows - 1) * g.strideHeight + g.kernelHeight - below)
    let band = DepthwiseBand(
        validRows: validRows,
        input: image + (oy * g.strideHeight - g.padTop + above) * g.inputWidth * channels,
        inputRowStep: g.inputWidth * channels, inputWidth: g.inputWidth, padLeft: g.padLeft, rows: rows,
        columns: g.outputWidth, weights: weights.taps(row: 0, column: 0), weightTapStep: weights.channelStride,
        bias: weights.bias, output: output, outputRowStep: g.outputWidth * channels, channels: channels,
        lower: lower, upper: upper)
    kernels.depthwiseBand(g.kernelWidth, g.strideWidth, band)
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
