// Microkernels of the depthwise convolution (depth multiplier 1, NHWC):
// `out[p, c] = clamp(bias[c] + Σ_taps in[tap(p), c] · w[tap, c])`.
//
// A kernel receives only the taps that land inside the input (padding is
// never read), walks them in ascending (ky, kx) order starting from the
// bias, and vectorises over channels. Each output element is therefore
// computed the same way whichever kernel variant or thread handles it.

/// The valid taps of one output pixel, as pointer steps.
struct DepthwiseTapWalk {
    /// Filter rows that land inside the input.
    var kernelRows: Int
    /// Filter columns that land inside the input.
    var kernelColumns: Int
    /// Floats between the input rows of consecutive filter rows (`dh·W·C`).
    var inputRowStep: Int
    /// Floats between the input pixels of consecutive filter columns (`dw·C`).
    var inputTapStep: Int
    /// Floats between consecutive filter rows in the packed weights.
    var weightRowStep: Int
    /// Floats between consecutive filter columns in the packed weights.
    var weightTapStep: Int
}

/// Up to 4 output pixels of one row whose taps all share the same valid
/// filter rows and all filter columns (the interior), for any filter,
/// stride and dilation: 16 channels at a time with 8 `SIMD8<Float>`
/// accumulators, then 8 at a time, then one by one.
/// - Parameters:
///   - input: the first valid tap of pixel 0, channel 0. Pixel `j` reads
///     from `input + j·inputPixelStep`; pixels past `pixels` (1...4) reuse
///     the last valid pixel and are not stored.
///   - weights: the packed weights of the first valid tap, channel 0.
///   - output: pixel 0, channel 0; pixel `j` at `output + j·channels`.
@inline(never)
func depthwiseF32Block4x16(
    walk: DepthwiseTapWalk,
    input: UnsafePointer<Float>, pixels: Int, inputPixelStep: Int,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    let p1 = pixels > 1 ? inputPixelStep : 0
    let p2 = pixels > 2 ? p1 + inputPixelStep : p1
    let p3 = pixels > 3 ? p2 + inputPixelStep : p2
    let lo = SIMD8<Float>(repeating: lower), hi = SIMD8<Float>(repeating: upper)
    var c = 0
    while c + 16 <= channels {
        var a00 = loadVector8(bias + c), a01 = loadVector8(bias + c + 8)
        var a10 = a00, a11 = a01, a20 = a00, a21 = a01, a30 = a00, a31 = a01
        var row = input + c, weightRow = weights + c
        for _ in 0..<walk.kernelRows {
            var tap = row, w = weightRow
            for _ in 0..<walk.kernelColumns {
                let w0 = loadVector8(w), w1 = loadVector8(w + 8)
                a00 = multiplyAdd(loadVector8(tap), w0, a00)
                a01 = multiplyAdd(loadVector8(tap + 8), w1, a01)
                a10 = multiplyAdd(loadVector8(tap + p1), w0, a10)
                a11 = multiplyAdd(loadVector8(tap + p1 + 8), w1, a11)
                a20 = multiplyAdd(loadVector8(tap + p2), w0, a20)
                a21 = multiplyAdd(loadVector8(tap + p2 + 8), w1, a21)
                a30 = multiplyAdd(loadVector8(tap + p3), w0, a30)
                a31 = multiplyAdd(loadVector8(tap + p3 + 8), w1, a31)
                tap += walk.inputTapStep
                w += walk.weightTapStep
            }
            row += walk.inputRowStep
            weightRow += walk.weightRowStep
        }
        let out = output + c
        storeVector8(clamp(a00, lower: lo, upper: hi), out)
        storeVector8(clamp(a01, lower: lo, upper: hi), out + 8)
        if pixels > 1 {
            storeVector8(clamp(a10, lower: lo, upper: hi), out + channels)
            storeVector8(clamp(a11, lower: lo, upper: hi), out + channels + 8)
        }
        if pixels > 2 {
            storeVector8(clamp(a20, lower: lo, upper: hi), out + 2 * channels)
            storeVector8(clamp(a21, lower: lo, upper: hi), out + 2 * channels + 8)
        }
        if pixels > 3 {
            storeVector8(clamp(a30, lower: lo, upper: hi), out + 3 * channels)
            storeVector8(clamp(a31, lower: lo, upper: hi), out + 3 * channels + 8)
        }
        c += 16
    }
    if c + 8 <= channels {
        var a0 = loadVector8(bias + c)
        var a1 = a0, a2 = a0, a3 = a0
        var row = input + c, weightRow = weights + c
        for _ in 0..<walk.kernelRows {
            var tap = row, w = weightRow
            for _ in 0..<walk.kernelColumns {
                let w0 = loadVector8(w)
                a0 = multiplyAdd(loadVector8(tap), w0, a0)
                a1 = multiplyAdd(loadVector8(tap + p1), w0, a1)
                a2 = multiplyAdd(loadVector8(tap + p2), w0, a2)
                a3 = multiplyAdd(loadVector8(tap + p3), w0, a3)
                tap += walk.inputTapStep
                w += walk.weightTapStep
            }
            row += walk.inputRowStep
            weightRow += walk.weightRowStep
        }
        let out = output + c
        storeVector8(clamp(a0, lower: lo, upper: hi), out)
        if pixels > 1 { storeVector8(clamp(a1, lower: lo, upper: hi), out + channels) }
        if pixels > 2 { storeVector8(clamp(a2, lower: lo, upper: hi), out + 2 * channels) }
        if pixels > 3 { storeVector8(clamp(a3, lower: lo, upper: hi), out + 3 * channels) }
        c += 8
    }
    if c < channels {
        for j in 0..<pixels {
            depthwiseF32ScalarChannels(
                walk: walk, input: input + j * inputPixelStep, weights: weights, bias: bias,
                output: output + j * channels, channels: c..<channels, lower: lower, upper: upper)
        }
    }
}

/// One output pixel with any valid-tap window (the border), 32 channels at
/// a time with 4 `SIMD8<Float>` accumulators, then 8 at a time, then one
/// by one.
/// - Parameters:
///   - input: the pixel's first valid tap, channel 0.
///   - weights: the packed weights of that tap, channel 0.
///   - output: the pixel's channel 0.
@inline(never)
func depthwiseF32Pixel1x32(
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    let lo = SIMD8<Float>(repeating: lower), hi = SIMD8<Float>(repeating: upper)
    var c = 0
    while c + 32 <= channels {
        var a0 = loadVector8(bias + c), a1 = loadVector8(bias + c + 8)
        var a2 = loadVector8(bias + c + 16), a3 = loadVector8(bias + c + 24)
        var row = input + c, weightRow = weights + c
        for _ in 0..<walk.kernelRows {
            var tap = row, w = weightRow
            for _ in 0..<walk.kernelColumns {
                a0 = multiplyAdd(loadVector8(tap), loadVector8(w), a0)
                a1 = multiplyAdd(loadVector8(tap + 8), loadVector8(w + 8), a1)
                a2 = multiplyAdd(loadVector8(tap + 16), loadVector8(w + 16), a2)
                a3 = multiplyAdd(loadVector8(tap + 24), loadVector8(w + 24), a3)
                tap += walk.inputTapStep
                w += walk.weightTapStep
            }
            row += walk.inputRowStep
            weightRow += walk.weightRowStep
        }
        storeVector8(clamp(a0, lower: lo, upper: hi), output + c)
        storeVector8(clamp(a1, lower: lo, upper: hi), output + c + 8)
        storeVector8(clamp(a2, lower: lo, upper: hi), output + c + 16)
        storeVector8(clamp(a3, lower: lo, upper: hi), output + c + 24)
        c += 32
    }
    while c + 8 <= channels {
        var a0 = loadVector8(bias + c)
        var row = input + c, weightRow = weights + c
        for _ in 0..<walk.kernelRows {
            var tap = row, w = weightRow
            for _ in 0..<walk.kernelColumns {
                a0 = multiplyAdd(loadVector8(tap), loadVector8(w), a0)
                tap += walk.inputTapStep
                w += walk.weightTapStep
            }
            row += walk.inputRowStep
            weightRow += walk.weightRowStep
        }
        storeVector8(clamp(a0, lower: lo, upper: hi), output + c)
        c += 8
    }
    if c < channels {
        depthwiseF32ScalarChannels(
            walk: walk, input: input, weights: weights, bias: bias,
            output: output, channels: c..<channels, lower: lower, upper: upper)
    }
}

/// The channels in `channels` (fewer than 8, past the last whole vector) of
/// one output pixel, one at a time. Same parameters as `depthwiseF32Pixel1x32`.
@inline(never)
func depthwiseF32ScalarChannels(
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, channels: Range<Int>,
    lower: Float, upper: Float
) {
    for c in channels {
        var sum = bias[c]
        var row = input + c, weightRow = weights + c
        for _ in 0..<walk.kernelRows {
            var tap = row, w = weightRow
            for _ in 0..<walk.kernelColumns {
                sum = multiplyAdd(tap.pointee, w.pointee, sum)
                tap += walk.inputTapStep
                w += walk.weightTapStep
            }
            row += walk.inputRowStep
            weightRow += walk.weightRowStep
        }
        output[c] = clamp(sum, lower: lower, upper: upper)
    }
}

/// A square filter size and stride fixed at compile time, so that the
/// interior kernels' tap loops unroll and neighbouring pixels share loads.
protocol DepthwiseInteriorShape {
    static var size: Int { get }
    static var stride: Int { get }
}

enum Depthwise3x3Stride1: DepthwiseInteriorShape {
    static var size: Int { 3 }
    static var stride: Int { 1 }
}

enum Depthwise3x3Stride2: DepthwiseInteriorShape {
    static var size: Int { 3 }
    static var stride: Int { 2 }
}

enum Depthwise5x5Stride1: DepthwiseInteriorShape {
    static var size: Int { 5 }
    static var stride: Int { 1 }
}

enum Depthwise5x5Stride2: DepthwiseInteriorShape {
    static var size: Int { 5 }
    static var stride: Int { 2 }
}

/// Channels per step of the interior kernels: 8·`count`, fixed at compile time.
protocol DepthwiseChannelVectors {
    static var count: Int { get }
}

enum DepthwiseOneVector: DepthwiseChannelVectors {
    static var count: Int { 1 }
}

enum DepthwiseTwoVectors: DepthwiseChannelVectors {
    static var count: Int { 2 }
}

/// Where one output row's interior lives, for the interior kernels. All
/// offsets those kernels form stay inside the input rows and the packed
/// filter the caller validated, so their wrapping operators cannot wrap;
/// they keep the index arithmetic free of overflow branches so that the
/// tap loops unroll cleanly.
struct DepthwiseInteriorRow {
    /// The first pixel's leftmost tap in the first valid filter row,
    /// channel 0; the next filter row starts `inputRowStep` floats further,
    /// pixel `x` `x·stride·channels`.
    var input: UnsafePointer<Float>
    var inputRowStep: Int
    /// Filter rows that land inside the input (all of them away from the
    /// top and bottom edges).
    var kernelRows: Int
    /// Interior pixels in the row.
    var pixels: Int
    /// The packed weights of the first valid filter row's leftmost tap,
    /// channel 0; tap `(ky, kx)` after it is `(ky·size + kx)·weightTapStep`
    /// floats further.
    var weights: UnsafePointer<Float>
    var weightTapStep: Int
    var bias: UnsafePointer<Float>
    /// The first pixel's channel 0; pixel `x` is `x·channels` floats further.
    var output: UnsafeMutablePointer<Float>
    var channels: Int
    var lower: Float
    var upper: Float
}

/// The interior pixels (those whose filter columns all land inside the
/// input) of one output row, for a square 3×3 or 5×5 filter at stride 1
/// or 2 without dilation (`Shape`). Channels go 16 at a time in the outer loop (then 8,
/// then one by one), so a group's weights stay in L1 while blocks of 4
/// pixels sweep the row with 8 accumulators. Same tap order as the other
/// depthwise kernels, so the results are identical to theirs.
@inline(never)
func depthwiseF32Interior<Shape: DepthwiseInteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorRow) {
    var c = 0
    while c + 16 <= row.channels {
        depthwiseF32InteriorSweep(Shape.self, DepthwiseTwoVectors.self, row, channel: c)
        c += 16
    }
    if c + 8 <= row.channels {
        depthwiseF32InteriorSweep(Shape.self, DepthwiseOneVector.self, row, channel: c)
        c += 8
    }
    if c < row.channels {
        let walk = DepthwiseTapWalk(
            kernelRows: row.kernelRows, kernelColumns: Shape.size, inputRowStep: row.inputRowStep,
            inputTapStep: row.channels, weightRowStep: Shape.size * row.weightTapStep,
            weightTapStep: row.weightTapStep)
        for x in 0..<row.pixels {
            depthwiseF32ScalarChannels(
                walk: walk, input: row.input + x * Shape.stride * row.channels,
                weights: row.weights, bias: row.bias, output: row.output + x * row.channels,
                channels: c..<row.channels, lower: row.lower, upper: row.upper)
        }
    }
}

/// Channels `channel ..< channel + 8·Vectors.count` of every interior
/// pixel: whole blocks of 4 pixels, whose taps on the same input are
/// loaded once, then one block of the last 1...3 pixels.
@inline(never)
func depthwiseF32InteriorSweep<Shape: DepthwiseInteriorShape, Vectors: DepthwiseChannelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow, channel: Int
) {
    let pixelStep = Shape.stride &* row.channels
    var x = 0
    while x + 4 <= row.pixels {
        depthwiseF32InteriorBlock(
            Shape.self, Vectors.self, row, channel: channel, firstPixel: x, j1: 1, j2: 2, j3: 3,
            stored: 4, pixelStep: pixelStep)
        x += 4
    }
    if x < row.pixels {
        depthwiseF32InteriorRemainder(Shape.self, Vectors.self, row, channel: channel, firstPixel: x)
    }
}

/// The last 1...3 interior pixels of a row, as a block of 4 whose missing
/// pixels repeat the last one and are not stored.
@inline(never)
func depthwiseF32InteriorRemainder<Shape: DepthwiseInteriorShape, Vectors: DepthwiseChannelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow,
    channel: Int, firstPixel: Int
) {
    let last = row.pixels - firstPixel - 1
    depthwiseF32InteriorBlock(
        Shape.self, Vectors.self, row, channel: channel, firstPixel: firstPixel,
        j1: min(1, last), j2: min(2, last), j3: min(3, last), stored: last + 1,
        pixelStep: Shape.stride &* row.channels)
}

/// Pixels `firstPixel + 0, j1, j2, j3` of the row, 8·`Vectors.count`
/// channels from `channel`, of which the first `stored` are written.
@inline(__always)
func depthwiseF32InteriorBlock<Shape: DepthwiseInteriorShape, Vectors: DepthwiseChannelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow,
    channel: Int, firstPixel: Int, j1: Int, j2: Int, j3: Int, stored: Int, pixelStep: Int
) {
    let size = Shape.size, stride = Shape.stride, two = Vectors.count == 2
    let step = row.channels
    let weights = row.weights + channel
    let b0 = loadVector8(row.bias + channel)
    let b1 = two ? loadVector8(row.bias + (channel &+ 8)) : b0
    var a00 = b0, a10 = b0, a20 = b0, a30 = b0
    var a01 = b1, a11 = b1, a21 = b1, a31 = b1
    var input = row.input + (firstPixel &* pixelStep &+ channel)
    for ky in 0..<row.kernelRows {
        for kx in 0..<size {
            let w = weights + (ky &* size &+ kx) &* row.weightTapStep
            let o0 = kx &* step
            let o1 = (j1 &* stride &+ kx) &* step
            let o2 = (j2 &* stride &+ kx) &* step
            let o3 = (j3 &* stride &+ kx) &* step
            let w0 = loadVector8(w)
            a00 = multiplyAdd(loadVector8(input + o0), w0, a00)
            a10 = multiplyAdd(loadVector8(input + o1), w0, a10)
            a20 = multiplyAdd(loadVector8(input + o2), w0, a20)
            a30 = multiplyAdd(loadVector8(input + o3), w0, a30)
            if two {
                let w1 = loadVector8(w + 8)
                a01 = multiplyAdd(loadVector8(input + (o0 &+ 8)), w1, a01)
                a11 = multiplyAdd(loadVector8(input + (o1 &+ 8)), w1, a11)
                a21 = multiplyAdd(loadVector8(input + (o2 &+ 8)), w1, a21)
                a31 = multiplyAdd(loadVector8(input + (o3 &+ 8)), w1, a31)
            }
        }
        input += row.inputRowStep
    }
    let lo = SIMD8<Float>(repeating: row.lower), hi = SIMD8<Float>(repeating: row.upper)
    var out = row.output + (firstPixel &* step &+ channel)
    storeVector8(clamp(a00, lower: lo, upper: hi), out)
    if two { storeVector8(clamp(a01, lower: lo, upper: hi), out + 8) }
    guard stored > 1 else { return }
    out += step
    storeVector8(clamp(a10, lower: lo, upper: hi), out)
    if two { storeVector8(clamp(a11, lower: lo, upper: hi), out + 8) }
    guard stored > 2 else { return }
    out += step
    storeVector8(clamp(a20, lower: lo, upper: hi), out)
    if two { storeVector8(clamp(a21, lower: lo, upper: hi), out + 8) }
    guard stored > 3 else { return }
    out += step
    storeVector8(clamp(a30, lower: lo, upper: hi), out)
    if two { storeVector8(clamp(a31, lower: lo, upper: hi), out + 8) }
}
