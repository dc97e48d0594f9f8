import KernelTemplates

// How `convolutionF32` reads the border of an output row in place: the input rows it needs,
// copied with their zero padding into the thread's scratch, the border rounded to whole
// microkernel tiles.

/// One output row's columns cut for a convolution whose filter is not dilated across
/// (`dilationWidth == 1`): the middle read in place from the input, the columns on either side
/// from padded bands (`PaddedBand`), each part whole microkernel tiles where the row allows, so
/// that the row takes no more tiles than its width needs and its border pixels ride in them.
/// Gathered, each border pixel was a block of its own, a tile of at least 4 rows' work, and a
/// gather: face_detection_short_range's 5 × 5 stem (64-pixel rows, one border pixel each side)
/// took a fifth longer so (Zen 4, `Benchmarks/JOURNAL.md`).
struct RowBands {
    /// The columns left of `middle`: the left border rounded up to whole tiles, or the whole row
    /// where no column is read in place.
    let left: PaddedBand
    /// The columns read in place: whole tiles of the interior, up to the row's end where the row
    /// has no right border.
    let middle: Range<Int>
    /// The columns right of `middle`.
    let right: PaddedBand

    /// Floats of scratch the two bands take, the left one first.
    var floats: Int { left.floats + right.floats }

    /// The row of `geometry` whose columns `inPlace` (`interiorColumns`, or empty where a filter
    /// row falls outside the input) can be read in place, for tiles of `tileRows` rows.
    init(geometry g: ConvolutionGeometry, channels: Int, inPlace: Range<Int>, tileRows: Int) {
        let width = g.outputWidth
        var middle = width..<width
        if !inPlace.isEmpty {
            let start = inPlace.lowerBound == 0
                ? 0 : min(inPlace.upperBound, roundUp(inPlace.lowerBound, to: tileRows))
            let end = inPlace.upperBound == width
                ? width : start + (inPlace.upperBound - start) / tileRows * tileRows
            if end > start { middle = start..<end }
        }
        self.middle = middle
        let leftEnd = middle.isEmpty ? width : middle.lowerBound
        let rightStart = middle.isEmpty ? width : middle.upperBound
        left = PaddedBand(geometry: g, channels: channels, columns: 0..<leftEnd)
        right = PaddedBand(geometry: g, channels: channels, columns: rightStart..<width)
    }
}

/// The input rows that output columns `columns` of one output row read, zero-padded: `KH` rows
/// of `width` pixels (`[KH, width, channels]`), row `ky` holding input row
/// `oy·strideHeight − padTop + ky·dilationHeight` from input column
/// `columns.lowerBound·strideWidth − padLeft` on, zeros where that lies outside the input. Each
/// column's taps are then read in place (`runs`), in the order `im2colGatherF32` writes them,
/// with the same zeros: the products and sums are those of the gathered taps, bit for bit. For
/// filters not dilated across (`dilationWidth == 1`).
struct PaddedBand {
    let geometry: ConvolutionGeometry
    let channels: Int
    /// The output columns the band serves.
    let columns: Range<Int>
    /// Pixels of a band row: those the columns' first to last taps span.
    let width: Int
    /// Floats of the band, one `SIMD16<Float>` more, which the microkernels may read past the last
    /// tap; 0 for no columns.
    let floats: Int
    /// How the columns' taps lie in the band, for the microkernels.
    let runs: GemmRows

    init(geometry g: ConvolutionGeometry, channels: Int, columns: Range<Int>) {
        geometry = g
        self.channels = channels
        self.columns = columns
        // Validated shapes: these are at most a few times a padded input row.
        width = columns.isEmpty ? 0 : (columns.count - 1) * g.strideWidth + g.kernelWidth
        floats = columns.isEmpty ? 0 : g.kernelHeight * width * channels + SIMD16<Float>.scalarCount
        runs = GemmRows(
            rowStride: g.strideWidth * channels, segmentCount: g.kernelHeight,
            segmentLength: g.kernelWidth * channels, segmentStride: width * channels)
    }

    /// Writes output row `oy`'s band of `image` (one `[H, W, channels]` input image) to `band`.
    func fill(_ band: UnsafeMutablePointer<Float>, image: UnsafePointer<Float>, outputRow oy: Int) {
        guard !columns.isEmpty else { return }
        let g = geometry, rowFloats = width * channels
        // Band pixel `p` is input column `firstColumn + p`; those inside the input are copied.
        let firstColumn = columns.lowerBound * g.strideWidth - g.padLeft
        let copiedPixels = max(0, min(width, g.inputWidth - firstColumn) - max(0, -firstColumn))
        let lead = min(width, max(0, -firstColumn)) * channels, copied = copiedPixels * channels
        for ky in 0..<g.kernelHeight {
            let row = band + ky * rowFloats
            let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
            guard (0..<g.inputHeight).contains(iy), copied > 0 else {
                row.update(repeating: 0, count: rowFloats)
                continue
            }
            row.update(repeating: 0, count: lead)
            copyShortFloats(
                from: image + (iy * g.inputWidth + firstColumn) * channels + lead, to: row + lead, count: copied)
            (row + lead + copied).update(repeating: 0, count: rowFloats - lead - copied)
        }
    }
}

/// `value` rounded up to a multiple of `multiple` (at least 1).
private func roundUp(_ value: Int, to multiple: Int) -> Int {
    (value + multiple - 1) / multiple * multiple
}
