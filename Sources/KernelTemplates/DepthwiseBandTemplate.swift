// The depthwise kernels (depth multiplier 1, NHWC) for a band of 2...4 output rows, for square
// 3×3 and 5×5 filters at stride 1 and 2 without dilation, written once for every family. The
// band is computed column by column: its pixels in one output column form a block, and the
// block takes the filter one column at a time (XNNPACK's tap order, rows inner), so that each
// weight is loaded once for all of the block's pixels and each input row once for every filter
// row that reads it. A 5 × 5 filter at stride 1 takes 8 input and 5 weight loads per filter
// column for 20 multiply-adds of a vector, where the row kernels' blocks of 4 pixels in a row
// take 25; a border column is a block too, over its valid filter columns, where the row kernels
// take it pixel by pixel at two loads per multiply-add. A band at the top or bottom of the map
// (some of its filter rows over the padding) skips the taps on those rows, as the row kernels
// do. Each output element still starts from its bias and adds one multiply-add per valid tap in
// (kx, ky) order: the results are those of the row kernels bit for bit.

/// Channels a band needs at least: one vector of the narrowest group of every family (8 lanes),
/// so that the channels past the last whole group are one last, overlapping narrow vector.
@inlinable public var depthwiseBandMinimumChannels: Int { 8 }

/// Where one band of output rows lives, for the band kernels. All offsets those kernels form
/// stay inside the input rows and the packed filter the caller validated (each column's taps
/// only over its valid filter columns and rows), so their wrapping operators cannot wrap.
public struct DepthwiseBand {
    /// The band's input rows that lie inside the input, counted from the one under the band's
    /// first output row's top filter row (which may lie in the padding above the input): the
    /// band reads rows `0 ..< (rows − 1)·stride + size` of that count, all of them inside the
    /// input away from the top and bottom edges, and all but 2 on one side at the edges
    /// (`depthwiseBandTakesEdge`).
    public var validRows: Range<Int>
    /// Input row `validRows.lowerBound` of the band, at input column 0, the band's first
    /// channel: the band's row `validRows.lowerBound + r` is `r·inputRowStep` floats further,
    /// input column `x` `x·pixelStep` floats further.
    public var input: UnsafePointer<Float>
    public var inputRowStep: Int
    /// Input columns, and the zero columns before input column 0 (each output column's valid
    /// filter columns follow from them).
    public var inputWidth: Int
    public var padLeft: Int
    /// Output rows in the band, 2...4, and output columns.
    public var rows: Int
    public var columns: Int
    /// The packed weights of tap (0, 0), the band's first channel; tap `(ky, kx)` is
    /// `(ky·size + kx)·weightTapStep` floats further.
    public var weights: UnsafePointer<Float>
    public var weightTapStep: Int
    /// `channels` biases, readable up to the next multiple of the family's widest group.
    public var bias: UnsafePointer<Float>
    /// The band's first output row, column 0, its first channel: output row `r` of the band is
    /// `r·outputRowStep` floats further, column `x` `x·pixelStep`.
    public var output: UnsafeMutablePointer<Float>
    public var outputRowStep: Int
    /// Channels the band computes, from the first: all of the tensor's, or one group of them
    /// (`pixelStep` the tensor's); at least `depthwiseBandMinimumChannels`.
    public var channels: Int
    /// Floats from one pixel to the next in the input and the output: the tensor's channels.
    public var pixelStep: Int
    public var lower: Float
    public var upper: Float

    @inlinable
    public init(
        validRows: Range<Int>, input: UnsafePointer<Float>, inputRowStep: Int, inputWidth: Int, padLeft: Int,
        rows: Int, columns: Int, weights: UnsafePointer<Float>, weightTapStep: Int, bias: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, outputRowStep: Int, channels: Int, pixelStep: Int, lower: Float,
        upper: Float
    ) {
        self.validRows = validRows
        self.input = input
        self.inputRowStep = inputRowStep
        self.inputWidth = inputWidth
        self.padLeft = padLeft
        self.rows = rows
        self.columns = columns
        self.weights = weights
        self.weightTapStep = weightTapStep
        self.bias = bias
        self.output = output
        self.outputRowStep = outputRowStep
        self.channels = channels
        self.pixelStep = pixelStep
        self.lower = lower
        self.upper = upper
    }
}

/// Every pixel of a band: the channels two vectors at a time (`Two`), then one (`One`, the same
/// vectors), then one vector of `Narrow` where it is narrower and fits, then the channels left
/// over as the last `Narrow` vector of the channels (rewriting a few channels with the same
/// values, as `depthwiseInterior` does); each group swept across the band's columns, so that
/// its weights stay in L1 and neighbouring columns find the input they share there. Instantiate it with the family's own `KernelVectors` types from a non-generic
/// `@inline(never)` function of the family's module.
@inlinable @inline(__always)
public func depthwiseBand<Shape: DepthwiseInteriorShape, Two: KernelVectors, One: KernelVectors, Narrow: KernelVectors>(
    _ shape: Shape.Type, _ two: Two.Type, _ one: One.Type, _ narrow: Narrow.Type, _ band: DepthwiseBand
) {
    precondition(
        band.channels >= depthwiseBandMinimumChannels && band.channels >= Narrow.Vector.scalarCount
            && (2...4).contains(band.rows), "a band of 2...4 rows and at least 8 channels")
    precondition(
        depthwiseBandTakesEdge(
            above: band.validRows.lowerBound,
            below: (band.rows - 1) * Shape.stride + Shape.size - band.validRows.upperBound),
        "a band with more rows of padding than its kernels take")
    let width = One.Vector.scalarCount, narrowWidth = Narrow.Vector.scalarCount
    var c = 0
    while c + 2 * width <= band.channels {
        depthwiseBandSweep(Shape.self, Two.self, band, channel: c)
        c += 2 * width
    }
    if c + width <= band.channels {
        depthwiseBandSweep(Shape.self, One.self, band, channel: c)
        c += width
    }
    if narrowWidth < width && c + narrowWidth <= band.channels {
        depthwiseBandSweep(Shape.self, Narrow.self, band, channel: c)
        c += narrowWidth
    }
    if c < band.channels {
        depthwiseBandSweep(Shape.self, Narrow.self, band, channel: band.channels - narrowWidth)
    }
}

/// Which of a band's input rows lie in the padding, fixed at compile time so that the band's
/// taps share their loads as an interior band's do: its first `skippedAbove` rows (a band at the
/// top of the map) or its last `skippedBelow` (at the bottom).
public protocol DepthwiseBandEdge {
    static var skippedAbove: Int { get }
    static var skippedBelow: Int { get }
}

/// Whether the band kernels take a band whose first `above` and last `below` input rows lie in
/// the padding: none, or 2 on one side, those of a 5 × 5 filter's same padding at stride 1. (A
/// band of two or more rows that has padding on one side has at least 2 rows of it there: with
/// 1, its next row would already lie inside the input, in another region.)
@inlinable
public func depthwiseBandTakesEdge(above: Int, below: Int) -> Bool {
    (above == 0 || above == 2) && (below == 0 || below == 2) && (above == 0 || below == 0)
}

/// A band whose every filter row lands inside the input.
public enum DepthwiseBandInside: DepthwiseBandEdge {
    @inlinable public static var skippedAbove: Int { 0 }
    @inlinable public static var skippedBelow: Int { 0 }
}

/// A band at the top of the map whose first 2 input rows lie in the padding.
public enum DepthwiseBandTwoAbove: DepthwiseBandEdge {
    @inlinable public static var skippedAbove: Int { 2 }
    @inlinable public static var skippedBelow: Int { 0 }
}

/// A band at the bottom of the map whose last 2 input rows lie in the padding.
public enum DepthwiseBandTwoBelow: DepthwiseBandEdge {
    @inlinable public static var skippedAbove: Int { 0 }
    @inlinable public static var skippedBelow: Int { 2 }
}

/// Channels `channel ..< channel + Vectors.count·width` of every pixel of `band`, column by
/// column, each column a block of the band's rows over the column's valid filter columns (and,
/// at the top and bottom of the map, each pixel over its filter rows inside the input).
/// Instantiate it with the family's own `KernelVectors` type.
@inlinable @inline(__always)
public func depthwiseBandSweep<Shape: DepthwiseInteriorShape, Vectors: KernelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ band: DepthwiseBand, channel: Int
) {
    let above = band.validRows.lowerBound
    let below = (band.rows &- 1) &* Shape.stride &+ Shape.size &- band.validRows.upperBound
    switch (above, below) {
    case (0, 0): depthwiseBandColumns(Shape.self, Vectors.self, DepthwiseBandInside.self, band, channel: channel)
    case (2, 0): depthwiseBandColumns(Shape.self, Vectors.self, DepthwiseBandTwoAbove.self, band, channel: channel)
    case (0, 2): depthwiseBandColumns(Shape.self, Vectors.self, DepthwiseBandTwoBelow.self, band, channel: channel)
    default: preconditionFailure("no band kernel for \(above) rows of padding above and \(below) below")  // checked by depthwiseBand
    }
}

/// `depthwiseBandSweep`'s columns for bands whose padding rows `Edge` gives.
@inlinable @inline(never)
public func depthwiseBandColumns<Shape: DepthwiseInteriorShape, Vectors: KernelVectors, Edge: DepthwiseBandEdge>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ edge: Edge.Type, _ band: DepthwiseBand, channel: Int
) {
    let size = Shape.size, stride = Shape.stride
    for column in 0..<band.columns {
        // The filter columns that land inside the input: 0 ≤ column·stride − padLeft + kx < inputWidth.
        let start = column &* stride &- band.padLeft
        let first = max(0, -start)
        let kernelColumns = first..<max(first, min(size, band.inputWidth &- start))
        switch band.rows {
        case 2:
            depthwiseColumnBlock(
                Shape.self, Vectors.self, Edge.self, band, channel: channel, column: column,
                kernelColumns: kernelColumns, rows: 2)
        case 3:
            depthwiseColumnBlock(
                Shape.self, Vectors.self, Edge.self, band, channel: channel, column: column,
                kernelColumns: kernelColumns, rows: 3)
        default:
            depthwiseColumnBlock(
                Shape.self, Vectors.self, Edge.self, band, channel: channel, column: column,
                kernelColumns: kernelColumns, rows: 4)
        }
    }
}

/// The band's `rows` pixels (2...4, a constant where it is inlined, so that a shorter block
/// has only its own accumulators and loads) of output column `column`, `Vectors.count` vectors
/// of channels from `channel`, over the filter columns `kernelColumns` and the filter rows
/// whose input rows `Edge` does not put in the padding.
@inlinable @inline(__always)
public func depthwiseColumnBlock<Shape: DepthwiseInteriorShape, Vectors: KernelVectors, Edge: DepthwiseBandEdge>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ edge: Edge.Type, _ band: DepthwiseBand, channel: Int,
    column: Int, kernelColumns: Range<Int>, rows: Int
) {
    typealias V = Vectors.Vector
    let size = Shape.size, stride = Shape.stride, two = Vectors.count == 2
    let width = V.scalarCount
    let step = band.pixelStep
    let b0 = loadVector(band.bias + channel, as: V.self)
    let b1 = two ? loadVector(band.bias + (channel &+ width), as: V.self) : b0
    var a00 = b0, a10 = b0, a20 = b0, a30 = b0
    var a01 = b1, a11 = b1, a21 = b1, a31 = b1
    let firstInputColumn = column &* stride &- band.padLeft
    // The band's input rows inside the input; `band.input` points at the first of them.
    let validFirst = Edge.skippedAbove, validEnd = (rows &- 1) &* stride &+ size &- Edge.skippedBelow
    for kx in kernelColumns {
        let input = band.input + ((firstInputColumn &+ kx) &* step &+ channel)
        let weights = band.weights + (kx &* band.weightTapStep &+ channel)
        /// Filter row `ky` of the block's pixels: pixel p reads input row p·stride + ky, which
        /// the pixel `stride` rows below reads at filter row ky − stride. Written out row by row
        /// (the filter is 3 × 3 or 5 × 5), so that ky is a constant: those loads are shared, and
        /// the taps on rows `Edge` puts in the padding drop out at compile time.
        @inline(__always)
        func filterRow(_ ky: Int) {
            let w = weights + ky &* size &* band.weightTapStep
            let w0 = loadVector(w, as: V.self)
            let w1 = two ? loadVector(w + width, as: V.self) : w0
            /// Pixel `p`'s multiply-adds for this tap.
            @inline(__always)
            func tap(_ p: Int, _ s0: inout V, _ s1: inout V) {
                let row = p &* stride &+ ky
                if row < validFirst || row >= validEnd { return }
                let x = input + (row &- validFirst) &* band.inputRowStep
                s0 = Vectors.multiplyAdd(loadVector(x, as: V.self), w0, s0)
                if two { s1 = Vectors.multiplyAdd(loadVector(x + width, as: V.self), w1, s1) }
            }
            tap(0, &a00, &a01)
            tap(1, &a10, &a11)
            if rows > 2 { tap(2, &a20, &a21) }
            if rows > 3 { tap(3, &a30, &a31) }
        }
        filterRow(0); filterRow(1); filterRow(2)
        if size > 3 { filterRow(3); filterRow(4) }
    }
    let lo = Vectors.broadcast(band.lower), hi = Vectors.broadcast(band.upper)
    /// Pixel `p`'s sums, clamped, to its output.
    @inline(__always)
    func store(_ p: Int, _ s0: V, _ s1: V) {
        let out = band.output + (p &* band.outputRowStep &+ column &* step &+ channel)
        storeVector(Vectors.clamp(s0, lower: lo, upper: hi), out)
        if two { storeVector(Vectors.clamp(s1, lower: lo, upper: hi), out + width) }
    }
    store(0, a00, a01)
    store(1, a10, a11)
    if rows > 2 { store(2, a20, a21) }
    if rows > 3 { store(3, a30, a31) }
}
