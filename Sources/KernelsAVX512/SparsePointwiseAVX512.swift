import KernelTemplates

// The AVX-512 family's sparse 1×1 convolution on channel-major tensors: the templates of
// `KernelTemplates/SparsePointwiseTemplate.swift` with 16-lane vectors, one per 16-pixel unit.

/// `sparsePointwiseTile` for the AVX-512 family.
@inline(never)
public func sparsePointwiseTileAVX512(
    _ tile: SparsePointwiseTile, weights: SparsePointwiseWeights, out: SparsePointwiseOutput
) {
    sparsePointwiseTile(AVX512F32x16.self, tile, weights: weights, out: out)
}

/// `packSparsePointwiseTile` for the AVX-512 family.
@inline(never)
public func packSparsePointwiseTileAVX512(
    input: UnsafePointer<Float>, channelStride: Int, channels: Int, pixels: Int,
    packed: UnsafeMutablePointer<Float>
) {
    packSparsePointwiseTile(
        AVX512F32x16.self, input: input, channelStride: channelStride, channels: channels, pixels: pixels,
        packed: packed)
}
