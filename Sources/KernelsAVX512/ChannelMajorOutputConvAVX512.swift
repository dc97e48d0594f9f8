import KernelTemplates

// The 512-bit microkernel of Kernels' `Conv2DToChannelMajor`: a convolution
// with few input channels (a model's 3-channel stem) that reads a
// channel-last image and writes a channel-major `[N][Cout][P]` output.
//
// One call computes one tile of up to 64 consecutive output pixels for every
// output channel from the tile's taps: K = KH·KW·Cin rows of 64 floats, row k
// holding tap k of each pixel (zero where the tap falls in the padding). Each
// output is its bias plus one fused multiply-add per tap, in ascending tap
// order, then clamped: the same operations, in the same order, as the GEMM
// microkernels give the channel-last convolution, so the two agree bit for
// bit. Six output channels by four vectors of 16 pixels are accumulated at a
// time: per tap, four loads and six broadcasts feed 24 multiply-adds.

/// Pixels per tile: the length of every tap row.
public let channelMajorConvTilePixels = 64

/// Computes one tile: `output[c·channelStride + i] = clamp(bias[c] +
/// Σ_k taps[k·64 + i] · weights[c·K + k], lower, upper)` for every output
/// channel c and pixel i < `pixels` (1...64), writing nothing past pixel
/// `pixels − 1` of any channel. Reads all 64 floats of every tap row.
/// - Parameters:
///   - taps: `[K][64]`.
///   - weights: `[Cout][K]`, the filter in `(ky, kx, ic)` order per channel.
///   - bias: `[Cout]`.
@inline(never)
public func channelMajorConvTileAVX512(
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    outputChannels: Int, output: UnsafeMutablePointer<Float>, channelStride: Int, pixels: Int,
    lower: Float, upper: Float
) {
    precondition((1...channelMajorConvTilePixels).contains(pixels) && tapCount > 0, "a tile of 1...64 pixels and at least one tap")
    guard pixels < channelMajorConvTilePixels else {
        fullTile(
            taps: taps, tapCount: tapCount, weights: weights, bias: bias, outputChannels: outputChannels,
            output: output, channelStride: channelStride, lower: lower, upper: upper)
        return
    }
    // A short tile (the last of an image) is computed whole into scratch and
    // its first `pixels` values copied out, so that the kernels only ever
    // store whole vectors. Four channels at a time: 1 KiB, which a temporary
    // allocation always keeps on the stack.
    withUnsafeTemporaryAllocation(of: Float.self, capacity: 4 * channelMajorConvTilePixels) { scratch in
        let tile = scratch.baseAddress!
        var channel = 0
        while channel < outputChannels {
            let count = min(4, outputChannels - channel)
            fullTile(
                taps: taps, tapCount: tapCount, weights: weights + channel * tapCount, bias: bias + channel,
                outputChannels: count, output: tile, channelStride: channelMajorConvTilePixels, lower: lower, upper: upper)
            for c in 0..<count {
                (output + (channel + c) * channelStride).update(from: tile + c * channelMajorConvTilePixels, count: pixels)
            }
            channel += count
        }
    }
}

/// All 64 pixels of a tile, six output channels at a time and then one at a time.
@inline(__always)
private func fullTile(
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    outputChannels: Int, output: UnsafeMutablePointer<Float>, channelStride: Int, lower: Float, upper: Float
) {
    let lo = SIMD16<Float>(repeating: lower), hi = SIMD16<Float>(repeating: upper)
    var channel = 0
    while channel + 6 <= outputChannels {
        sixChannels(
            taps: taps, tapCount: tapCount, weights: weights + channel * tapCount, bias: bias + channel,
            output: output + channel * channelStride, channelStride: channelStride, lo: lo, hi: hi)
        channel += 6
    }
    while channel < outputChannels {
        oneChannel(
            taps: taps, tapCount: tapCount, weights: weights + channel * tapCount, bias: bias[channel],
            output: output + channel * channelStride, lo: lo, hi: hi)
        channel += 1
    }
}

/// Clamps four vectors and stores them at `output` (64 floats).
@inline(__always)
private func store(
    _ v0: SIMD16<Float>, _ v1: SIMD16<Float>, _ v2: SIMD16<Float>, _ v3: SIMD16<Float>,
    to output: UnsafeMutablePointer<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>
) {
    storeVector16(clamp(v0, lower: lo, upper: hi), output)
    storeVector16(clamp(v1, lower: lo, upper: hi), output + 16)
    storeVector16(clamp(v2, lower: lo, upper: hi), output + 32)
    storeVector16(clamp(v3, lower: lo, upper: hi), output + 48)
}

/// Six output channels of a tile: 24 accumulators.
@inline(__always)
private func sixChannels(
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    output: UnsafeMutablePointer<Float>, channelStride: Int, lo: SIMD16<Float>, hi: SIMD16<Float>
) {
    var a0 = SIMD16<Float>(repeating: bias[0]), a1 = a0, a2 = a0, a3 = a0
    var b0 = SIMD16<Float>(repeating: bias[1]), b1 = b0, b2 = b0, b3 = b0
    var c0 = SIMD16<Float>(repeating: bias[2]), c1 = c0, c2 = c0, c3 = c0
    var d0 = SIMD16<Float>(repeating: bias[3]), d1 = d0, d2 = d0, d3 = d0
    var e0 = SIMD16<Float>(repeating: bias[4]), e1 = e0, e2 = e0, e3 = e0
    var f0 = SIMD16<Float>(repeating: bias[5]), f1 = f0, f2 = f0, f3 = f0
    let wa = weights, wb = weights + tapCount, wc = wb + tapCount
    let wd = wc + tapCount, we = wd + tapCount, wf = we + tapCount
    for k in 0..<tapCount {
        let row = taps + k * channelMajorConvTilePixels
        let x0 = loadVector16(row), x1 = loadVector16(row + 16)
        let x2 = loadVector16(row + 32), x3 = loadVector16(row + 48)
        var w = SIMD16<Float>(repeating: wa[k])
        a0 = a0.addingProduct(x0, w); a1 = a1.addingProduct(x1, w)
        a2 = a2.addingProduct(x2, w); a3 = a3.addingProduct(x3, w)
        w = SIMD16<Float>(repeating: wb[k])
        b0 = b0.addingProduct(x0, w); b1 = b1.addingProduct(x1, w)
        b2 = b2.addingProduct(x2, w); b3 = b3.addingProduct(x3, w)
        w = SIMD16<Float>(repeating: wc[k])
        c0 = c0.addingProduct(x0, w); c1 = c1.addingProduct(x1, w)
        c2 = c2.addingProduct(x2, w); c3 = c3.addingProduct(x3, w)
        w = SIMD16<Float>(repeating: wd[k])
        d0 = d0.addingProduct(x0, w); d1 = d1.addingProduct(x1, w)
        d2 = d2.addingProduct(x2, w); d3 = d3.addingProduct(x3, w)
        w = SIMD16<Float>(repeating: we[k])
        e0 = e0.addingProduct(x0, w); e1 = e1.addingProduct(x1, w)
        e2 = e2.addingProduct(x2, w); e3 = e3.addingProduct(x3, w)
        w = SIMD16<Float>(repeating: wf[k])
        f0 = f0.addingProduct(x0, w); f1 = f1.addingProduct(x1, w)
        f2 = f2.addingProduct(x2, w); f3 = f3.addingProduct(x3, w)
    }
    store(a0, a1, a2, a3, to: output, lo: lo, hi: hi)
    store(b0, b1, b2, b3, to: output + channelStride, lo: lo, hi: hi)
    store(c0, c1, c2, c3, to: output + 2 * channelStride, lo: lo, hi: hi)
    store(d0, d1, d2, d3, to: output + 3 * channelStride, lo: lo, hi: hi)
    store(e0, e1, e2, e3, to: output + 4 * channelStride, lo: lo, hi: hi)
    store(f0, f1, f2, f3, to: output + 5 * channelStride, lo: lo, hi: hi)
}

/// One output channel of a tile (the channels after the last group of six).
@inline(__always)
private func oneChannel(
    taps: UnsafePointer<Float>, tapCount: Int, weights: UnsafePointer<Float>, bias: Float,
    output: UnsafeMutablePointer<Float>, lo: SIMD16<Float>, hi: SIMD16<Float>
) {
    var a0 = SIMD16<Float>(repeating: bias), a1 = a0, a2 = a0, a3 = a0
    for k in 0..<tapCount {
        let row = taps + k * channelMajorConvTilePixels
        let w = SIMD16<Float>(repeating: weights[k])
        a0 = a0.addingProduct(loadVector16(row), w); a1 = a1.addingProduct(loadVector16(row + 16), w)
        a2 = a2.addingProduct(loadVector16(row + 32), w); a3 = a3.addingProduct(loadVector16(row + 48), w)
    }
    store(a0, a1, a2, a3, to: output, lo: lo, hi: hi)
}
