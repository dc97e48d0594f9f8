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
/// Threads split the rows' units, on a map of few units one contiguous part of
/// the rows a thread (`DepthwiseRowUnits`); on a small map, where the units are
/// too few to balance and the layer before split its channels, they split the
/// channels too (`DepthwiseChannelGroups`). A channel's sums do not depend on
/// which channels are computed with it, nor a row's on the band it lies in.
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
    let g = geometry
    let specialised = g.hasSpecialisedDepthwiseKernels
    // Validated tensor sizes: the products are the output's element count and at most its rows.
    let totalRows = batch * g.outputHeight
    let threads = usefulThreadCount(
        runner.threadCount, multiplyAdds: totalRows, g.outputWidth * weights.channels,
        g.kernelHeight * g.kernelWidth)
    let channelGroups = DepthwiseChannelGroups(
        channels: weights.channels, inputRows: batch * g.inputHeight, threads: specialised ? threads : 1)
    // One part of the rows a thread where the threads split one image's rows.
    let units = DepthwiseRowUnits(
        geometry: g, channels: weights.channels, threads: batch == 1 && channelGroups.count == 1 ? threads : 1)
    let unitCount = batch * units.perImage
    runner.limited(to: threads).forEach(
        unitCount * channelGroups.count,
        DepthwiseRows(
            geometry: g, weights: weights, kernels: weights.instructionSet.microkernels, units: units,
            unitCount: unitCount, channelGroups: channelGroups, input: input, firstInputRow: 0, output: output,
            clamp: clamp))
}

/// The output rows of a `depthwiseConvolutionF32` call (over all images) in units of one row or
/// one band, times the channel groups, for `ParallelRunner.forEach`: item `i` is unit
/// `i % unitCount` of group `i / unitCount`, so that a thread's share of the items is mostly one
/// group's. `ExpansionDepthwise` runs it unit by unit on a band of an image's input rows.
struct DepthwiseRows: ParallelWork {
    let geometry: ConvolutionGeometry
    let weights: PackedDepthwiseWeights
    /// `weights.instructionSet.microkernels`, looked up once per call.
    let kernels: MicrokernelTable
    let units: DepthwiseRowUnits
    /// Units over all images: `batch · units.perImage`.
    let unitCount: Int
    let channelGroups: DepthwiseChannelGroups
    /// Input row `firstInputRow` of the first image: the whole input (row 0), or a band of one
    /// image's rows that holds every row the items read.
    let input: UnsafePointer<Float>
    let firstInputRow: Int
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
            let unit = item % unitCount
            let group = channelGroups.channels(ofGroup: item / unitCount)
            let n = unit / units.perImage
            let (oy, rows) = units.rows(ofUnit: unit % units.perImage)
            if rows == 0 { continue }
            let image = input + n * inputImage
            let out = output + n * outputImage + oy * outputRowSize
            if rows > 1 {
                depthwiseF32Band(
                    geometry: g, weights: weights, kernels: kernels, image: image + group.lowerBound,
                    imageFirstRow: firstInputRow, output: out + group.lowerBound, oy: oy, rows: rows,
                    channels: group, pixelStep: channels, lower: clamp.lower, upper: clamp.upper)
            } else {
                depthwiseF32Row(
                    geometry: g, weights: weights, kernels: kernels, image: image + group.lowerBound,
                    imageFirstRow: firstInputRow, outputRow: out + group.lowerBound, oy: oy, interior: interior,
                    channels: group, pixelStep: channels, lower: clamp.lower, upper: clamp.upper)
            }
        }
    }
}

/// Channels `group` of every output row of one image, on the calling thread: the units, kernels
/// and sums of `depthwiseConvolutionF32` at one thread, over a tile that holds only the group's
/// channels. `image` (`[inputHeight, inputWidth]` pixels) and `output` (`[outputHeight,
/// outputWidth]` pixels) hold channel `group.lowerBound + j` at offset `j` of each pixel, pixels
/// `pixelStep` ≥ `group.count` floats apart. The filter must be one the band and interior kernels
/// take (`ConvolutionGeometry.hasSpecialisedDepthwiseKernels`), and the group at least
/// `depthwiseBandMinimumChannels` channels.
func depthwiseF32Image(
    geometry g: ConvolutionGeometry, weights: PackedDepthwiseWeights, kernels: MicrokernelTable,
    image: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, pixelStep: Int,
    channels group: Range<Int>, clamp: (lower: Float, upper: Float)
) {
    precondition(
        g.hasSpecialisedDepthwiseKernels && group.count >= depthwiseBandMinimumChannels
            && pixelStep >= group.count,
        "a tile of channels needs the band kernels")
    let units = DepthwiseRowUnits(geometry: g, channels: group.count)
    let interior = g.interiorColumns
    for unit in 0..<units.perImage {
        let (oy, rows) = units.rows(ofUnit: unit)
        if rows == 0 { continue }
        let out = output + oy * g.outputWidth * pixelStep
        if rows > 1 {
            depthwiseF32Band(
                geometry: g, weights: weights, kernels: kernels, image: image, imageFirstRow: 0, output: out,
                oy: oy, rows: rows, channels: group, pixelStep: pixelStep, lower: clamp.lower, upper: clamp.upper)
        } else {
            depthwiseF32Row(
                geometry: g, weights: weights, kernels: kernels, image: image, imageFirstRow: 0, outputRow: out,
                oy: oy, interior: interior, channels: group, pixelStep: pixelStep,
                lower: clamp.lower, upper: clamp.upper)
        }
    }
}

/// How `depthwiseConvolutionF32` cuts the channels between threads: all in one group, or, on an
/// input map of fewer than `rowsPerThread` rows a thread, in one group a thread (at most one
/// per `minimumChannels` channels), each starting on a multiple of 16 channels (a cache line, a
/// whole number of every family's vectors). On a 7 × 7 map a 5 × 5 filter's rows make 3 units (a band
/// of 2 rows at the top, 3 inside, 2 at the bottom), which 2 threads split 2 to 1 by rows, and
/// the 1 × 1 convolution before such a layer splits its output channels at 2 threads
/// (`GemmTiling`): split the same way, each thread reads the channels its own core wrote. A
/// larger input (a stride-2 layer's 14 × 14, even with a 7 × 7 output) was split by rows
/// before, and is split by rows again.
struct DepthwiseChannelGroups {
    /// Input rows a thread needs at least for the split by rows.
    static let rowsPerThread = 4
    /// Channels per group before the starts are rounded down to multiples of 16.
    static let minimumChannels = 32

    let channels: Int
    let count: Int

    init(channels: Int, inputRows: Int, threads: Int) {
        self.channels = channels
        let fewRows = inputRows < Self.rowsPerThread * threads
        count = fewRows ? max(1, min(threads, channels / Self.minimumChannels)) : 1
    }

    /// The channels of group `group` (`0..<count`).
    func channels(ofGroup group: Int) -> Range<Int> {
        // Channels and count are tensor sizes: the products do not overflow.
        func start(_ group: Int) -> Int {
            group == count ? channels : channels * group / count / 16 * 16
        }
        return start(group)..<start(group + 1)
    }
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
    /// Whether the band and interior kernels are compiled for this filter: square 3×3 or 5×5,
    /// undilated, stride 1 or 2 (the other filters go through `depthwiseF32Block4x16`).
    var hasSpecialisedDepthwiseKernels: Bool {
        kernelHeight == kernelWidth && (kernelWidth == 3 || kernelWidth == 5)
            && strideHeight == strideWidth && strideWidth <= 2 && dilationHeight == 1 && dilationWidth == 1
    }

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
///
/// On a small map at more than one thread (`parts` > 1: at most `ParallelRunner.chunksPerThread`
/// units a thread) the rows are first cut into one contiguous part a thread, `outputHeight·t /
/// parts` onwards for thread t, each part's interior rows cut into bands of 2 to 4 rows as even as
/// they come, and every part padded with empty units (0 rows) to the same count, so that
/// `WorkerPool`'s even segments hand thread t exactly part t. The parts then hold the same rows
/// a thread, and the rows the layer before wrote on the same core: a 14 × 14 map's 3 × 3 filter
/// had units of 1, 4, 4, 4 and 1 rows, which 2 threads took as 5 rows and 9, the second thread
/// reading three rows the other core wrote; now 1, 3, 3 | 3, 3, 1.
struct DepthwiseRowUnits {
    /// The first row of each region and the end of the last (each region possibly empty).
    private let bounds: (Int, Int, Int, Int)
    /// Rows per band in each region: 4, or 1 where the band kernels do not take it.
    private let bandRows: (Int, Int, Int)
    /// Units in the first region, and in the first two.
    private let unitsBefore: (Int, Int)
    /// Contiguous parts of the rows, one a thread (1: the units above, in order), and units a
    /// part, its empty ones included.
    let parts: Int
    private let perPart: Int
    /// Units of the rows in order, before any cut into parts.
    private let unitsInOrder: Int
    /// Units an image takes, empty ones included.
    let perImage: Int

    /// The units of a layer of `channels` channels run by `threads` threads: bands where the band
    /// kernels take a region (they need the specialised filters and channels enough for their
    /// vectors), cut into one part a thread where that keeps each part's rows on one thread.
    init(geometry g: ConvolutionGeometry, channels: Int, threads: Int = 1) {
        let takesBands = g.hasSpecialisedDepthwiseKernels && channels >= depthwiseBandMinimumChannels
        self.init(
            outputHeight: g.outputHeight, interiorRows: g.interiorRows, threads: threads,
            bands: { rows in takesBands && bandKernelsTake(rows, geometry: g) })
    }

    /// `interiorRows` is `ConvolutionGeometry.interiorRows` (empty where no row has every filter
    /// row inside the input); `bands` says whether the band kernels take a region's rows.
    init(outputHeight: Int, interiorRows: Range<Int>, threads: Int = 1, bands: (Range<Int>) -> Bool) {
        let top = min(interiorRows.lowerBound, outputHeight)
        let bottom = min(max(top, interiorRows.upperBound), outputHeight)
        bounds = (0, top, bottom, outputHeight)
        let perBand = (bands(0..<top) ? 4 : 1, bands(top..<bottom) ? 4 : 1, bands(bottom..<outputHeight) ? 4 : 1)
        bandRows = perBand
        let first = (top + perBand.0 - 1) / perBand.0, second = (bottom - top + perBand.1 - 1) / perBand.1
        unitsBefore = (first, first + second)
        let inOrder = first + second + (outputHeight - bottom + perBand.2 - 1) / perBand.2
        unitsInOrder = inOrder
        // Parts only where the interior rows are banded and number at least one a thread.
        var largestPart = 0
        if threads > 1, perBand.1 == 4, bottom - top >= threads {
            for part in 0..<threads {
                largestPart = max(largestPart, Self.units(ofPart: part, parts: threads, bounds, unitsBefore, inOrder))
            }
        }
        if largestPart > 0 && largestPart <= ParallelRunner.chunksPerThread {
            (parts, perPart) = (threads, largestPart)
        } else {
            (parts, perPart) = (1, inOrder)
        }
        perImage = parts * perPart
    }

    /// The interior rows of part `part` of `parts`: from row `outputHeight·part / parts`, held
    /// within the interior rows so that the regions above and below stay whole (in the first part
    /// and the last).
    private static func interiorRows(
        ofPart part: Int, parts: Int, _ bounds: (Int, Int, Int, Int)
    ) -> Range<Int> {
        // Output heights are tensor sizes: the products do not overflow.
        func start(_ part: Int) -> Int {
            min(max(bounds.3 * part / parts, bounds.1), bounds.2)
        }
        return (part == 0 ? bounds.1 : start(part))..<(part == parts - 1 ? bounds.2 : start(part + 1))
    }

    /// Units part `part` of `parts` holds, empty ones not counted: the region above the interior
    /// rows' in the first part, its interior rows' bands of up to 4 rows, the region below's in
    /// the last part.
    private static func units(
        ofPart part: Int, parts: Int, _ bounds: (Int, Int, Int, Int), _ unitsBefore: (Int, Int), _ inOrder: Int
    ) -> Int {
        let interior = interiorRows(ofPart: part, parts: parts, bounds)
        return (part == 0 ? unitsBefore.0 : 0) + (interior.count + 3) / 4
            + (part == parts - 1 ? inOrder - unitsBefore.1 : 0)
    }

    /// The first output row and the rows (1...4; 0 for an empty unit) of an image's unit `unit`
    /// (`0..<perImage`).
    func rows(ofUnit unit: Int) -> (first: Int, count: Int) {
        guard parts > 1 else { return rowsInOrder(ofUnit: unit) }
        let part = unit / perPart
        var local = unit % perPart
        if part == 0 {
            if local < unitsBefore.0 { return rowsInOrder(ofUnit: local) }
            local -= unitsBefore.0
        }
        let interior = Self.interiorRows(ofPart: part, parts: parts, bounds)
        let bands = (interior.count + 3) / 4
        if local < bands {
            // Band `local` of `bands` even ones; the products are at most an output height squared.
            let start = interior.count * local / bands, end = interior.count * (local + 1) / bands
            return (interior.lowerBound + start, end - start)
        }
        let below = local - bands
        if part == parts - 1 && unitsBefore.1 + below < unitsInOrder {
            return rowsInOrder(ofUnit: unitsBefore.1 + below)
        }
        return (interior.upperBound, 0)
    }

    /// Unit `unit` of the rows in order (regions, then bands of `bandRows` rows in each).
    private func rowsInOrder(ofUnit unit: Int) -> (first: Int, count: Int) {
        let (regionStart, regionEnd, firstUnit, perBand) =
            unit < unitsBefore.0 ? (bounds.0, bounds.1, 0, bandRows.0)
            : unit < unitsBefore.1 ? (bounds.1, bounds.2, unitsBefore.0, bandRows.1)
            : (bounds.2, bounds.3, unitsBefore.1, bandRows.2)
        let first = regionStart + (unit - firstUnit) * perBand
        return (first, min(perBand, regionEnd - first))
    }
}

/// Channels `group` of output rows `oy ..< oy + rows` (2...4) of one image with `kernels`' band
/// kernel for the weights' square 3×3 or 5×5 filter, each over its filter rows inside the input.
/// `image` is channel `group.lowerBound` of the image's input row `imageFirstRow`, at or above
/// the first row the band reads, and `output` that channel of output row `oy`. Pixels of both
/// are `pixelStep` floats apart: `weights.channels` in a tensor, fewer in a tile of the group's
/// channels alone (`depthwiseF32Image`).
private func depthwiseF32Band(
    geometry g: ConvolutionGeometry, weights: PackedDepthwiseWeights, kernels: MicrokernelTable,
    image: UnsafePointer<Float>, imageFirstRow: Int, output: UnsafeMutablePointer<Float>, oy: Int, rows: Int,
    channels group: Range<Int>, pixelStep channels: Int, lower: Float, upper: Float
) {
    // The band's input rows from the one under its first row's top filter row, and those of
    // them inside the input (`bandKernelsTake` chose bands with none or 2 outside).
    let (above, below) = g.paddingRows(ofBandFrom: oy, rows: rows)
    let validRows = above..<((rows - 1) * g.strideHeight + g.kernelHeight - below)
    let band = DepthwiseBand(
        validRows: validRows,
        input: image + (oy * g.strideHeight - g.padTop + above - imageFirstRow) * g.inputWidth * channels,
        inputRowStep: g.inputWidth * channels, inputWidth: g.inputWidth, padLeft: g.padLeft, rows: rows,
        columns: g.outputWidth, weights: weights.taps(row: 0, column: 0) + group.lowerBound,
        weightTapStep: weights.channelStride, bias: weights.bias + group.lowerBound,
        output: output, outputRowStep: g.outputWidth * channels, channels: group.count,
        pixelStep: channels, lower: lower, upper: upper)
    kernels.depthwiseBand(g.kernelWidth, g.strideWidth, band)
}

/// Channels `group` of one output row `oy` of one image: the interior, then the border pixels,
/// with `kernels`, the microkernels of `weights.instructionSet`. `group` is all the channels
/// unless the filter is one the interior kernels take (`DepthwiseChannelGroups`,
/// `depthwiseF32Image`). `image` is channel `group.lowerBound` of the image's input row
/// `imageFirstRow`, at or above the first row the output row reads, and `outputRow` that channel
/// of the output row; pixels are `pixelStep` floats apart, as in `depthwiseF32Band`.
private func depthwiseF32Row(
    geometry g: ConvolutionGeometry, weights: PackedDepthwiseWeights, kernels: MicrokernelTable,
    image: UnsafePointer<Float>, imageFirstRow: Int, outputRow: UnsafeMutablePointer<Float>,
    oy: Int, interior: Range<Int>, channels group: Range<Int>, pixelStep channels: Int, lower: Float, upper: Float
) {
    let kernelWidth = g.kernelWidth
    let kernelRows = g.validKernelRows(outputRow: oy)
    // With no valid filter row the walk is empty and only the bias is read;
    // anchor the pointers at `image` so they stay inside their buffers.
    let firstKernelRow = kernelRows.isEmpty ? 0 : kernelRows.lowerBound
    let firstInputRow = kernelRows.isEmpty ? imageFirstRow : oy * g.strideHeight - g.padTop
        + firstKernelRow * g.dilationHeight
    let inputRow = image + (firstInputRow - imageFirstRow) * g.inputWidth * channels
    var walk = DepthwiseTapWalk(
        kernelRows: kernelRows.count, kernelColumns: kernelWidth,
        inputRowStep: g.dilationHeight * g.inputWidth * channels,
        inputTapStep: g.dilationWidth * channels,
        weightRowStep: g.kernelWidth * weights.channelStride,
        weightTapStep: weights.channelStride)
    let bias = weights.bias

    if g.hasSpecialisedDepthwiseKernels {
        if !interior.isEmpty {
            let row = DepthwiseInteriorRow(
                input: inputRow + (interior.lowerBound * g.strideWidth - g.padLeft) * channels,
                inputRowStep: walk.inputRowStep, kernelRows: walk.kernelRows, pixels: interior.count,
                weights: weights.taps(row: firstKernelRow, column: 0) + group.lowerBound,
                weightTapStep: walk.weightTapStep, bias: bias + group.lowerBound,
                output: outputRow + interior.lowerBound * channels, channels: group.count,
                pixelStep: channels, lower: lower, upper: upper)
            kernels.depthwiseInterior(kernelWidth, g.strideWidth, row)
        }
    } else {
        precondition(
            group.count == channels && channels == weights.channels,
            "only the specialised filters split their channels")
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
        let input = inputRow + firstInputColumn * channels + (chunk.lowerBound - group.lowerBound)
        let taps = weights.taps(row: firstKernelRow, column: firstKernelColumn) + chunk.lowerBound
        let output = outputRow + ox * channels + (chunk.lowerBound - group.lowerBound)
        kernels.depthwisePixel(
            walk, input, taps, bias + chunk.lowerBound, output, chunk.count, lower, upper)
    }
    // The border pixels of the row a chunk of channels at a time, so that the chunk's weights
    // stay in L1 from one pixel to the next (a 5 × 5 filter of 1152 channels is 115 KB).
    var chunkStart = group.lowerBound
    while chunkStart < group.upperBound {
        let chunk = chunkStart..<(group.upperBound - chunkStart < 2 * borderChannelChunk
            ? group.upperBound : chunkStart + borderChannelChunk)
        for ox in 0..<interior.lowerBound { borderPixel(ox, channels: chunk) }
        for ox in interior.upperBound..<g.outputWidth { borderPixel(ox, channels: chunk) }
        chunkStart = chunk.upperBound
    }
}

/// Channels a border pixel's kernel takes at a time (`depthwiseF32Row`): a multiple of every
/// family's vector widths, whose 5 × 5 taps of weights (12.5 KiB) and of input fit in L1.
private let borderChannelChunk = 128
