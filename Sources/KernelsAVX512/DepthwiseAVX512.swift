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

/// The row in segments sized for one group of up to 32 channels
/// (`depthwiseInteriorSegments`).
@inline(never)
func interior<Shape: DepthwiseInteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorRow) {
    depthwiseInteriorSegments(Shape.self, row, groupChannels: 32) { segment in
        interiorSegment(Shape.self, segment)
    }
}

/// All channels of the pixels of `row` (one segment of an output row):
/// 32 at a time (two zmm vectors), then 16, then 8 (one ymm vector), then
/// one by one.
@inline(__always)
func interiorSegment<Shape: DepthwiseInteriorShape>(_ shape: Shape.Type, _ row: DepthwiseInteriorRow) {
    var c = 0
    while c + 32 <= row.channels {
        depthwiseInteriorSweep(Shape.self, AVX512F32x16x2.self, row, channel: c)
        c += 32
    }
    if c + 16 <= row.channels {
        depthwiseInteriorSweep(Shape.self, AVX512F32x16.self, row, channel: c)
        c += 16
    }
    if c + 8 <= row.channels {
        depthwiseInteriorSweep(Shape.self, AVX512F32x8.self, row, channel: c)
        c += 8
    }
    if c < row.channels {
        scalarChannels(Shape.self, row, channels: c..<row.channels)
    }
}

/// The last channels (fewer than 8) of every pixel, one at a time.
@inline(never)
func scalarChannels<Shape: DepthwiseInteriorShape>(
    _ shape: Shape.Type, _ row: DepthwiseInteriorRow, channels: Range<Int>
) {
    let walk = DepthwiseTapWalk(
        kernelRows: row.kernelRows, kernelColumns: Shape.size, inputRowStep: row.inputRowStep,
        inputTapStep: row.channels, weightRowStep: Shape.size * row.weightTapStep,
        weightTapStep: row.weightTapStep)
    for x in 0..<row.pixels {
        depthwisePixelScalarChannels(
            AVX512F32x16.self, walk: walk, input: row.input + x * Shape.stride * row.channels,
            weights: row.weights, bias: row.bias, output: row.output + x * row.channels,
            channels: channels, lower: row.lower, upper: row.upper)
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
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    var c = 0
    while c + 64 <= channels {
        depthwisePixelVectors(
            AVX512F32x16.self, vectors: 4, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: c, lower: lower, upper: upper)
        c += 64
    }
    while c + 16 <= channels {
        depthwisePixelVectors(
            AVX512F32x16.self, vectors: 1, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: c, lower: lower, upper: upper)
        c += 16
    }
    if c + 8 <= channels {
        depthwisePixelVectors(
            AVX512F32x8.self, vectors: 1, walk: walk, input: input, weights: weights, bias: bias,
            output: output, channel: c, lower: lower, upper: upper)
        c += 8
    }
    if c < channels {
        depthwisePixelScalarChannels(
            AVX512F32x16.self, walk: walk, input: input, weights: weights, bias: bias, output: output,
            channels: c..<channels, lower: lower, upper: upper)
    }
}
