// The depthwise kernels for the filters the models use (3×3 and 5×5 at
// stride 1 and 2, undilated), compiled once per shape so that the tap
// loops unroll and neighbouring pixels share their input loads. They cover
// the interior of each output row; `DepthwiseMicrokernels.swift` holds the
// general kernels for everything else.

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
/// or 2 without dilation (`Shape`). Within each segment of the row,
/// channels go 16 at a time in the outer loop (then 8, then one by one),
/// so a group's weights stay in L1 while blocks of 4 pixels sweep the
/// segment with 8 accumulators. Same tap order as the other depthwise
/// kernels, so the results are identical to theirs.
@inline(never)
func depthwiseF32Interior<Shape: DepthwiseInteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorRow) {
    // The row is swept in segments in which each channel group's input
    // fits in L1, so that a group's blocks of 4 pixels find the input
    // columns they share there. Groups share nothing (different channels):
    // the segment is sized by one group of up to 16 channels.
    let inputPerPixel = row.kernelRows * Shape.stride * min(row.channels, 16)  // floats
    let segmentPixels = max(4, depthwiseSegmentFloats / max(1, inputPerPixel) / 4 * 4)
    var first = 0
    while first < row.pixels {
        var segment = row
        segment.pixels = min(segmentPixels, row.pixels - first)
        segment.input += first * Shape.stride * row.channels
        segment.output += first * row.channels
        depthwiseF32InteriorSegment(Shape.self, segment)
        first += segmentPixels
    }
}

/// Floats of input one channel group reads in one interior segment: 16 KiB,
/// within any L1.
let depthwiseSegmentFloats = 4 * 1024

/// All channels of the pixels of `row` (one segment of an output row).
@inline(__always)
func depthwiseF32InteriorSegment<Shape: DepthwiseInteriorShape>(
    _ shape: Shape.Type, _ row: DepthwiseInteriorRow
) {
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
    let input = row.input + (firstPixel &* pixelStep &+ channel)
    /// Tap `(ky, kx)` of the four pixels.
    @inline(__always)
    func addTap(_ kx: Int, _ ky: Int) {
        let w = weights + (ky &* size &+ kx) &* row.weightTapStep
        let input = input + ky &* row.inputRowStep
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
    // Every filter row inside the input (the interior proper): loops of the
    // static filter size unroll, so that taps of neighbouring pixels that read
    // the same input share one load.
    if row.kernelRows == size {
        for kx in 0..<size { for ky in 0..<size { addTap(kx, ky) } }
    } else {
        for kx in 0..<size { for ky in 0..<row.kernelRows { addTap(kx, ky) } }
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
