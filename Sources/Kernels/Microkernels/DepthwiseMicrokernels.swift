import KernelTemplates

// Microkernels of the depthwise convolution (depth multiplier 1, NHWC):
// `out[p, c] = clamp(bias[c] + Σ_taps in[tap(p), c] · w[tap, c])`.
//
// A kernel receives only the taps that land inside the input (padding is
// never read), walks them filter column by filter column (rows inner: XNNPACK's tap
// order, so the sums equal its results bit for bit) starting from the
// bias, and vectorises over channels. Each output element is therefore
// computed the same way whichever kernel variant or thread handles it.
// The walk (`DepthwiseTapWalk`) and the one-pixel kernel are templates of
// KernelTemplates (DepthwisePixelTemplate.swift), shared with the AVX-512
// family.

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
        var column = input + c, weightColumn = weights + c
        for _ in 0..<walk.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<walk.kernelRows {
                let w0 = loadVector8(w), w1 = loadVector8(w + 8)
                a00 = multiplyAdd(loadVector8(tap), w0, a00)
                a01 = multiplyAdd(loadVector8(tap + 8), w1, a01)
                a10 = multiplyAdd(loadVector8(tap + p1), w0, a10)
                a11 = multiplyAdd(loadVector8(tap + p1 + 8), w1, a11)
                a20 = multiplyAdd(loadVector8(tap + p2), w0, a20)
                a21 = multiplyAdd(loadVector8(tap + p2 + 8), w1, a21)
                a30 = multiplyAdd(loadVector8(tap + p3), w0, a30)
                a31 = multiplyAdd(loadVector8(tap + p3 + 8), w1, a31)
                tap += walk.inputRowStep
                w += walk.weightRowStep
            }
            column += walk.inputTapStep
            weightColumn += walk.weightTapStep
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
        var column = input + c, weightColumn = weights + c
        for _ in 0..<walk.kernelColumns {
            var tap = column, w = weightColumn
            for _ in 0..<walk.kernelRows {
                let w0 = loadVector8(w)
                a0 = multiplyAdd(loadVector8(tap), w0, a0)
                a1 = multiplyAdd(loadVector8(tap + p1), w0, a1)
                a2 = multiplyAdd(loadVector8(tap + p2), w0, a2)
                a3 = multiplyAdd(loadVector8(tap + p3), w0, a3)
                tap += walk.inputRowStep
                w += walk.weightRowStep
            }
            column += walk.inputTapStep
            weightColumn += walk.weightTapStep
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
            depthwiseScalarChannels(
                walk: walk, input: input + j * inputPixelStep, weights: weights, bias: bias,
                output: output + j * channels, channels: c..<channels, lower: lower, upper: upper)
        }
    }
}
