// The depthwise kernels on channel-major planes (depth multiplier 1, one
// channel's `[H][W]` plane at a time), for square 3×3 and 5×5 filters,
// undilated, at stride 1 or 2 (the same along both axes), written once for every
// family:
// `out[oy][ox] = clamp(bias + Σ_{ky,kx} in[oy·sh − padTop + ky][ox·sw − padLeft + kx] · w[ky][kx])`.
//
// A band of output rows first copies the input rows it reads into scratch
// rows with the padding written out as zeros, so the tap loops need no
// bounds checks. For stride 2 along W each scratch row is stored
// de-interleaved (even padded columns, then odd ones), so the taps of
// neighbouring outputs are consecutive floats. Then output rows go in
// blocks sharing the scratch rows they read (four rows for 3×3 filters;
// for 5×5 ones, blocks of up to eight that cover the band exactly), 16
// pixels at a time (one zmm register with AVX-512, two ymm registers with
// AVX2), 8 for rows of at most 8 pixels and for a last piece of at most
// 8: each sum starts from the bias and adds one multiply-add
// per tap in (kx, ky) order (filter columns outer), as the channels-last
// kernels do. A tap in the padding adds `0 · w`, which leaves every sum
// but `−0` unchanged for finite weights, so the results equal theirs bit
// for bit unless the bias is `−0` or a weight is not finite (the op does
// not run such filters here).
//
// The scratch rows are filled 16 floats at a time in every family (two
// ymm registers with AVX2), so their layout does not depend on the
// family.

/// The vectors a channel-major depthwise kernel computes output pixels in:
/// a family's marker, with the loads and the partial stores of its vector
/// type.
public protocol ChannelMajorVectors: KernelVectors {
    /// The family's 8-lane marker: rows of at most 8 pixels and the last 8
    /// or fewer pixels of a row of wider vectors go in it (itself in a
    /// family whose widest vector has 8 lanes).
    associatedtype Narrow: ChannelMajorVectors where Narrow.Vector == SIMD8<Float>
    /// Loads a vector from `pointer` (no alignment required).
    static func load(_ pointer: UnsafePointer<Float>) -> Vector
    /// Stores the first `count` lanes (all when `count` ≥ the lane count).
    static func store(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>, count: Int)
}

extension ChannelMajorVectors where Vector == SIMD16<Float> {
    @inlinable @inline(__always)
    public static func load(_ pointer: UnsafePointer<Float>) -> Vector { loadVector16(pointer) }

    @inlinable @inline(__always)
    public static func store(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
        if count >= 16 {
            storeVector16(value, pointer)
        } else {
            storeVector16(value, pointer, count: count)
        }
    }
}

extension ChannelMajorVectors where Vector == SIMD8<Float> {
    @inlinable @inline(__always)
    public static func load(_ pointer: UnsafePointer<Float>) -> Vector { loadVector8(pointer) }

    @inlinable @inline(__always)
    public static func store(_ value: Vector, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
        storeVector8Lanes(value, pointer, count: count)
    }
}

/// One band of output rows of one channel plane, and the scratch rows it
/// may use. All offsets the kernel forms stay inside the plane, the band's
/// output rows and the scratch rows as described, so its wrapping operators
/// cannot wrap.
public struct DepthwiseCHWBandOperands {
    /// The channel's input plane, `inputHeight` rows of `inputWidth` floats.
    /// A row may be read up to 15 floats past its last element
    /// (the tensor's own tail padding covers the last row).
    public var input: UnsafePointer<Float>
    public var inputHeight: Int
    public var inputWidth: Int
    /// Output row `firstRow` of the channel's plane; the band's rows follow,
    /// `outputWidth` floats apart. Nothing outside the band's rows is written.
    public var output: UnsafeMutablePointer<Float>
    public var outputWidth: Int
    /// The band: output rows `firstRow ..< firstRow + rowCount`.
    public var firstRow: Int
    public var rowCount: Int
    /// Step between output rows in input rows (1 or 2).
    public var strideHeight: Int
    /// Implicit zero rows above and columns left of the input.
    public var padTop: Int
    public var padLeft: Int
    /// The channel's `size × size` filter taps, row-major.
    public var weights: UnsafePointer<Float>
    public var bias: Float
    public var lower: Float
    public var upper: Float
    /// `(rowCount − 1)·strideHeight + size` rows of `scratchRowFloats`
    /// floats each, where `scratchRowFloats` is exactly
    /// `depthwiseCHWScratchRowFloats(size:strideWidth:outputWidth:)`.
    public var scratch: UnsafeMutablePointer<Float>
    public var scratchRowFloats: Int
    /// Whether the band's scratch rows still hold the zeros of their
    /// padding columns (left of the input row, and after it up to the
    /// columns kept outputs read) from an earlier band of the same
    /// convolution on this scratch; the kernel then writes only the input
    /// columns of each row. An earlier band writes nothing else there.
    public var paddingColumnsZeroed: Bool

    @inlinable
    public init(
        input: UnsafePointer<Float>, inputHeight: Int, inputWidth: Int,
        output: UnsafeMutablePointer<Float>, outputWidth: Int, firstRow: Int, rowCount: Int,
        strideHeight: Int, padTop: Int, padLeft: Int,
        weights: UnsafePointer<Float>, bias: Float, lower: Float, upper: Float,
        scratch: UnsafeMutablePointer<Float>, scratchRowFloats: Int, paddingColumnsZeroed: Bool = false
    ) {
        self.input = input
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
        self.output = output
        self.outputWidth = outputWidth
        self.firstRow = firstRow
        self.rowCount = rowCount
        self.strideHeight = strideHeight
        self.padTop = padTop
        self.padLeft = padLeft
        self.weights = weights
        self.bias = bias
        self.lower = lower
        self.upper = upper
        self.scratch = scratch
        self.scratchRowFloats = scratchRowFloats
        self.paddingColumnsZeroed = paddingColumnsZeroed
    }
}

/// The floats one scratch row needs for output rows of `outputWidth`
/// pixels (see `CHWScratchLayout`). `outputWidth` is a tensor dimension,
/// so nothing overflows.
public func depthwiseCHWScratchRowFloats(size: Int, strideWidth: Int, outputWidth: Int) -> Int {
    CHWScratchLayout(size: size, strideWidth: strideWidth, outputWidth: outputWidth).rowFloats
}

/// How a band's scratch rows are laid out, in every family. Output rows go
/// at most `lanes` pixels at a time (8 for rows of at most 8 pixels, else
/// 16), so whole vectors read at most `readWidth` padded columns per row: `roundUp(outputWidth, lanes) +
/// size − 1` at stride 1, or that many even and as many odd columns,
/// `roundUp(outputWidth, lanes) + (size − 1) / 2` each, at stride 2. Each
/// run of `readWidth` columns (one at stride 1; the even, then the odd one
/// at stride 2) is followed by 16 floats of slack, so that filling it with
/// whole vectors never writes past its own region. Only the first
/// `usedWidth` columns of a run reach the pixels kept (`outputWidth +
/// size − 1` at stride 1, `outputWidth + (size − 1) / 2` at stride 2); the
/// rest feed only the lanes past the row's end, which are dropped, so they
/// may hold anything.
public struct CHWScratchLayout {
    public let lanes: Int
    public let readWidth: Int
    public let usedWidth: Int
    /// Floats of one region: `readWidth + 16`.
    public let region: Int
    public let rowFloats: Int

    @inlinable
    public init(size: Int, strideWidth: Int, outputWidth: Int) {
        lanes = outputWidth <= 8 ? 8 : 16
        let vectorWidth = (outputWidth + lanes - 1) / lanes * lanes
        let reach = strideWidth == 1 ? size - 1 : (size - 1) / 2
        readWidth = vectorWidth + reach
        usedWidth = outputWidth + reach
        region = readWidth + 16
        rowFloats = strideWidth == 1 ? region : 2 * region
    }
}

/// One band of output rows of one channel plane for a `size × size` filter
/// (3 or 5) at `strideWidth` and `band.strideHeight` (both 1 or both 2), in
/// vectors of `Wide` (rows of at most 8 pixels in `Wide.Narrow`). Other
/// shapes are a programmer error: the caller routes them elsewhere.
/// Instantiate it with the family's own marker, from a non-generic
/// `@inline(never)` function of the family's module.
@inlinable @inline(__always)
public func depthwiseCHWBand<Wide: ChannelMajorVectors>(
    _ wide: Wide.Type, size: Int, strideWidth: Int, _ band: DepthwiseCHWBandOperands
) {
    if band.outputWidth <= 8 {
        depthwiseCHWBandShapes(Wide.Narrow.self, size: size, strideWidth: strideWidth, band)
    } else {
        depthwiseCHWBandShapes(Wide.self, size: size, strideWidth: strideWidth, band)
    }
}

/// `depthwiseCHWBand` with output rows computed `Lanes` pixels at a time:
/// the filter size and strides picked at compile time.
@inlinable
func depthwiseCHWBandShapes<Lanes: ChannelMajorVectors>(
    _ lanes: Lanes.Type, size: Int, strideWidth: Int, _ band: DepthwiseCHWBandOperands
) {
    switch (size, strideWidth, band.strideHeight) {
    case (3, 1, 1): channelMajorBand3x3(CHWFilter<CHWCount3, CHWCount1, CHWCount1, Lanes>.self, band)
    case (3, 2, 2): channelMajorBand3x3(CHWFilter<CHWCount3, CHWCount2, CHWCount2, Lanes>.self, band)
    case (5, 1, 1): channelMajorBand5x5(CHWFilter<CHWCount5, CHWCount1, CHWCount1, Lanes>.self, band)
    case (5, 2, 2): channelMajorBand5x5(CHWFilter<CHWCount5, CHWCount2, CHWCount2, Lanes>.self, band)
    default:
        preconditionFailure(
            "no channel-major depthwise kernel for \(size)×\(size) stride \(band.strideHeight),\(strideWidth)")
    }
}

/// A number fixed at compile time: a filter size, a stride, rows of a
/// block or vectors of a group of the channel-major kernels.
public protocol CHWStaticCount {
    static var value: Int { get }
}

public enum CHWCount1: CHWStaticCount { @inlinable public static var value: Int { 1 } }
public enum CHWCount2: CHWStaticCount { @inlinable public static var value: Int { 2 } }
public enum CHWCount3: CHWStaticCount { @inlinable public static var value: Int { 3 } }
public enum CHWCount4: CHWStaticCount { @inlinable public static var value: Int { 4 } }
public enum CHWCount5: CHWStaticCount { @inlinable public static var value: Int { 5 } }
public enum CHWCount6: CHWStaticCount { @inlinable public static var value: Int { 6 } }
public enum CHWCount7: CHWStaticCount { @inlinable public static var value: Int { 7 } }
public enum CHWCount8: CHWStaticCount { @inlinable public static var value: Int { 8 } }

/// A square filter size, the strides and the output vector fixed at
/// compile time, so that the tap loops unroll and the rows of a block
/// share their loads.
public enum CHWFilter<Size: CHWStaticCount, StrideW: CHWStaticCount, StrideH: CHWStaticCount, Lanes: ChannelMajorVectors> {}

/// A band of a 3×3 filter: fills its scratch rows, then computes its
/// output rows four at a time, then the last 1...3 one at a time.
/// Separate from the 5×5 band so that neither size instantiates the
/// other's row blocks (each shape's specialisations cost the compiler
/// seconds).
@inlinable @inline(never)
func channelMajorBand3x3<StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<CHWCount3, StrideW, StrideH, Lanes>.Type, _ band: DepthwiseCHWBandOperands
) {
    fillScratchRows(shape, band)
    let strideH = StrideH.value, rowFloats = band.scratchRowFloats, width = band.outputWidth
    let narrow = CHWFilter<CHWCount3, StrideW, StrideH, Lanes.Narrow>.self
    withBandTaps(shape, band) { taps, split in
        let half = rowFloats / 2
        var local = 0
        while local &+ 4 <= band.rowCount {
            let scratchRow = UnsafePointer(band.scratch + local &* strideH &* rowFloats)
            let output = band.output + local &* width
            fourOutputRows(
                shape, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: 0..<split)
            if split < width {
                fourOutputRows(
                    narrow, band, taps: taps, half: half, scratchRow: scratchRow, output: output,
                    columns: split..<width)
            }
            local &+= 4
        }
        while local < band.rowCount {
            let scratchRow = UnsafePointer(band.scratch + local &* strideH &* rowFloats)
            let output = band.output + local &* width
            outputRow(shape, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: 0..<split)
            if split < width {
                outputRow(
                    narrow, band, taps: taps, half: half, scratchRow: scratchRow, output: output,
                    columns: split..<width)
            }
            local &+= 1
        }
    }
}

/// A band of a 5×5 filter: fills its scratch rows, then computes its
/// output rows in blocks of up to eight, as even as they come, covering
/// the band exactly.
@inlinable @inline(never)
func channelMajorBand5x5<StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<CHWCount5, StrideW, StrideH, Lanes>.Type, _ band: DepthwiseCHWBandOperands
) {
    fillScratchRows(shape, band)
    let strideH = StrideH.value, rowFloats = band.scratchRowFloats, width = band.outputWidth
    let narrow = CHWFilter<CHWCount5, StrideW, StrideH, Lanes.Narrow>.self
    withBandTaps(shape, band) { taps, split in
        let half = rowFloats / 2
        let blocks = (band.rowCount &+ 7) / 8
        let base = band.rowCount / blocks, extra = band.rowCount % blocks
        var local = 0
        for b in 0..<blocks {
            let rows = b < extra ? base &+ 1 : base
            let scratchRow = UnsafePointer(band.scratch + local &* strideH &* rowFloats)
            let output = band.output + local &* width
            outputRows5x5(
                shape, rows: rows, band, taps: taps, half: half, scratchRow: scratchRow, output: output,
                columns: 0..<split)
            if split < width {
                outputRows5x5(
                    narrow, rows: rows, band, taps: taps, half: half, scratchRow: scratchRow, output: output,
                    columns: split..<width)
            }
            local &+= rows
        }
    }
}

/// Copies the input rows the band reads into its scratch rows, with the
/// padding rows and columns written out as zeros (de-interleaved at
/// stride 2 along W).
@inlinable @inline(__always)
func fillScratchRows<Size, StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, _ band: DepthwiseCHWBandOperands
) {
    let size = Size.value, strideH = StrideH.value
    let layout = CHWScratchLayout(size: size, strideWidth: StrideW.value, outputWidth: band.outputWidth)
    let rowFloats = band.scratchRowFloats
    let scratchRows = (band.rowCount &- 1) &* strideH &+ size
    let firstPaddedRow = band.firstRow &* strideH
    // The row geometry, worked out once per band in locals that no
    // scratch store can alias.
    let input = band.input, inputWidth = band.inputWidth
    let scratch = band.scratch, zeroPadding = !band.paddingColumnsZeroed
    // Scratch rows `dataRows` hold input rows (scratch row r holds input
    // row `firstInputRow + r`); those before and after are padding.
    let firstInputRow = firstPaddedRow &- band.padTop
    let dataStart = min(scratchRows, max(0, 0 &- firstInputRow))
    let dataRows = dataStart..<max(dataStart, min(scratchRows, band.inputHeight &- firstInputRow))
    for r in 0..<dataRows.lowerBound { zeroFloats(scratch + r &* rowFloats, from: 0, to: rowFloats) }
    for r in dataRows.upperBound..<scratchRows { zeroFloats(scratch + r &* rowFloats, from: 0, to: rowFloats) }
    // Each loop with `zeroPadding` a constant, so that it has no test per row.
    if StrideW.value == 1 {
        let fill = RowFill(band: band, layout: layout)
        if zeroPadding {
            for r in dataRows {
                fill.fill(input + (firstInputRow &+ r) &* inputWidth, into: scratch + r &* rowFloats, zeroPadding: true)
            }
        } else {
            for r in dataRows {
                fill.fill(input + (firstInputRow &+ r) &* inputWidth, into: scratch + r &* rowFloats, zeroPadding: false)
            }
        }
    } else {
        let fill = DeinterleavedRowFill(band: band, layout: layout)
        if zeroPadding {
            for r in dataRows {
                fill.fill(input + (firstInputRow &+ r) &* inputWidth, into: scratch + r &* rowFloats, zeroPadding: true)
            }
        } else {
            for r in dataRows {
                fill.fill(input + (firstInputRow &+ r) &* inputWidth, into: scratch + r &* rowFloats, zeroPadding: false)
            }
        }
    }
}

/// Calls `body` with the band's `size × size` taps copied to the stack,
/// where no output store can alias them (the compiler keeps them in
/// registers, or reloads each once per tap for all rows of a block), and
/// `split`: the column where rows of `Lanes` vectors end with one narrow
/// vector that covers the rest of the row (the width where none does).
@inlinable @inline(__always)
func withBandTaps<Size, StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, _ band: DepthwiseCHWBandOperands,
    _ body: (_ taps: UnsafeMutablePointer<Float>, _ split: Int) -> Void
) {
    let size = Size.value
    withUnsafeTemporaryAllocation(of: Float.self, capacity: 25) { buffer in
        guard let taps = buffer.baseAddress else { return }
        for t in 0..<(size &* size) { taps[t] = band.weights[t] }
        let wideLanes = Lanes.Vector.scalarCount, narrowLanes = Lanes.Narrow.Vector.scalarCount
        let width = band.outputWidth, rest = width % wideLanes
        let split = wideLanes > narrowLanes && rest != 0 && rest <= narrowLanes ? width &- rest : width
        body(taps, split)
    }
}

/// Writes zeros from `start` up to at least `end` in whole 16-float
/// vectors: up to 15 floats past `end`.
@inlinable @inline(__always)
func zeroFloats(_ pointer: UnsafeMutablePointer<Float>, from start: Int, to end: Int) {
    let zero = SIMD16<Float>(repeating: 0)
    var i = start
    while i < end {
        storeVector16(zero, pointer + i)
        i &+= 16
    }
}

/// How a stride-1 scratch row is filled: zeros, the input row from column
/// `padLeft` on, zeros, over the first `usedWidth` columns (the others may
/// keep anything). Each step writes whole vectors and may write up to 15
/// floats past its part: the input's last vector has its lanes past the
/// row set to zero, so its spill is the right padding; the spill of the
/// zeros lands in the region's slack.
@usableFromInline
struct RowFill {
    @usableFromInline let start: Int
    @usableFromInline let count: Int
    @usableFromInline let usedWidth: Int

    @inlinable @inline(__always)
    init(band: DepthwiseCHWBandOperands, layout: CHWScratchLayout) {
        let readWidth = layout.readWidth
        usedWidth = layout.usedWidth
        start = min(band.padLeft, readWidth)
        count = min(band.inputWidth, readWidth &- start)
    }

    @inlinable @inline(__always)
    func fill(_ source: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>, zeroPadding: Bool) {
        if zeroPadding { zeroFloats(row, from: 0, to: start) }
        let destination = row + start
        var i = 0
        while i &+ 16 <= count {
            storeVector16(loadVector16(source + i), destination + i)
            i &+= 16
        }
        if i < count {
            // Reads at most 15 floats past the row: within the next row or
            // the tensor's tail padding.
            storeVector16(keepingLanes(loadVector16(source + i), below: count &- i), destination + i)
            i &+= 16
        }
        if zeroPadding { zeroFloats(row, from: start &+ i, to: usedWidth) }
    }
}

/// How a stride-2 scratch row is filled, split by the parity of the padded
/// column `ix + padLeft`: padded column `2j` goes to `row[j]`, `2j + 1` to
/// `row[region + j]`, with zeros where that is padding, over the first
/// `usedWidth` columns of each region; written in whole vectors like
/// `RowFill`.
@usableFromInline
struct DeinterleavedRowFill {
    /// Input columns read: `0 ..< count`.
    @usableFromInline let count: Int
    /// Region-relative start of the even input columns (`2k` lands at
    /// `evenStart + k` of its region) and of the odd ones.
    @usableFromInline let evenStart: Int
    @usableFromInline let oddStart: Int
    /// Whether even input columns go to the first region (an even `padLeft`).
    @usableFromInline let evenPadding: Bool
    @usableFromInline let region: Int
    @usableFromInline let usedWidth: Int

    @inlinable @inline(__always)
    init(band: DepthwiseCHWBandOperands, layout: CHWScratchLayout) {
        region = layout.region
        usedWidth = layout.usedWidth
        let readWidth = layout.readWidth, padLeft = band.padLeft
        count = max(0, min(band.inputWidth, 2 &* readWidth &- padLeft))
        evenPadding = padLeft % 2 == 0
        evenStart = min(padLeft / 2, readWidth)
        oddStart = min((padLeft &+ 1) / 2, readWidth)
    }

    @inlinable @inline(__always)
    func fill(_ source: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>, zeroPadding: Bool) {
        let evenRegion = evenPadding ? row : row + region, oddRegion = evenPadding ? row + region : row
        if zeroPadding {
            zeroFloats(evenRegion, from: 0, to: evenStart)
            zeroFloats(oddRegion, from: 0, to: oddStart)
        }
        let evenRow = evenRegion + evenStart, oddRow = oddRegion + oddStart
        var k = 0
        while 2 &* k &+ 32 <= count {
            let low = loadVector16(source + 2 &* k)
            let high = loadVector16(source + (2 &* k &+ 16))
            storeVector16(evenLanes(low, high), evenRow + k)
            storeVector16(oddLanes(low, high), oddRow + k)
            k &+= 16
        }
        let left = count &- 2 &* k
        if left > 0 {
            // The lanes past the row zeroed; the second half read only
            // where it starts inside the row, so no read goes more than 15
            // floats past it.
            let low = keepingLanes(loadVector16(source + 2 &* k), below: left)
            let high = left > 16
                ? keepingLanes(loadVector16(source + (2 &* k &+ 16)), below: left &- 16)
                : SIMD16<Float>(repeating: 0)
            storeVector16(evenLanes(low, high), evenRow + k)
            storeVector16(oddLanes(low, high), oddRow + k)
            k &+= 16
        }
        if zeroPadding {
            zeroFloats(evenRegion, from: evenStart &+ k, to: usedWidth)
            zeroFloats(oddRegion, from: oddStart &+ k, to: usedWidth)
        }
    }
}

/// The scratch floats of tap column `kx` for the outputs from `row` on:
/// `kx` columns further at stride 1; at stride 2, in the even or the odd
/// region of the row.
@inlinable @inline(__always)
func tapColumn<Size, StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, _ row: UnsafePointer<Float>, kx: Int, half: Int
) -> UnsafePointer<Float> {
    StrideW.value == 1 ? row + kx : row + ((kx % 2 == 0 ? 0 : half) &+ kx / 2)
}

/// Columns `columns` of four output rows whose first filter row is
/// scratch row `scratchRow`, a vector of pixels at a time, each summing its taps in
/// (kx, ky) order. Rows of the block that read the same scratch row at the
/// same tap column load it once (the compiler merges the identical loads).
@inlinable @inline(__always)
func fourOutputRows<Size, StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, _ band: DepthwiseCHWBandOperands, taps: UnsafeMutablePointer<Float>,
    half: Int, scratchRow: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, columns: Range<Int>
) {
    typealias Vector = Lanes.Vector
    let size = Size.value
    let lower = Vector(repeating: band.lower), upper = Vector(repeating: band.upper)
    let bias = Vector(repeating: band.bias)
    let rowFloats = band.scratchRowFloats
    let rowStep = StrideH.value &* rowFloats
    let width = band.outputWidth
    var x = columns.lowerBound
    while x < columns.upperBound {
        var sum0 = bias, sum1 = bias, sum2 = bias, sum3 = bias
        for kx in 0..<size {
            for ky in 0..<size {
                let row = scratchRow + (ky &* rowFloats &+ x)
                let weight = Vector(repeating: taps[ky &* size &+ kx])
                let tap = tapColumn(shape, row, kx: kx, half: half)
                sum0 = Lanes.multiplyAdd(Lanes.load(tap), weight, sum0)
                sum1 = Lanes.multiplyAdd(Lanes.load(tap + rowStep), weight, sum1)
                sum2 = Lanes.multiplyAdd(Lanes.load(tap + 2 &* rowStep), weight, sum2)
                sum3 = Lanes.multiplyAdd(Lanes.load(tap + 3 &* rowStep), weight, sum3)
            }
        }
        let count = columns.upperBound &- x
        Lanes.store(Lanes.clamp(sum0, lower: lower, upper: upper), output + x, count: count)
        Lanes.store(Lanes.clamp(sum1, lower: lower, upper: upper), output + (width &+ x), count: count)
        Lanes.store(Lanes.clamp(sum2, lower: lower, upper: upper), output + (2 &* width &+ x), count: count)
        Lanes.store(Lanes.clamp(sum3, lower: lower, upper: upper), output + (3 &* width &+ x), count: count)
        x &+= Vector.scalarCount
    }
}

/// `outputRows5x5` for a block of `rows` (1...8) rows.
@inlinable @inline(__always)
func outputRows5x5<Size, StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, rows: Int, _ band: DepthwiseCHWBandOperands,
    taps: UnsafeMutablePointer<Float>, half: Int, scratchRow: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, columns: Range<Int>
) {
    switch rows {
    case 1: outputRows5x5(shape, CHWCount1.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    case 2: outputRows5x5(shape, CHWCount2.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    case 3: outputRows5x5(shape, CHWCount3.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    case 4: outputRows5x5(shape, CHWCount4.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    case 5: outputRows5x5(shape, CHWCount5.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    case 6: outputRows5x5(shape, CHWCount6.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    case 7: outputRows5x5(shape, CHWCount7.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    default: outputRows5x5(shape, CHWCount8.self, band, taps: taps, half: half, scratchRow: scratchRow, output: output, columns: columns)
    }
}

/// Columns `columns` of a block of `Rows.value` (1...8) output rows for a
/// 5×5 filter, one filter column at a time: that column's tap vectors of
/// every scratch row the block reads are loaded once and added, with the
/// column's filter taps, to every output row whose filter covers them (the
/// sums still take their taps in (kx, ky) order). Too many taps to keep in
/// registers, so they are broadcast from memory.
@inlinable @inline(__always)
func outputRows5x5<Size, StrideW, StrideH, Lanes, Rows: CHWStaticCount>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, _ rows: Rows.Type, _ band: DepthwiseCHWBandOperands,
    taps: UnsafeMutablePointer<Float>, half: Int, scratchRow: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, columns: Range<Int>
) {
    typealias Vector = Lanes.Vector
    let strideH = StrideH.value, n = Rows.value
    let lower = Vector(repeating: band.lower), upper = Vector(repeating: band.upper)
    let bias = Vector(repeating: band.bias)
    let rowFloats = band.scratchRowFloats
    let width = band.outputWidth
    /// Scratch rows the block reads: at most 7·2 + 5.
    let blockRows = (n &- 1) &* strideH &+ 5
    // One filter column's tap vectors of those rows, on the stack.
    var column = InlineArray<19, Vector>(repeating: bias)
    /// `sum + Σ_ky column[first + ky] · taps[ky·5 + kx]`, in ky order.
    @inline(__always)
    func add(_ sum: Vector, first: Int, kx: Int) -> Vector {
        var s = Lanes.multiplyAdd(column[first], Vector(repeating: taps[kx]), sum)
        s = Lanes.multiplyAdd(column[first &+ 1], Vector(repeating: taps[5 &+ kx]), s)
        s = Lanes.multiplyAdd(column[first &+ 2], Vector(repeating: taps[10 &+ kx]), s)
        s = Lanes.multiplyAdd(column[first &+ 3], Vector(repeating: taps[15 &+ kx]), s)
        return Lanes.multiplyAdd(column[first &+ 4], Vector(repeating: taps[20 &+ kx]), s)
    }
    var x = columns.lowerBound
    while x < columns.upperBound {
        var sums = (bias, bias, bias, bias, bias, bias, bias, bias)
        for kx in 0..<5 {
            for j in 0..<blockRows {
                column[j] = Lanes.load(tapColumn(shape, scratchRow + (j &* rowFloats &+ x), kx: kx, half: half))
            }
            sums.0 = add(sums.0, first: 0, kx: kx)
            if n > 1 { sums.1 = add(sums.1, first: strideH, kx: kx) }
            if n > 2 { sums.2 = add(sums.2, first: 2 &* strideH, kx: kx) }
            if n > 3 { sums.3 = add(sums.3, first: 3 &* strideH, kx: kx) }
            if n > 4 { sums.4 = add(sums.4, first: 4 &* strideH, kx: kx) }
            if n > 5 { sums.5 = add(sums.5, first: 5 &* strideH, kx: kx) }
            if n > 6 { sums.6 = add(sums.6, first: 6 &* strideH, kx: kx) }
            if n > 7 { sums.7 = add(sums.7, first: 7 &* strideH, kx: kx) }
        }
        let count = columns.upperBound &- x
        @inline(__always)
        func put(_ sum: Vector, _ r: Int) {
            Lanes.store(Lanes.clamp(sum, lower: lower, upper: upper), output + (r &* width &+ x), count: count)
        }
        put(sums.0, 0)
        if n > 1 { put(sums.1, 1) }
        if n > 2 { put(sums.2, 2) }
        if n > 3 { put(sums.3, 3) }
        if n > 4 { put(sums.4, 4) }
        if n > 5 { put(sums.5, 5) }
        if n > 6 { put(sums.6, 6) }
        if n > 7 { put(sums.7, 7) }
        x &+= Vector.scalarCount
    }
}

/// Columns `columns` of one output row whose first filter row is scratch
/// row `scratchRow`, a vector of pixels at a time.
@inlinable @inline(__always)
func outputRow<Size, StrideW, StrideH, Lanes>(
    _ shape: CHWFilter<Size, StrideW, StrideH, Lanes>.Type, _ band: DepthwiseCHWBandOperands, taps: UnsafeMutablePointer<Float>,
    half: Int, scratchRow: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, columns: Range<Int>
) {
    typealias Vector = Lanes.Vector
    let size = Size.value
    let lower = Vector(repeating: band.lower), upper = Vector(repeating: band.upper)
    let bias = Vector(repeating: band.bias)
    let rowFloats = band.scratchRowFloats
    var x = columns.lowerBound
    while x < columns.upperBound {
        var sum = bias
        for kx in 0..<size {
            for ky in 0..<size {
                let row = scratchRow + (ky &* rowFloats &+ x)
                let weight = Vector(repeating: taps[ky &* size &+ kx])
                sum = Lanes.multiplyAdd(Lanes.load(tapColumn(shape, row, kx: kx, half: half)), weight, sum)
            }
        }
        Lanes.store(Lanes.clamp(sum, lower: lower, upper: upper), output + x, count: columns.upperBound &- x)
        x &+= Vector.scalarCount
    }
}
