import KernelTemplates

// The 512-bit depthwise kernels (depth multiplier 1, NHWC). The interior
// of an output row, for square 3×3 and 5×5 filters at stride 1 and 2
// without dilation, is the template of KernelTemplates
// (DepthwiseInteriorTemplate.swift) that the baseline family instantiates
// too, on this family's vectors, so the results are bit-identical to the
// baseline kernels' and to XNNPACK's. Channels go 32 at a time (two zmm
// vectors), then 16, then 8 (one ymm vector), then one by one.

/// The interior pixels of one output row for a `size × size` filter
/// (3 or 5) at `stride` (1 or 2), undilated. Other shapes are a programmer
/// error: the caller routes them to the general kernels.
@inline(never)
public func depthwiseF32InteriorAVX512(size: Int, stride: Int, _ row: DepthwiseInteriorRow) {
    switch (size, stride) {
    case (3, 1): interior(Depthwise3x3Stride1.self, row)
    case (3, 2): interior(Depthwise3x3Stride2.self, row)
    case (5, 1): interior(Depthwise5x5Stride1.self, row)
    case (5, 2): interior(Depthwise5x5Stride2.self, row)
    default: preconditionFailure("no AVX-512 depthwise interior kernel for \(size)×\(size) stride \(stride)")
    }
}

/// The interior of one output row (`depthwiseInterior`): 32 channels at a
/// time (two zmm vectors), then 16, then 8 (one ymm vector), then one by one.
@inline(never)
func interior<Shape: DepthwiseInteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorRow) {
    depthwiseInterior(Shape.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, row)
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
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    depthwisePixel(
        AVX512F32x16.self, AVX512F32x8.self, walk: walk, input: input, weights: weights, bias: bias,
        output: output, channels: channels, lower: lower, upper: upper)
}
