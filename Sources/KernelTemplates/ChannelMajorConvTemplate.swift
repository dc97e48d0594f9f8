// The microkernel of Kernels' `Conv2DToChannelMajor`, written once for every family: a
// convolution with few input channels (a model's 3-channel stem) that reads a channel-last
// image and writes a channel-major `[N][Cout][P]` output.
//
// One call computes one tile of up to 64 consecutive output pixels for every output channel
// from the tile's taps: K = KH·KW·Cin rows of 64 floats, row k holding tap k of each pixel
// (zero where the tap falls in the padding). Each output is its bias plus one multiply-add per
// tap, in ascending tap order, then clamped: the same operations, in the same order, as the
// GEMM microkernels give the channel-last convolution (which also adds `0 · w` for a tap in
// the padding), so the two agree bit for bit. Six output channels by a group of vectors of pixels are
// accumulated at a time: per tap, the group's loads and six broadcasts feed six multiply-adds
// per vector. With AVX-512 the group is the whole tile (four zmm vectors, 24 accumulators);
// with AVX2 it is two ymm vectors (12 accumulators, as the 6×16 GEMM tile), four groups per
// tile.

/// Pixels per tile: the length of every tap row.
public let channelMajorConvTilePixels = 64

/// One tile of `Conv2DToChannelMajor`'s fast kernel: `output[c·channelStride + i] =
/// clamp(bias[c] + Σ_k taps[k·64 + i] · weights[c·K + k], lower, upper)` for every output
/// channel c and pixel i < `pixels` (1...64).
public struct ChannelMajorConvTile {
    /// `[K][64]`: row k holds tap k of each of the tile's pixels.
    public var taps: UnsafePointer<Float>
    /// K, at least 1.
    public var tapCount: Int
    /// `[Cout][K]`, the filter in `(ky, kx, ic)` order per channel.
    public var weights: UnsafePointer<Float>
    /// `[Cout]`.
    public var bias: UnsafePointer<Float>
    public var outputChannels: Int
    /// The tile's first pixel of output channel 0; channel c starts `c·channelStride` floats
    /// further. Nothing past pixel `pixels − 1` of any channel is written.
    public var output: UnsafeMutablePointer<Float>
    public var channelStride: Int
    /// 1...64.
    public var pixels: Int
    public var lower: Float
    public var upper: Float

    @inlinable
    public init(
        taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
        outputChannels: Int, output: UnsafeMutablePointer<Float>, channelStride: Int, pixels: Int,
        lower: Float, upper: Float
    ) {
        self.taps = taps
        self.tapCount = tapCount
        self.weights = weights
        self.bias = bias
        self.outputChannels = outputChannels
        self.output = output
        self.channelStride = channelStride
        self.pixels = pixels
        self.lower = lower
        self.upper = upper
    }
}

/// Computes `tile` with groups of `Group.value` vectors of `Vectors` (64 pixels in all, or a
/// divisor of 64). Reads all 64 floats of every tap row. Instantiate it with the family's own
/// marker, from a non-generic `@inline(never)` function of the family's module.
@inlinable @inline(__always)
public func channelMajorConvTile<Vectors: KernelVectors, Group: CHWStaticCount>(
    _ vectors: Vectors.Type, _ group: Group.Type, _ tile: ChannelMajorConvTile
) {
    let pixels = tile.pixels, tapCount = tile.tapCount
    precondition((1...channelMajorConvTilePixels).contains(pixels) && tapCount > 0, "a tile of 1...64 pixels and at least one tap")
    guard pixels < channelMajorConvTilePixels else {
        channelMajorFullTile(
            Vectors.self, Group.self, taps: tile.taps, tapCount: tapCount, weights: tile.weights, bias: tile.bias,
            outputChannels: tile.outputChannels, output: tile.output, channelStride: tile.channelStride,
            lower: tile.lower, upper: tile.upper)
        return
    }
    // A short tile (the last of an image) is computed whole into scratch and its first
    // `pixels` values copied out, so that the kernels only ever store whole vectors. Four
    // channels at a time: 1 KiB, which a temporary allocation always keeps on the stack.
    withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * channelMajorConvTilePixels) { scratch in
        let buffer = scratch.baseAddress!
        var channel = 0
        while channel < tile.outputChannels {
            let count = min(4, tile.outputChannels - channel)
            channelMajorFullTile(
                Vectors.self, Group.self, taps: tile.taps, tapCount: tapCount,
                weights: tile.weights + channel * tapCount, bias: tile.bias + channel, outputChannels: count,
                output: buffer, channelStride: channelMajorConvTilePixels, lower: tile.lower, upper: tile.upper)
            for c in 0..<count {
                (tile.output + (channel + c) * tile.channelStride).update(
                    from: buffer + c * channelMajorConvTilePixels, count: pixels)
            }
            channel += count
        }
    }
}

/// All 64 pixels of a tile, six output channels at a time and then one at a time, a group of
/// vectors of pixels after another.
@inlinable @inline(__always)
func channelMajorFullTile<Vectors: KernelVectors, Group: CHWStaticCount>(
    _ vectors: Vectors.Type, _ group: Group.Type,
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    outputChannels: Int, output: UnsafeMutablePointer<Float>, channelStride: Int, lower: Float, upper: Float
) {
    let lo = Vectors.broadcast(lower), hi = Vectors.broadcast(upper)
    let groupPixels = Group.value * Vectors.Vector.scalarCount
    var channel = 0
    while channel + 6 <= outputChannels {
        var pixel = 0
        while pixel < channelMajorConvTilePixels {
            channelMajorSixChannels(
                Vectors.self, Group.self, taps: taps + pixel, tapCount: tapCount,
                weights: weights + channel * tapCount, bias: bias + channel,
                output: output + (channel * channelStride + pixel), channelStride: channelStride, lo: lo, hi: hi)
            pixel += groupPixels
        }
        channel += 6
    }
    while channel < outputChannels {
        var pixel = 0
        while pixel < channelMajorConvTilePixels {
            channelMajorOneChannel(
                Vectors.self, Group.self, taps: taps + pixel, tapCount: tapCount,
                weights: weights + channel * tapCount, bias: bias[channel],
                output: output + (channel * channelStride + pixel), lo: lo, hi: hi)
            pixel += groupPixels
        }
        channel += 1
    }
}

/// Clamps the group's `Group.value` (1...4) vectors and stores them at `output`.
@inlinable @inline(__always)
func channelMajorStore<Vectors: KernelVectors, Group: CHWStaticCount>(
    _ vectors: Vectors.Type, _ group: Group.Type,
    _ v0: Vectors.Vector, _ v1: Vectors.Vector, _ v2: Vectors.Vector, _ v3: Vectors.Vector,
    to output: UnsafeMutablePointer<Float>, lo: Vectors.Vector, hi: Vectors.Vector
) {
    let n = Group.value, w = Vectors.Vector.scalarCount
    storeVector(Vectors.clamp(v0, lower: lo, upper: hi), output)
    if n > 1 { storeVector(Vectors.clamp(v1, lower: lo, upper: hi), output + w) }
    if n > 2 { storeVector(Vectors.clamp(v2, lower: lo, upper: hi), output + 2 * w) }
    if n > 3 { storeVector(Vectors.clamp(v3, lower: lo, upper: hi), output + 3 * w) }
}

/// Six output channels of one group of pixels: `6 · Group.value` accumulators.
@inlinable @inline(__always)
func channelMajorSixChannels<Vectors: KernelVectors, Group: CHWStaticCount>(
    _ vectors: Vectors.Type, _ group: Group.Type,
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, channelStride: Int, lo: Vectors.Vector, hi: Vectors.Vector
) {
    typealias V = Vectors.Vector
    let n = Group.value, width = V.scalarCount
    var a0 = Vectors.broadcast(bias[0]), a1 = a0, a2 = a0, a3 = a0
    var b0 = Vectors.broadcast(bias[1]), b1 = b0, b2 = b0, b3 = b0
    var c0 = Vectors.broadcast(bias[2]), c1 = c0, c2 = c0, c3 = c0
    var d0 = Vectors.broadcast(bias[3]), d1 = d0, d2 = d0, d3 = d0
    var e0 = Vectors.broadcast(bias[4]), e1 = e0, e2 = e0, e3 = e0
    var f0 = Vectors.broadcast(bias[5]), f1 = f0, f2 = f0, f3 = f0
    let wa = weights, wb = weights + tapCount, wc = wb + tapCount
    let wd = wc + tapCount, we = wd + tapCount, wf = we + tapCount
    for k in 0..<tapCount {
        let row = taps + k * channelMajorConvTilePixels
        let x0 = loadVector(row, as: V.self)
        let x1 = n > 1 ? loadVector(row + width, as: V.self) : x0
        let x2 = n > 2 ? loadVector(row + 2 * width, as: V.self) : x0
        let x3 = n > 3 ? loadVector(row + 3 * width, as: V.self) : x0
        /// The group's multiply-adds of weight `w` into one channel's accumulators.
        @inline(__always)
        func add(_ w: Float, _ s0: inout V, _ s1: inout V, _ s2: inout V, _ s3: inout V) {
            let w = Vectors.broadcast(w)
            s0 = Vectors.multiplyAdd(x0, w, s0)
            if n > 1 { s1 = Vectors.multiplyAdd(x1, w, s1) }
            if n > 2 { s2 = Vectors.multiplyAdd(x2, w, s2) }
            if n > 3 { s3 = Vectors.multiplyAdd(x3, w, s3) }
        }
        add(wa[k], &a0, &a1, &a2, &a3)
        add(wb[k], &b0, &b1, &b2, &b3)
        add(wc[k], &c0, &c1, &c2, &c3)
        add(wd[k], &d0, &d1, &d2, &d3)
        add(we[k], &e0, &e1, &e2, &e3)
        add(wf[k], &f0, &f1, &f2, &f3)
    }
    channelMajorStore(Vectors.self, Group.self, a0, a1, a2, a3, to: output, lo: lo, hi: hi)
    channelMajorStore(Vectors.self, Group.self, b0, b1, b2, b3, to: output + channelStride, lo: lo, hi: hi)
    channelMajorStore(Vectors.self, Group.self, c0, c1, c2, c3, to: output + 2 * channelStride, lo: lo, hi: hi)
    channelMajorStore(Vectors.self, Group.self, d0, d1, d2, d3, to: output + 3 * channelStride, lo: lo, hi: hi)
    channelMajorStore(Vectors.self, Group.self, e0, e1, e2, e3, to: output + 4 * channelStride, lo: lo, hi: hi)
    channelMajorStore(Vectors.self, Group.self, f0, f1, f2, f3, to: output + 5 * channelStride, lo: lo, hi: hi)
}

/// One output channel of one group of pixels (the channels after the last group of six).
@inlinable @inline(__always)
func channelMajorOneChannel<Vectors: KernelVectors, Group: CHWStaticCount>(
    _ vectors: Vectors.Type, _ group: Group.Type,
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: Float,
    output: UnsafeMutablePointer<Float>, lo: Vectors.Vector, hi: Vectors.Vector
) {
    typealias V = Vectors.Vector
    let n = Group.value, width = V.scalarCount
    var a0 = Vectors.broadcast(bias), a1 = a0, a2 = a0, a3 = a0
    for k in 0..<tapCount {
        let row = taps + k * channelMajorConvTilePixels
        let w = Vectors.broadcast(weights[k])
        a0 = Vectors.multiplyAdd(loadVector(row, as: V.self), w, a0)
        if n > 1 { a1 = Vectors.multiplyAdd(loadVector(row + width, as: V.self), w, a1) }
        if n > 2 { a2 = Vectors.multiplyAdd(loadVector(row + 2 * width, as: V.self), w, a2) }
        if n > 3 { a3 = Vectors.multiplyAdd(loadVector(row + 3 * width, as: V.self), w, a3) }
    }
    channelMajorStore(Vectors.self, Group.self, a0, a1, a2, a3, to: output, lo: lo, hi: hi)
}
