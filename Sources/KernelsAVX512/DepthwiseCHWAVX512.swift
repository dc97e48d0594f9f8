// The 512-bit depthwise kernels on channel-major planes (depth multiplier 1,
// one channel's `[H][W]` plane at a time), for square 3×3 and 5×5 filters,
// undilated, at stride 1 or 2 along each axis:
// `out[oy][ox] = clamp(bias + Σ_{ky,kx} in[oy·sh − padTop + ky][ox·sw − padLeft + kx] · w[ky][kx])`.
//
// A band of output rows first copies the input rows it reads into scratch
// rows with the padding written out as zeros, so the tap loops need no
// bounds checks. For stride 2 along W each scratch row is stored
// de-interleaved (even padded columns, then odd ones), so the taps of 16
// neighbouring outputs are 16 consecutive floats. Then each output row goes
// 16 pixels at a time: the accumulator starts from the bias and adds one
// fused multiply-add per tap in ascending (ky, kx) order, as the
// channels-last kernels do. A tap in the padding adds `0 · w`, which leaves
// a nonzero sum unchanged, so the results equal theirs bit for bit for
// finite weights.

/// One band of output rows of one channel plane, and the scratch rows it
/// may use. All offsets the kernel forms stay inside the plane, the band's
/// output rows and the scratch rows as described, so its wrapping operators
/// cannot wrap.
public struct DepthwiseCHWBandOperands {
    /// The channel's input plane, `inputHeight` rows of `inputWidth` floats.
    /// A row may be read up to one `SIMD16<Float>` past its last element
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
    /// floats each, where `scratchRowFloats` is at least
    /// `depthwiseCHWScratchRowFloats(size:strideWidth:outputWidth:)`.
    public var scratch: UnsafeMutablePointer<Float>
    public var scratchRowFloats: Int

    public init(
        input: UnsafePointer<Float>, inputHeight: Int, inputWidth: Int,
        output: UnsafeMutablePointer<Float>, outputWidth: Int, firstRow: Int, rowCount: Int,
        strideHeight: Int, padTop: Int, padLeft: Int,
        weights: UnsafePointer<Float>, bias: Float, lower: Float, upper: Float,
        scratch: UnsafeMutablePointer<Float>, scratchRowFloats: Int
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
    }
}

/// The floats one scratch row needs for output rows of `outputWidth`
/// pixels: the padded input columns that whole 16-pixel vectors read,
/// `roundUp(outputWidth, 16) + size − 1` at stride 1, and twice
/// `roundUp(outputWidth, 16) + (size − 1) / 2` (even, then odd columns) at
/// stride 2. `outputWidth` is a tensor dimension, so nothing overflows.
public func depthwiseCHWScratchRowFloats(size: Int, strideWidth: Int, outputWidth: Int) -> Int {
    let vectorWidth = (outputWidth + 15) / 16 * 16
    return strideWidth == 1 ? vectorWidth + size - 1 : 2 * (vectorWidth + (size - 1) / 2)
}

/// One band of output rows of one channel plane for a `size × size` filter
/// (3 or 5) at `strideWidth` (1 or 2) along W. Other shapes are a
/// programmer error: the caller routes them elsewhere.
@inline(never)
public func depthwiseCHWF32BandAVX512(size: Int, strideWidth: Int, _ band: DepthwiseCHWBandOperands) {
    switch (size, strideWidth) {
    case (3, 1): channelMajorBand(CHWFilter3Stride1.self, band)
    case (3, 2): channelMajorBand(CHWFilter3Stride2.self, band)
    case (5, 1): channelMajorBand(CHWFilter5Stride1.self, band)
    case (5, 2): channelMajorBand(CHWFilter5Stride2.self, band)
    default: preconditionFailure("no channel-major depthwise kernel for \(size)×\(size) stride \(strideWidth)")
    }
}

/// A square filter size and a stride along W fixed at compile time, so
/// that the tap loops unroll.
protocol CHWFilterShape {
    static var size: Int { get }
    static var strideWidth: Int { get }
}

enum CHWFilter3Stride1: CHWFilterShape {
    static var size: Int { 3 }
    static var strideWidth: Int { 1 }
}

enum CHWFilter3Stride2: CHWFilterShape {
    static var size: Int { 3 }
    static var strideWidth: Int { 2 }
}

enum CHWFilter5Stride1: CHWFilterShape {
    static var size: Int { 5 }
    static var strideWidth: Int { 1 }
}

enum CHWFilter5Stride2: CHWFilterShape {
    static var size: Int { 5 }
    static var strideWidth: Int { 2 }
}

/// Fills the band's scratch rows, then computes its output rows.
@inline(never)
func channelMajorBand<Shape: CHWFilterShape>(_ shape: Shape.Type, _ band: DepthwiseCHWBandOperands) {
    let scratchRows = (band.rowCount - 1) * band.strideHeight + Shape.size
    let firstPaddedRow = band.firstRow * band.strideHeight
    for r in 0..<scratchRows {
        let iy = firstPaddedRow + r - band.padTop
        let row = band.scratch + r * band.scratchRowFloats
        zeroFloats(row, count: band.scratchRowFloats)
        guard iy >= 0, iy < band.inputHeight else { continue }
        let source = band.input + iy * band.inputWidth
        if Shape.strideWidth == 1 {
            copyPaddedRow(source, band: band, into: row)
        } else {
            deinterleavePaddedRow(source, band: band, into: row)
        }
    }
    for local in 0..<band.rowCount {
        outputRow(
            Shape.self, band, scratchRow: band.scratch + local * band.strideHeight * band.scratchRowFloats,
            output: band.output + local * band.outputWidth)
    }
}

/// Writes zeros over `count` floats.
@inline(__always)
func zeroFloats(_ pointer: UnsafeMutablePointer<Float>, count: Int) {
    let zero = SIMD16<Float>(repeating: 0)
    var i = 0
    while i + 16 <= count {
        storeVector16(zero, pointer + i)
        i += 16
    }
    storeVector16(zero, pointer + i, count: count - i)
}

/// Copies the input columns a zeroed stride-1 scratch row holds, to
/// `padLeft` columns in.
@inline(__always)
func copyPaddedRow(
    _ source: UnsafePointer<Float>, band: DepthwiseCHWBandOperands, into row: UnsafeMutablePointer<Float>
) {
    let count = min(band.inputWidth, band.scratchRowFloats - band.padLeft)
    let destination = row + band.padLeft
    var i = 0
    while i + 16 <= count {
        storeVector16(loadVector16(source + i), destination + i)
        i += 16
    }
    if i < count {
        // Reads at most 15 floats past the row: within the next row or the
        // tensor's tail padding.
        storeVector16(loadVector16(source + i), destination + i, count: count - i)
    }
}

/// Copies the input columns a zeroed stride-2 scratch row holds, split by
/// the parity of their padded column `ix + padLeft`: padded column `2j`
/// goes to `row[j]`, `2j + 1` to `row[half + j]`.
@inline(__always)
func deinterleavePaddedRow(
    _ source: UnsafePointer<Float>, band: DepthwiseCHWBandOperands, into row: UnsafeMutablePointer<Float>
) {
    let half = band.scratchRowFloats / 2
    let count = min(band.inputWidth, 2 * half - band.padLeft)
    // Input columns 2k land in `evens + k`, columns 2k + 1 in `odds + k`.
    let evenPadding = band.padLeft % 2 == 0
    let evens = row + (evenPadding ? 0 : half) + band.padLeft / 2
    let odds = row + (evenPadding ? half : 0) + (band.padLeft + 1) / 2
    var k = 0
    while 2 * k + 32 <= count {
        let pair = UnsafeRawPointer(source + 2 * k).loadUnaligned(as: SIMD32<Float>.self)
        storeVector16(pair.evenHalf, evens + k)
        storeVector16(pair.oddHalf, odds + k)
        k += 16
    }
    while 2 * k + 1 < count {
        evens[k] = source[2 * k]
        odds[k] = source[2 * k + 1]
        k += 1
    }
    if 2 * k < count { evens[k] = source[2 * k] }
}

/// One output row from the scratch rows of its first filter row onwards,
/// 16 pixels at a time; the last vector stores only the row's pixels.
@inline(__always)
func outputRow<Shape: CHWFilterShape>(
    _ shape: Shape.Type, _ band: DepthwiseCHWBandOperands,
    scratchRow: UnsafeMutablePointer<Float>, output: UnsafeMutablePointer<Float>
) {
    let lower = SIMD16<Float>(repeating: band.lower), upper = SIMD16<Float>(repeating: band.upper)
    let bias = SIMD16<Float>(repeating: band.bias)
    let half = band.scratchRowFloats / 2
    let width = band.outputWidth
    var x = 0
    while x < width {
        var sum = bias
        for ky in 0..<Shape.size {
            let row = UnsafePointer(scratchRow + ky * band.scratchRowFloats + x)
            for kx in 0..<Shape.size {
                let tap: UnsafePointer<Float>
                if Shape.strideWidth == 1 {
                    tap = row + kx
                } else {
                    tap = row + (kx % 2 == 0 ? 0 : half) + kx / 2
                }
                let weight = SIMD16<Float>(repeating: band.weights[ky * Shape.size + kx])
                sum = sum.addingProduct(loadVector16(tap), weight)
            }
        }
        let result = clamp(sum, lower: lower, upper: upper)
        if x + 16 <= width {
            storeVector16(result, output + x)
        } else {
            storeVector16(result, output + x, count: width - x)
        }
        x += 16
    }
}
