// The 512-bit depthwise kernels (depth multiplier 1, NHWC) for the interior
// of an output row, for square 3×3 and 5×5 filters at stride 1 and 2
// without dilation: `out[p, c] = clamp(bias[c] + Σ_taps in[tap(p), c] · w[tap, c])`.
//
// Like the baseline interior kernels in
// Kernels/Microkernels/DepthwiseInteriorKernels.swift, each output element
// starts from its bias and adds one fused multiply-add per valid tap in
// (kx, ky) order (filter columns outer, as XNNPACK takes them), so the
// results are bit-identical to theirs and to XNNPACK's.
// Channels go 32 at a time (two zmm vectors), then 16, then 8 (one ymm
// vector), then one by one; blocks of 4 neighbouring pixels share their
// input loads.

/// Where one output row's interior lives. All offsets the kernels form
/// stay inside the input rows and the packed filter the caller validated,
/// so their wrapping operators cannot wrap; they keep the index arithmetic
/// free of overflow branches so that the tap loops unroll cleanly.
public struct DepthwiseInteriorOperands {
    /// The first pixel's leftmost tap in the first valid filter row,
    /// channel 0; the next filter row starts `inputRowStep` floats further,
    /// pixel `x` `x·stride·channels`.
    public var input: UnsafePointer<Float>
    public var inputRowStep: Int
    /// Filter rows that land inside the input.
    public var kernelRows: Int
    /// Interior pixels in the row.
    public var pixels: Int
    /// The packed weights of the first valid filter row's leftmost tap,
    /// channel 0; tap `(ky, kx)` after it is `(ky·size + kx)·weightTapStep`
    /// floats further.
    public var weights: UnsafePointer<Float>
    public var weightTapStep: Int
    /// `channels` biases, readable up to the next multiple of 16.
    public var bias: UnsafePointer<Float>
    /// The first pixel's channel 0; pixel `x` is `x·channels` floats further.
    public var output: UnsafeMutablePointer<Float>
    public var channels: Int
    public var lower: Float
    public var upper: Float

    public init(
        input: UnsafePointer<Float>, inputRowStep: Int, kernelRows: Int, pixels: Int,
        weights: UnsafePointer<Float>, weightTapStep: Int, bias: UnsafePointer<Float>,
        output: UnsafeMutablePointer<Float>, channels: Int, lower: Float, upper: Float
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
        self.lower = lower
        self.upper = upper
    }
}

/// The interior pixels of one output row for a `size × size` filter
/// (3 or 5) at `stride` (1 or 2), undilated. Other shapes are a programmer
/// error: the caller routes them to the general kernels.
@inline(never)
public func depthwiseF32InteriorAVX512(size: Int, stride: Int, _ row: DepthwiseInteriorOperands) {
    switch (size, stride) {
    case (3, 1): interior(Shape3x3Stride1.self, row)
    case (3, 2): interior(Shape3x3Stride2.self, row)
    case (5, 1): interior(Shape5x5Stride1.self, row)
    case (5, 2): interior(Shape5x5Stride2.self, row)
    default: preconditionFailure("no AVX-512 depthwise interior kernel for \(size)×\(size) stride \(stride)")
    }
}

/// A square filter size and stride fixed at compile time, so that the tap
/// loops unroll and neighbouring pixels share loads.
protocol InteriorShape {
    static var size: Int { get }
    static var stride: Int { get }
}

enum Shape3x3Stride1: InteriorShape {
    static var size: Int { 3 }
    static var stride: Int { 1 }
}

enum Shape3x3Stride2: InteriorShape {
    static var size: Int { 3 }
    static var stride: Int { 2 }
}

enum Shape5x5Stride1: InteriorShape {
    static var size: Int { 5 }
    static var stride: Int { 1 }
}

enum Shape5x5Stride2: InteriorShape {
    static var size: Int { 5 }
    static var stride: Int { 2 }
}

/// A group of channels handled together: `count` vectors of `Vector`.
protocol ChannelGroup {
    associatedtype Vector: SIMD where Vector.Scalar == Float
    static var count: Int { get }
    /// The vector `clamp` (a requirement, so that it is the concrete one).
    static func clamp(_ x: Vector, lower: Vector, upper: Vector) -> Vector
}

/// Channel groups of `SIMD16<Float>` vectors.
protocol Vector16Group: ChannelGroup where Vector == SIMD16<Float> {}

extension Vector16Group {
    @inline(__always)
    static func clamp(_ x: Vector, lower: Vector, upper: Vector) -> Vector {
        KernelsAVX512.clamp(x, lower: lower, upper: upper)
    }
}

/// 32 channels: two zmm vectors.
enum TwoVectors16: Vector16Group {
    static var count: Int { 2 }
}

/// 16 channels: one zmm vector.
enum OneVector16: Vector16Group {
    static var count: Int { 1 }
}

/// 8 channels: one ymm vector.
enum OneVector8: ChannelGroup {
    typealias Vector = SIMD8<Float>
    static var count: Int { 1 }

    @inline(__always)
    static func clamp(_ x: Vector, lower: Vector, upper: Vector) -> Vector {
        KernelsAVX512.clamp(x, lower: lower, upper: upper)
    }
}

/// Floats of input one channel group reads in one interior segment:
/// 16 KiB, within any L1.
let segmentFloats = 4 * 1024

/// The row in segments in which each channel group's input fits in L1:
/// within a segment, a group's blocks of 4 pixels share the input columns
/// they overlap on, and across groups nothing is shared (different
/// channels), so the segment is sized by one group (up to 32 channels),
/// not by all channels.
@inline(never)
func interior<Shape: InteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorOperands) {
    let inputPerPixel = row.kernelRows * Shape.stride * min(row.channels, 32)  // floats
    let segmentPixels = max(4, segmentFloats / max(1, inputPerPixel) / 4 * 4)
    var first = 0
    while first < row.pixels {
        var segment = row
        segment.pixels = min(segmentPixels, row.pixels - first)
        segment.input += first * Shape.stride * row.channels
        segment.output += first * row.channels
        interiorSegment(Shape.self, segment)
        first += segmentPixels
    }
}

/// All channels of the pixels of `row` (one segment of an output row).
@inline(__always)
func interiorSegment<Shape: InteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorOperands) {
    var c = 0
    while c + 32 <= row.channels {
        sweep(Shape.self, TwoVectors16.self, row, channel: c)
        c += 32
    }
    if c + 16 <= row.channels {
        sweep(Shape.self, OneVector16.self, row, channel: c)
        c += 16
    }
    if c + 8 <= row.channels {
        sweep(Shape.self, OneVector8.self, row, channel: c)
        c += 8
    }
    if c < row.channels {
        scalarChannels(Shape.self, row, channels: c..<row.channels)
    }
}

/// Channels `channel ..< channel + Group.count·width` of every pixel: whole
/// blocks of 4 pixels, then one block of the last 1...3 pixels, whose
/// missing pixels repeat the last one and are not stored.
@inline(never)
func sweep<Shape: InteriorShape, Group: ChannelGroup>(
    _ shape: Shape.Type, _ group: Group.Type, _ row: DepthwiseInteriorOperands, channel: Int
) {
    var x = 0
    while x + 4 <= row.pixels {
        block(Shape.self, Group.self, row, channel: channel, firstPixel: x, j1: 1, j2: 2, j3: 3, stored: 4)
        x += 4
    }
    if x < row.pixels {
        let last = row.pixels - x - 1
        block(
            Shape.self, Group.self, row, channel: channel, firstPixel: x,
            j1: min(1, last), j2: min(2, last), j3: min(3, last), stored: last + 1)
    }
}

@inline(__always)
func load<V: SIMD>(_ pointer: UnsafePointer<Float>, as: V.Type) -> V where V.Scalar == Float {
    UnsafeRawPointer(pointer).loadUnaligned(as: V.self)
}

@inline(__always)
func store<V: SIMD>(_ value: V, _ pointer: UnsafeMutablePointer<Float>) where V.Scalar == Float {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: V.self)
}

/// Pixels `firstPixel + 0, j1, j2, j3` of the row, `Group.count` vectors of
/// channels from `channel`, of which the first `stored` pixels are written.
@inline(__always)
func block<Shape: InteriorShape, Group: ChannelGroup>(
    _ shape: Shape.Type, _ group: Group.Type, _ row: DepthwiseInteriorOperands,
    channel: Int, firstPixel: Int, j1: Int, j2: Int, j3: Int, stored: Int
) {
    typealias V = Group.Vector
    let size = Shape.size, stride = Shape.stride, two = Group.count == 2
    let width = V.scalarCount
    let step = row.channels
    let weights = row.weights + channel
    let b0 = load(row.bias + channel, as: V.self)
    let b1 = two ? load(row.bias + (channel &+ width), as: V.self) : b0
    var a00 = b0, a10 = b0, a20 = b0, a30 = b0
    var a01 = b1, a11 = b1, a21 = b1, a31 = b1
    let input = row.input + (firstPixel &* stride &* step &+ channel)
    /// Tap `(ky, kx)` of the four pixels.
    @inline(__always)
    func addTap(_ kx: Int, _ ky: Int) {
        let w = weights + (ky &* size &+ kx) &* row.weightTapStep
        let input = input + ky &* row.inputRowStep
        let o0 = kx &* step
        let o1 = (j1 &* stride &+ kx) &* step
        let o2 = (j2 &* stride &+ kx) &* step
        let o3 = (j3 &* stride &+ kx) &* step
        let w0 = load(w, as: V.self)
        a00 = a00.addingProduct(load(input + o0, as: V.self), w0)
        a10 = a10.addingProduct(load(input + o1, as: V.self), w0)
        a20 = a20.addingProduct(load(input + o2, as: V.self), w0)
        a30 = a30.addingProduct(load(input + o3, as: V.self), w0)
        if two {
            let w1 = load(w + width, as: V.self)
            a01 = a01.addingProduct(load(input + (o0 &+ width), as: V.self), w1)
            a11 = a11.addingProduct(load(input + (o1 &+ width), as: V.self), w1)
            a21 = a21.addingProduct(load(input + (o2 &+ width), as: V.self), w1)
            a31 = a31.addingProduct(load(input + (o3 &+ width), as: V.self), w1)
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
    let lo = V(repeating: row.lower), hi = V(repeating: row.upper)
    var out = row.output + (firstPixel &* step &+ channel)
    store(Group.clamp(a00, lower: lo, upper: hi), out)
    if two { store(Group.clamp(a01, lower: lo, upper: hi), out + width) }
    guard stored > 1 else { return }
    out += step
    store(Group.clamp(a10, lower: lo, upper: hi), out)
    if two { store(Group.clamp(a11, lower: lo, upper: hi), out + width) }
    guard stored > 2 else { return }
    out += step
    store(Group.clamp(a20, lower: lo, upper: hi), out)
    if two { store(Group.clamp(a21, lower: lo, upper: hi), out + width) }
    guard stored > 3 else { return }
    out += step
    store(Group.clamp(a30, lower: lo, upper: hi), out)
    if two { store(Group.clamp(a31, lower: lo, upper: hi), out + width) }
}

/// The last channels (fewer than 8) of every pixel, one at a time.
@inline(never)
func scalarChannels<Shape: InteriorShape>(
    _ shape: Shape.Type, _ row: DepthwiseInteriorOperands, channels: Range<Int>
) {
    let size = Shape.size, step = row.channels
    for x in 0..<row.pixels {
        let pixel = row.input + x &* Shape.stride &* step
        for c in channels {
            var sum = row.bias[c]
            let input = pixel + c
            for kx in 0..<size {
                for ky in 0..<row.kernelRows {
                    let w = row.weights[(ky &* size &+ kx) &* row.weightTapStep &+ c]
                    sum = sum.addingProduct(input[ky &* row.inputRowStep &+ kx &* step], w)
                }
            }
            row.output[x &* step &+ c] = clamp(sum, lower: row.lower, upper: row.upper)
        }
    }
}

/// The valid taps of one output pixel, as pointer steps (Kernels'
/// `DepthwiseTapWalk`).
public struct DepthwiseTaps {
    /// Filter rows that land inside the input.
    public var kernelRows: Int
    /// Filter columns that land inside the input.
    public var kernelColumns: Int
    /// Floats between the input rows of consecutive filter rows.
    public var inputRowStep: Int
    /// Floats between the input pixels of consecutive filter columns.
    public var inputTapStep: Int
    /// Floats between consecutive filter rows in the packed weights.
    public var weightRowStep: Int
    /// Floats between consecutive filter columns in the packed weights.
    public var weightTapStep: Int

    public init(
        kernelRows: Int, kernelColumns: Int, inputRowStep: Int, inputTapStep: Int,
        weightRowStep: Int, weightTapStep: Int
    ) {
        self.kernelRows = kernelRows
        self.kernelColumns = kernelColumns
        self.inputRowStep = inputRowStep
        self.inputTapStep = inputTapStep
        self.weightRowStep = weightRowStep
        self.weightTapStep = weightTapStep
    }
}

/// One output pixel with any window of valid taps (the border of a row):
/// 64 channels at a time with 4 `SIMD16<Float>` accumulators, then 16,
/// then 8, then one by one. Taps in (kx, ky) order from the bias, as
/// every depthwise kernel sums them.
/// - Parameters:
///   - input: the pixel's first valid tap, channel 0.
///   - weights: the packed weights of that tap, channel 0.
///   - bias: `channels` biases.
///   - output: the pixel's channel 0.
@inline(never)
public func depthwiseF32PixelAVX512(
    taps: DepthwiseTaps, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    let lo16 = SIMD16<Float>(repeating: lower), hi16 = SIMD16<Float>(repeating: upper)
    var c = 0
    while c + 64 <= channels {
        var a0 = loadVector16(bias + c), a1 = loadVector16(bias + c + 16)
        var a2 = loadVector16(bias + c + 32), a3 = loadVector16(bias + c + 48)
        var column = input + c, weightColumn = weights + c
        for _ in 0..<taps.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<taps.kernelRows {
                a0 = a0.addingProduct(loadVector16(tap), loadVector16(w))
                a1 = a1.addingProduct(loadVector16(tap + 16), loadVector16(w + 16))
                a2 = a2.addingProduct(loadVector16(tap + 32), loadVector16(w + 32))
                a3 = a3.addingProduct(loadVector16(tap + 48), loadVector16(w + 48))
                tap += taps.inputRowStep
                w += taps.weightRowStep
            }
            column += taps.inputTapStep
            weightColumn += taps.weightTapStep
        }
        storeVector16(clamp(a0, lower: lo16, upper: hi16), output + c)
        storeVector16(clamp(a1, lower: lo16, upper: hi16), output + c + 16)
        storeVector16(clamp(a2, lower: lo16, upper: hi16), output + c + 32)
        storeVector16(clamp(a3, lower: lo16, upper: hi16), output + c + 48)
        c += 64
    }
    while c + 16 <= channels {
        var a0 = loadVector16(bias + c)
        var column = input + c, weightColumn = weights + c
        for _ in 0..<taps.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<taps.kernelRows {
                a0 = a0.addingProduct(loadVector16(tap), loadVector16(w))
                tap += taps.inputRowStep
                w += taps.weightRowStep
            }
            column += taps.inputTapStep
            weightColumn += taps.weightTapStep
        }
        storeVector16(clamp(a0, lower: lo16, upper: hi16), output + c)
        c += 16
    }
    if c + 8 <= channels {
        var a0 = loadVector8(bias + c)
        var column = input + c, weightColumn = weights + c
        for _ in 0..<taps.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<taps.kernelRows {
                a0 = a0.addingProduct(loadVector8(tap), loadVector8(w))
                tap += taps.inputRowStep
                w += taps.weightRowStep
            }
            column += taps.inputTapStep
            weightColumn += taps.weightTapStep
        }
        storeVector8(clamp(a0, lower: SIMD8(repeating: lower), upper: SIMD8(repeating: upper)), output + c)
        c += 8
    }
    while c < channels {
        var sum = bias[c]
        var column = input + c, weightColumn = weights + c
        for _ in 0..<taps.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<taps.kernelRows {
                sum = sum.addingProduct(tap.pointee, w.pointee)
                tap += taps.inputRowStep
                w += taps.weightRowStep
            }
            column += taps.inputTapStep
            weightColumn += taps.weightTapStep
        }
        output[c] = clamp(sum, lower: lower, upper: upper)
        c += 1
    }
}
