import KernelTemplates

/// How a pointwise depthwise convolution (a 1×1 filter, stride 1, depth multiplier 1: every
/// channel scaled and shifted, `y = x·w + b`) rounds its one product and sum.
///
/// The two XNNPACK builds this package matches disagree here: LiteRT 2.3.0's runs such a layer
/// as any other depthwise convolution, `b` plus the product in one rounding; MediaPipe 0.10.21's
/// runs it with XNNPACK's channel-wise multiply-add kernel, which rounds the product and then
/// the sum (as TFLite's reference kernel does). Only `hand_recrop` among the bundled models has
/// such layers; MediaPipe's holistic graph runs it with its own XNNPACK.
public enum PointwiseDepthwiseRounding: Sendable, Hashable {
    /// `b` plus the product, rounded once where the build has fused multiply-adds
    /// (`multiplyAdd`): LiteRT 2.3.0's XNNPACK, and every other depthwise convolution.
    case fused
    /// The product rounded, then `b` added and rounded: MediaPipe 0.10.21's XNNPACK.
    case separate
}

/// A pointwise depthwise convolution of `pixels` pixels of `channels` channels (input and
/// output `[pixels, channels]`): `y[p, c] = clamp(x[p, c]·w[c] + b[c], lower, upper)`, with
/// `weights` the packed filter's tap and `bias` its bias (both zero-padded to a multiple of
/// 16 floats, so whole vectors read them), rounded as `rounding` says. Pixels are split over
/// `runner` in memory-bound chunks; every value is computed the same way whatever the split.
func pointwiseDepthwiseF32(
    input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, pixels: Int, channels: Int,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, clamp: (lower: Float, upper: Float),
    rounding: PointwiseDepthwiseRounding, runner: ParallelRunner
) {
    runner.forEach(
        pixels, minimumPerChunk: minimumRowsPerTask(rowLength: channels),
        PointwiseDepthwisePixels(
            input: input, output: output, channels: channels, weights: weights, bias: bias, clamp: clamp,
            separate: rounding == .separate))
}

/// The pixels of one `pointwiseDepthwiseF32` call, for `ParallelRunner.forEach`.
private struct PointwiseDepthwisePixels: ParallelWork {
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let channels: Int
    let weights: UnsafePointer<Float>
    let bias: UnsafePointer<Float>
    let clamp: (lower: Float, upper: Float)
    /// Whether the product is rounded before the sum (`PointwiseDepthwiseRounding.separate`).
    let separate: Bool

    func run(_ pixels: Range<Int>, thread: Int) {
        // One loop per rounding, each with its arithmetic fixed.
        if separate {
            scaleAndShift(
                pixels, input: input, output: output, channels: channels, weights: weights, bias: bias,
                clamp: clamp, separate: true)
        } else {
            scaleAndShift(
                pixels, input: input, output: output, channels: channels, weights: weights, bias: bias,
                clamp: clamp, separate: false)
        }
    }
}

/// Pixels `pixels` of `pointwiseDepthwiseF32`: a pixel of 8 or 16 channels whole, others 8
/// channels at a time, then one at a time.
@inline(__always)
private func scaleAndShift(
    _ pixels: Range<Int>, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
    weights: UnsafePointer<Float>, bias: UnsafePointer<Float>, clamp range: (lower: Float, upper: Float),
    separate: Bool
) {
    let lower = SIMD8<Float>(repeating: range.lower), upper = SIMD8<Float>(repeating: range.upper)
    /// Eight channels' `clamp(v·w + b)`, rounded as `separate` says.
    @inline(__always)
    func scaled(_ v: SIMD8<Float>, _ w: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        clamp(separate ? v * w + b : multiplyAdd(v, w, b), lower: lower, upper: upper)
    }
    if channels == 8 || channels == 16 {
        // One or two vectors a pixel (hand_recrop's largest maps): the weights and bias stay in
        // registers, with no loop over channels.
        let w0 = loadVector8(weights), b0 = loadVector8(bias)
        let w1 = loadVector8(weights + (channels - 8)), b1 = loadVector8(bias + (channels - 8))
        var x = input + pixels.lowerBound * channels, y = output + pixels.lowerBound * channels
        for _ in pixels {
            storeVector8(scaled(loadVector8(x), w0, b0), y)
            if channels == 16 { storeVector8(scaled(loadVector8(x + 8), w1, b1), y + 8) }
            x += channels
            y += channels
        }
        return
    }
    for p in pixels {
        let x = input + p * channels, y = output + p * channels
        var c = 0
        while c + 8 <= channels {
            storeVector8(scaled(loadVector8(x + c), loadVector8(weights + c), loadVector8(bias + c)), y + c)
            c += 8
        }
        while c < channels {
            let sum = separate ? x[c] * weights[c] + bias[c] : multiplyAdd(x[c], weights[c], bias[c])
            y[c] = clamp(sum, lower: range.lower, upper: range.upper)
            c += 1
        }
    }
}
