import KernelTemplates

// The baseline family's sparse 1×1 convolution on channel-major tensors: the templates of
// `KernelTemplates/SparsePointwiseTemplate.swift` with two 8-lane vectors per 16-pixel unit.

/// `sparsePointwiseTile` for the baseline family.
@inline(never)
func sparsePointwiseTileBaseline(
    _ tile: SparsePointwiseTile, weights: SparsePointwiseWeights, out: SparsePointwiseOutput
) {
    sparsePointwiseTile(BaselineF32x8x2.self, tile, weights: weights, out: out)
}

/// `packSparsePointwiseTile` for the baseline family.
@inline(never)
func packSparsePointwiseTileBaseline(
    input: UnsafePointer<Float>, channelStride: Int, channels: Int, pixels: Int,
    packed: UnsafeMutablePointer<Float>
) {
    packSparsePointwiseTile(
        BaselineF32x8x2.self, input: input, channelStride: channelStride, channels: channels, pixels: pixels,
        packed: packed)
}
