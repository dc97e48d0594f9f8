// The depthwise kernels (depth multiplier 1, NHWC) for the interior of an output row, for
// square 3×3 and 5×5 filters at stride 1 and 2 without dilation, written once for every
// family: `out[p, c] = clamp(bias[c] + Σ_taps in[tap(p), c] · w[tap, c])`. Each output element
// starts from its bias and adds one multiply-add per valid tap in (kx, ky) order (filter
// columns outer, as XNNPACK takes them), so the results are identical in every family and to
// the other depthwise kernels. Blocks of 4 neighbouring pixels are computed together, with
// the filter shape fixed at compile time, so that their taps on the same input can share loads.

/// A square filter size and stride fixed at compile time, so that the interior kernels' tap
/// loops can unroll and neighbouring pixels share loads.
public protocol DepthwiseInteriorShape {
    static var size: Int { get }
    static var stride: Int { get }
}

public enum Depthwise3x3Stride1: DepthwiseInteriorShape {
    @inlinable public static var size: Int { 3 }
    @inlinable public static var stride: Int { 1 }
}

public enum Depthwise3x3Stride2: DepthwiseInteriorShape {
    @inlinable public static var size: Int { 3 }
    @inlinable public static var stride: Int { 2 }
}

public enum Depthwise5x5Stride1: DepthwiseInteriorShape {
    @inlinable public static var size: Int { 5 }
    @inlinable public static var stride: Int { 1 }
}

public enum Depthwise5x5Stride2: DepthwiseInteriorShape {
    @inlinable public static var size: Int { 5 }
    @inlinable public static var stride: Int { 2 }
}

/// Where one output row's interior lives, for the interior kernels. All offsets those kernels
/// form stay inside the input rows and the packed filter the caller validated, so their
/// wrapping operators cannot wrap; they keep the index arithmetic free of overflow branches
/// so that the tap loops unroll cleanly.
public struct DepthwiseInteriorRow {
    /// The first pixel's leftmost tap in the first valid filter row, at the row's first
    /// channel; the next filter row starts `inputRowStep` floats further, pixel `x`
    /// `x·stride·pixelStep`.
    public var input: UnsafePointer<Float>
    public var inputRowStep: Int
    /// Filter rows that land inside the input (all of them away from the top and bottom edges).
    public var kernelRows: Int
    /// Interior pixels in the row.
    public var pixels: Int
    /// The packed weights of the first valid filter row's leftmost tap, first channel; tap
    /// `(ky, kx)` after it is `(ky·size + kx)·weightTapStep` floats further.
    public var weights: UnsafePointer<Float>
    public var weightTapStep: Int
    /// `channels` biases, readable up to the next multiple of the family's widest group.
    public var bias: UnsafePointer<Float>
    /// The first pixel's first channel; pixel `x` is `x·pixelStep` floats further.
    public var output: UnsafeMutablePointer<Float>
    /// Channels the row computes, from the first: all of the tensor's, or one group of them
    /// (`pixelStep` the tensor's).
    public var channels: Int
    /// Floats from one pixel to the next in the input and the output: the tensor's channels.
    public var pixelStep: Int
    public var lower: Float
    public var upper: Float

    @inlinable
    public init(
        input: UnsafePointer<Float>, inputRowStep: Int, kernelRows: Int, pixels: Int,
        weights: UnsafePointer<Float>, weightTapStep: Int, bias: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, channels: Int, pixelStep: Int, lower: Float, upper: Float
    ) {
        self.input = input
        self.inputRowStep = inputRowStep
        self.kernelRows = kernelRows
        self.pixels = pixels
        self.weights = weights
        self.weightTapStep = weightTapStep
        self.bias = bias
        self.output = output
        self.channels = channels
        self.pixelStep = pixelStep
        self.lower = lower
        self.upper = upper
    }
}

/// Floats of input one channel group reads in one interior segment: 16 KiB, within any L1.
@inlinable public var depthwiseSegmentFloats: Int { 4 * 1024 }

/// The row in segments in which each channel group's input fits in L1, each passed to
/// `segment`: within a segment, a group's blocks of 4 pixels find the input columns they
/// share there, and across groups nothing is shared (different channels), so the segment is
/// sized by one group of up to `groupChannels` channels (the family's widest), not by all
/// channels.
@inlinable @inline(__always)
public func depthwiseInteriorSegments<Shape: DepthwiseInteriorShape>(
    _ shape: Shape.Type, _ row: DepthwiseInteriorRow, groupChannels: Int,
    _ segment: (DepthwiseInteriorRow) -> Void
) {
    let inputPerPixel = row.kernelRows * Shape.stride * min(row.channels, groupChannels)  // floats
    let segmentPixels = max(4, depthwiseSegmentFloats / max(1, inputPerPixel) / 4 * 4)
    var first = 0
    while first < row.pixels {
        var part = row
        part.pixels = min(segmentPixels, row.pixels - first)
        part.input += first * Shape.stride * row.pixelStep
        part.output += first * row.pixelStep
        segment(part)
        first += segmentPixels
    }
}

/// The interior pixels of one output row: the row in segments
/// (`depthwiseInteriorSegments`, sized for a group of `Two`), and in each segment the channels
/// two vectors at a time (`Two`), then one (`One`, the same vectors), then one vector of
/// `Narrow` where it is narrower and fits. Channels left over after those (fewer than a
/// `Narrow` vector: 28 = 16 + 8 + 4 in the AVX-512 family) are computed as the last `Narrow`
/// vector of the row's channels, which overlaps channels already written and writes them
/// again with the same values (each element's sum depends only on its own channel). A tensor
/// with fewer channels than a `Narrow` vector goes the same way on `Quarter`'s 4-lane vectors
/// (face_detection_full_range_sparse's 4-channel layer), and one channel at a time below 4.
/// Instantiate it with the family's own `KernelVectors` types from a non-generic or
/// shape-generic `@inline(never)` function of the family's module.
@inlinable @inline(__always)
public func depthwiseInterior<
    Shape: DepthwiseInteriorShape, Two: KernelVectors, One: KernelVectors, Narrow: KernelVectors,
    Quarter: KernelVectors
>(
    _ shape: Shape.Type, _ two: Two.Type, _ one: One.Type, _ narrow: Narrow.Type, _ quarter: Quarter.Type,
    _ row: DepthwiseInteriorRow
) {
    let width = One.Vector.scalarCount, narrowWidth = Narrow.Vector.scalarCount
    let quarterWidth = Quarter.Vector.scalarCount
    depthwiseInteriorSegments(Shape.self, row, groupChannels: 2 * width) { row in
        var c = 0
        while c + 2 * width <= row.channels {
            depthwiseInteriorSweep(Shape.self, Two.self, row, channel: c)
            c += 2 * width
        }
        if c + width <= row.channels {
            depthwiseInteriorSweep(Shape.self, One.self, row, channel: c)
            c += width
        }
        if narrowWidth < width && c + narrowWidth <= row.channels {
            depthwiseInteriorSweep(Shape.self, Narrow.self, row, channel: c)
            c += narrowWidth
        }
        if c < row.channels {
            if row.channels >= narrowWidth {
                depthwiseInteriorSweep(Shape.self, Narrow.self, row, channel: row.channels - narrowWidth)
            } else if row.channels >= quarterWidth {
                while c + quarterWidth <= row.channels {
                    depthwiseInteriorSweep(Shape.self, Quarter.self, row, channel: c)
                    c += quarterWidth
                }
                if c < row.channels {
                    depthwiseInteriorSweep(Shape.self, Quarter.self, row, channel: row.channels - quarterWidth)
                }
            } else {
                depthwiseInteriorScalarChannels(Shape.self, One.self, row, channels: c..<row.channels)
            }
        }
    }
}

/// The last channels (fewer than a vector) of every interior pixel of `row`, one at a time.
@inlinable @inline(never)
public func depthwiseInteriorScalarChannels<Shape: DepthwiseInteriorShape, Vectors: KernelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow, channels: Range<Int>
) {
    let walk = DepthwiseTapWalk(
        kernelRows: row.kernelRows, kernelColumns: Shape.size, inputRowStep: row.inputRowStep,
        inputTapStep: row.pixelStep, weightRowStep: Shape.size * row.weightTapStep,
        weightTapStep: row.weightTapStep)
    for x in 0..<row.pixels {
        depthwisePixelScalarChannels(
            Vectors.self, walk: walk, input: row.input + x * Shape.stride * row.pixelStep,
            weights: row.weights, bias: row.bias, output: row.output + x * row.pixelStep,
            channels: channels, lower: row.lower, upper: row.upper)
    }
}

/// Channels `channel ..< channel + Vectors.count·width` of every interior pixel of `row`:
/// whole blocks of 4 pixels, whose taps on the same input are loaded once, then one block of
/// the last 1...3 pixels. Instantiate it with the family's own `KernelVectors` type.
@inlinable @inline(never)
public func depthwiseInteriorSweep<Shape: DepthwiseInteriorShape, Vectors: KernelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow, channel: Int
) {
    let inputPixelStep = Shape.stride &* row.pixelStep
    var x = 0
    while x + 4 <= row.pixels {
        depthwiseInteriorBlock(
            Shape.self, Vectors.self, row, channel: channel, firstPixel: x, pixels: 4, inputPixelStep: inputPixelStep)
        x += 4
    }
    if x < row.pixels {
        depthwiseInteriorRemainder(Shape.self, Vectors.self, row, channel: channel, firstPixel: x)
    }
}

/// The last 1...3 interior pixels of a row, as a block of that many pixels (a 7 × 7 map's 3
/// interior pixels under a 5 × 5 filter, a 14 × 14 map's last 2), so that no pixel is
/// computed only to be dropped.
@inlinable @inline(never)
public func depthwiseInteriorRemainder<Shape: DepthwiseInteriorShape, Vectors: KernelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow,
    channel: Int, firstPixel: Int
) {
    let inputPixelStep = Shape.stride &* row.pixelStep
    switch row.pixels - firstPixel {
    case 1:
        depthwiseInteriorBlock(
            Shape.self, Vectors.self, row, channel: channel, firstPixel: firstPixel, pixels: 1,
            inputPixelStep: inputPixelStep)
    case 2:
        depthwiseInteriorBlock(
            Shape.self, Vectors.self, row, channel: channel, firstPixel: firstPixel, pixels: 2,
            inputPixelStep: inputPixelStep)
    default:
        depthwiseInteriorBlock(
            Shape.self, Vectors.self, row, channel: channel, firstPixel: firstPixel, pixels: 3,
            inputPixelStep: inputPixelStep)
    }
}

/// Pixels `firstPixel ..< firstPixel + pixels` of the row (`pixels` 1...4, a constant where
/// it is inlined, so that a block of fewer pixels has only their accumulators and loads),
/// `Vectors.count` vectors of channels from `channel`.
@inlinable @inline(__always)
public func depthwiseInteriorBlock<Shape: DepthwiseInteriorShape, Vectors: KernelVectors>(
    _ shape: Shape.Type, _ vectors: Vectors.Type, _ row: DepthwiseInteriorRow,
    channel: Int, firstPixel: Int, pixels: Int, inputPixelStep: Int
) {
    typealias V = Vectors.Vector
    let size = Shape.size, stride = Shape.stride, two = Vectors.count == 2
    let width = V.scalarCount
    let step = row.pixelStep
    let weights = row.weights + channel
    let b0 = loadVector(row.bias + channel, as: V.self)
    let b1 = two ? loadVector(row.bias + (channel &+ width), as: V.self) : b0
    var a00 = b0, a10 = b0, a20 = b0, a30 = b0
    var a01 = b1, a11 = b1, a21 = b1, a31 = b1
    let input = row.input + (firstPixel &* inputPixelStep &+ channel)
    /// Tap `(ky, kx)` of the four pixels.
    @inline(__always)
    func addTap(_ kx: Int, _ ky: Int) {
        let w = weights + (ky &* size &+ kx) &* row.weightTapStep
        let input = input + ky &* row.inputRowStep
        let o0 = kx &* step
        let o1 = (stride &+ kx) &* step
        let o2 = (2 &* stride &+ kx) &* step
        let o3 = (3 &* stride &+ kx) &* step
        let w0 = loadVector(w, as: V.self)
        a00 = Vectors.multiplyAdd(loadVector(input + o0, as: V.self), w0, a00)
        if pixels > 1 { a10 = Vectors.multiplyAdd(loadVector(input + o1, as: V.self), w0, a10) }
        if pixels > 2 { a20 = Vectors.multiplyAdd(loadVector(input + o2, as: V.self), w0, a20) }
        if pixels > 3 { a30 = Vectors.multiplyAdd(loadVector(input + o3, as: V.self), w0, a30) }
        if two {
            let w1 = loadVector(w + width, as: V.self)
            a01 = Vectors.multiplyAdd(loadVector(input + (o0 &+ width), as: V.self), w1, a01)
            if pixels > 1 { a11 = Vectors.multiplyAdd(loadVector(input + (o1 &+ width), as: V.self), w1, a11) }
            if pixels > 2 { a21 = Vectors.multiplyAdd(loadVector(input + (o2 &+ width), as: V.self), w1, a21) }
            if pixels > 3 { a31 = Vectors.multiplyAdd(loadVector(input + (o3 &+ width), as: V.self), w1, a31) }
        }
    }
    // Every filter row inside the input (the interior proper). The loop over filter rows
    // unrolls; LLVM keeps the one over filter columns. Written out for 3×3 at stride 1, so that
    // a tap reading the input a neighbouring pixel's tap read shares its load (those layers
    // 7–14 % faster on a Zen 3); at stride 2 and for 5×5 the unrolled code measured level or
    // slower (Benchmarks/JOURNAL.md, "Layer by layer against LiteRT").
    if row.kernelRows == size && size == 3 && stride == 1 {
        /// Filter column `kx` of every filter row.
        @inline(__always)
        func addColumn(_ kx: Int) { for ky in 0..<size { addTap(kx, ky) } }
        addColumn(0); addColumn(1); addColumn(2)
    } else if row.kernelRows == size {
        for kx in 0..<size { for ky in 0..<size { addTap(kx, ky) } }
    } else {
        for kx in 0..<size { for ky in 0..<row.kernelRows { addTap(kx, ky) } }
    }
    let lo = Vectors.broadcast(row.lower), hi = Vectors.broadcast(row.upper)
    var out = row.output + (firstPixel &* step &+ channel)
    storeVector(Vectors.clamp(a00, lower: lo, upper: hi), out)
    if two { storeVector(Vectors.clamp(a01, lower: lo, upper: hi), out + width) }
    guard pixels > 1 else { return }
    out += step
    storeVector(Vectors.clamp(a10, lower: lo, upper: hi), out)
    if two { storeVector(Vectors.clamp(a11, lower: lo, upper: hi), out + width) }
    guard pixels > 2 else { return }
    out += step
    storeVector(Vectors.clamp(a20, lower: lo, upper: hi), out)
    if two { storeVector(Vectors.clamp(a21, lower: lo, upper: hi), out + width) }
    guard pixels > 3 else { return }
    out += step
    storeVector(Vectors.clamp(a30, lower: lo, upper: hi), out)
    if two { storeVector(Vectors.clamp(a31, lower: lo, upper: hi), out + width) }
}
