import KernelTemplates

// The AVX-512 family: the templates of KernelTemplates on `SIMD16<Float>` (one zmm register,
// each `addingProduct` one 512-bit `vfmadd`), instantiated here and only here, with this
// family's own marker types, and gathered in `avx512Microkernels`. One file, so that even a
// build that compiles file by file sees the markers' conformances where the templates are
// specialised (see `KernelVectors`). Nothing here is `@inlinable`: Kernels reaches this code
// only through the table, after `KernelInstructionSet` found AVX-512 on the CPU.

/// The family's 16-lane vectors, which copy a partial GEMM tile out 16, 8, 4, 2 and 1 floats
/// at a time (`storePartialTile16`).
protocol AVX512Vectors16: KernelVectors where Vector == SIMD16<Float> {}

extension AVX512Vectors16 {
    @inline(__always)
    static func storePartialTile(
        _ tile: UnsafeRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
        c: UnsafeMutablePointer<Float>, cStride: Int
    ) {
        storePartialTile16(tile, rowWidth: rowWidth, rows: rows, columns: columns, c: c, cStride: cStride)
    }
}

/// One 16-lane vector: the 16-wide last GEMM panel, a group of 16 channels, 16 pixels of a
/// channel-major row.
enum AVX512F32x16: AVX512Vectors16, ChannelMajorVectors {
    typealias Narrow = AVX512F32x8
    static var count: Int { 1 }
}

/// Two 16-lane vectors: the 32-wide GEMM panel, a group of 32 channels.
enum AVX512F32x16x2: AVX512Vectors16 {
    static var count: Int { 2 }
}

/// One 8-lane vector (one ymm register): a group of 8 channels, the 8-lane step of the
/// epilogue, a channel-major row of at most 8 pixels.
enum AVX512F32x8: ChannelMajorVectors {
    typealias Vector = SIMD8<Float>
    typealias Narrow = AVX512F32x8
    static var count: Int { 1 }
}

/// One 4-lane vector (one xmm register): the channels of a depthwise convolution of 4 to 7
/// channels.
enum AVX512F32x4: KernelVectors {
    typealias Vector = SIMD4<Float>
    static var count: Int { 1 }
}

/// The AVX-512 family's marker for the templates that take a family and a vector type.
public enum AVX512Family: KernelFamily {}

/// The AVX-512 family's microkernels. Use them only where the CPU has AVX-512 (F, CD, BW, DQ,
/// VL): Kernels' `KernelInstructionSet.microkernels` checks.
public let avx512Microkernels = MicrokernelTable(
    instructionSet: "avx512f",
    gemmPanelWidth: AVX512F32x16x2.count * SIMD16<Float>.scalarCount, gemmTileRows: GemmEightRows.count,
    gemmShortTileRows: GemmSevenRows.count, gemmHalfPanelTileRows: GemmEightRows.count,
    gemmPanels: avx512GemmPanels,
    gemmHalfPanels: avx512GemmHalfPanels,
    gemmWideningTile: avx512GemmWideningTile,
    gemmJoinedPanels: avx512GemmJoinedPanels,
    convolutionEpilogue: avx512ConvolutionEpilogue,
    depthwiseInterior: avx512DepthwiseInterior,
    depthwiseBand: avx512DepthwiseBand,
    depthwisePixel: avx512DepthwisePixel,
    sparsePointwiseTile: avx512SparsePointwiseTile,
    packSparsePointwiseTile: avx512PackSparsePointwiseTile,
    depthwiseCHWBand: avx512DepthwiseCHWBand,
    depthwiseCHWPlanes: avx512DepthwiseCHWPlanes,
    channelMajorConvTile: avx512ChannelMajorConvTile,
    fmaPeakChains: avx512FMAPeakChains,
    fmaPeakFlopsPerRound: fmaPeakFlopsPerRound(SIMD16<Float>.self),
    names: [
        "f32-gemm-8x32-avx512f", "f32-gemm-7x32-avx512f", "f32-gemm-8x16-avx512f", "f32-gemm-7x16-avx512f",
        "f32-gemm-8x24-avx512f",
        "f32-gemm-8x32-f16w-avx512f", "f32-gemm-4x32-f16w-widening-avx512f", "f32-gemm-epilogue-avx512f",
        "f32-dwconv-3x3s1-avx512f", "f32-dwconv-3x3s2-avx512f", "f32-dwconv-5x5s1-avx512f",
        "f32-dwconv-5x5s2-avx512f", "f32-dwconv-band-avx512f", "f32-dwconv-pixel-avx512f", "f32-spmm-16-avx512f",
        "f32-dwconv2d-chw-3x3-avx512f", "f32-dwconv2d-chw-3x3s2-avx512f", "f32-dwconv2d-chw-5x5-avx512f",
        "f32-dwconv2d-chw-5x5s2-avx512f", "f32-dwconv2d-chw-planes-avx512f", "f32-conv-hwc2chw-6x64-avx512f",
        "f32-fma-peak-avx512f",
    ])

/// The GEMM over whole panels: 8×32 tiles (16 zmm accumulators, two panel loads and eight
/// broadcasts per k) and 7×32 ones where a mix of the two covers the block's rows exactly
/// (`GemmRowTiles`: a 7 × 7 map's 49 rows in seven 7-row tiles rather than six of 8 and a
/// last one for one row), 8×16 and 7×16 for a last panel of 16. Tiles of rows outer while the
/// panels fit in 24 KiB (half of a 48 KiB L1), panels outer beyond.
@inline(never)
private func avx512GemmPanels(_ operands: GemmPanelOperands) {
    gemmPanels(
        AVX512F32x16x2.self, AVX512F32x16.self, GemmEightRows.self, GemmSevenRows.self, rowsOuterUpToFloats: 6 * 1024,
        operands)
}

/// A panel of 16 channels and the whole last panel of 8 after it (N = 24, 56, 88, …), in 8×24
/// tiles: one zmm and one ymm accumulator a row, 16 in all, each row's broadcast feeding both
/// (`gemmJoinedPanels`), rather than 8×16 tiles and 8×8 ones that each load a broadcast for
/// every multiply-add.
@inline(never)
private func avx512GemmJoinedPanels(_ operands: GemmPanelOperands) {
    gemmJoinedPanels(AVX512F32x16.self, AVX512F32x8.self, GemmEightRows.self, operands)
}

/// The first rows (at most 4) of a block on one whole 32-wide float16 panel: a 4×32 tile that
/// reads the panel in place, widening each k's two vectors, and stores them widened to the
/// panel's float32 copy, which the tiles of the block's other rows then read
/// (`gemmWideningTile`): the panel's first read from memory overlaps multiply-adds rather than
/// a pass of its own.
@inline(never)
private func avx512GemmWideningTile(_ operands: GemmPanelOperands, widenedCopy: UnsafeMutablePointer<Float>) {
    gemmWideningTile(AVX512F32x16x2.self, operands, widenedCopy: widenedCopy)
}

/// The GEMM over whole 32-wide float16 panels for blocks of few rows: 8×32 tiles that widen
/// each k's two panel vectors as they load them (16 accumulators, the two widened vectors and a
/// broadcast: 19 of the 32 zmm registers).
@inline(never)
private func avx512GemmHalfPanels(_ operands: GemmPanelOperands) {
    gemmHalfPanels(AVX512F32x16x2.self, GemmEightRows.self, operands)
}

/// `EpilogueOperands.apply`: 16 lanes at a time, then 8, then one by one.
@inline(never)
private func avx512ConvolutionEpilogue(
    _ epilogue: EpilogueOperands, c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, column: Int,
    columns: Int
) {
    epilogue.apply(AVX512F32x16.self, AVX512F32x8.self, c: c, cStride: cStride, rows: rows, column: column, columns: columns)
}

/// The interior of one depthwise output row for a `size × size` filter (3 or 5) at `stride`
/// (1 or 2), undilated: 32 channels at a time (two zmm vectors), then 16, then 8 (one ymm
/// vector), then the last 8 for channels left over; 4 at a time (one xmm vector) below 8 channels.
@inline(never)
private func avx512DepthwiseInterior(size: Int, stride: Int, _ row: DepthwiseInteriorRow) {
    switch (size, stride) {
    case (3, 1): depthwiseInterior(Depthwise3x3Stride1.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, AVX512F32x4.self, row)
    case (3, 2): depthwiseInterior(Depthwise3x3Stride2.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, AVX512F32x4.self, row)
    case (5, 1): depthwiseInterior(Depthwise5x5Stride1.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, AVX512F32x4.self, row)
    case (5, 2): depthwiseInterior(Depthwise5x5Stride2.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, AVX512F32x4.self, row)
    default: preconditionFailure("no AVX-512 depthwise interior kernel for \(size)×\(size) stride \(stride)")
    }
}

/// A band of 2...4 depthwise output rows, column by column, for a `size × size` filter (3 or 5)
/// at `stride` (1 or 2), undilated: 32 channels at a time (two zmm vectors), then 16, then 8
/// (one ymm vector), then the last 8 for channels left over.
@inline(never)
private func avx512DepthwiseBand(size: Int, stride: Int, _ band: DepthwiseBand) {
    switch (size, stride) {
    case (3, 1): depthwiseBand(Depthwise3x3Stride1.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, band)
    case (3, 2): depthwiseBand(Depthwise3x3Stride2.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, band)
    case (5, 1): depthwiseBand(Depthwise5x5Stride1.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, band)
    case (5, 2): depthwiseBand(Depthwise5x5Stride2.self, AVX512F32x16x2.self, AVX512F32x16.self, AVX512F32x8.self, band)
    default: preconditionFailure("no AVX-512 depthwise band kernel for \(size)×\(size) stride \(stride)")
    }
}

/// One depthwise output pixel with any window of valid taps (the border of a row): 64 channels
/// at a time with 4 `SIMD16<Float>` accumulators, then 16, then 8, then the last 8 for channels
/// left over.
@inline(never)
private func avx512DepthwisePixel(
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    depthwisePixel(
        AVX512F32x16.self, AVX512F32x8.self, walk: walk, input: input, weights: weights, bias: bias,
        output: output, channels: channels, lower: lower, upper: upper)
}

/// One tile of the sparse 1×1 convolution on channel-major tensors: one 16-lane vector per
/// 16-pixel unit, one chain per pixel (`sparsePointwiseTile`).
@inline(never)
private func avx512SparsePointwiseTile(
    _ tile: SparsePointwiseTile, weights: SparsePointwiseWeights, out: SparsePointwiseOutput
) {
    sparsePointwiseTile(AVX512F32x16.self, tile, weights: weights, out: out)
}

/// `packSparsePointwiseTile` on one 16-lane vector per 16 pixels.
@inline(never)
private func avx512PackSparsePointwiseTile(
    input: UnsafePointer<Float>, channelStride: Int, channels: Int, pixels: Int,
    packed: UnsafeMutablePointer<Float>
) {
    packSparsePointwiseTile(
        AVX512F32x16.self, input: input, channelStride: channelStride, channels: channels, pixels: pixels,
        packed: packed)
}

/// One band of a channel-major depthwise convolution, 16 pixels of a row at a time (8 for
/// rows of at most 8 pixels and for a last piece of at most 8) (`depthwiseCHWBand`).
@inline(never)
private func avx512DepthwiseCHWBand(size: Int, strideWidth: Int, _ band: DepthwiseCHWBandOperands) {
    depthwiseCHWBand(AVX512F32x16.self, size: size, strideWidth: strideWidth, band)
}

/// Whole small planes of a channel-major depthwise convolution, 16 flat positions per vector
/// (`depthwiseCHWPlanes`).
@inline(never)
private func avx512DepthwiseCHWPlanes(size: Int, stride: Int, _ planes: DepthwiseCHWPlanesOperands) {
    depthwiseCHWPlanes(AVX512F32x16.self, size: size, stride: stride, planes)
}

/// One tile of a convolution that writes channel-major: six channels by the tile's four
/// 16-lane vectors at a time, 24 accumulators (`channelMajorConvTile`).
@inline(never)
private func avx512ChannelMajorConvTile(_ tile: ChannelMajorConvTile) {
    channelMajorConvTile(AVX512F32x16.self, CHWCount4.self, tile)
}

/// `fmaPeakChains` on `SIMD16<Float>`.
@inline(never)
private func avx512FMAPeakChains(rounds: Int, multiplier: Float, addend: Float) -> Float {
    fmaPeakChains(SIMD16<Float>.self, family: AVX512Family.self, rounds: rounds, multiplier: multiplier, addend: addend)
}

/// Copies the first `rows` rows and `columns` columns of a tile spilled to `tile` (`rowWidth`
/// floats per row, rows one after another) to `c`, 16, 8, 4, 2 and 1 floats at a time: for
/// the last row tile and a partial panel. Out of line: passing the vectors themselves, or
/// extracting their lanes inline, leads the compiler to split every vector of the tile into
/// quarters, which slows the whole-tile path several times over.
@inline(never)
private func storePartialTile16(
    _ tile: UnsafeRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
    c: UnsafeMutablePointer<Float>, cStride: Int
) {
    let base = tile.baseAddress!.assumingMemoryBound(to: Float.self)
    for r in 0..<rows {
        var j = 0
        while j + 16 <= columns {
            storeVector16(loadVector16(base + r * rowWidth + j), c + r * cStride + j)
            j += 16
        }
        storeVector16(loadVector16(base + r * rowWidth + j), c + r * cStride + j, count: columns - j)
    }
}
