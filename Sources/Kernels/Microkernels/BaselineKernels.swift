import KernelTemplates

// The baseline family: the templates of KernelTemplates on `SIMD8<Float>` (one ymm register
// in the native build, AVX2 + FMA), instantiated here and only here, with this family's own
// marker types, and gathered in `baselineMicrokernels`. One file, so that even a build that
// compiles file by file sees the markers' conformances where the templates are specialised
// (see `KernelVectors`).

/// One 8-lane vector: the 8-wide GEMM panel, a group of 8 channels, a channel-major row of at
/// most 8 pixels.
enum BaselineF32x8: ChannelMajorVectors {
    typealias Vector = SIMD8<Float>
    typealias Narrow = BaselineF32x8
    static var count: Int { 1 }
}

/// One 16-lane vector, two ymm registers: 16 pixels of a channel-major row (about 7 % faster
/// than 8 in pose_detection's channel-major depthwise convolutions on a Zen 3: twice the
/// independent sums per tap).
enum BaselineF32x16: ChannelMajorVectors {
    typealias Vector = SIMD16<Float>
    typealias Narrow = BaselineF32x8
    static var count: Int { 1 }
}

/// One 4-lane vector: the channels of a depthwise convolution of 4 to 7 channels.
enum BaselineF32x4: KernelVectors {
    typealias Vector = SIMD4<Float>
    static var count: Int { 1 }
}

/// Two 8-lane vectors: the 16-wide GEMM panel, a group of 16 channels.
enum BaselineF32x8x2: KernelVectors {
    typealias Vector = SIMD8<Float>
    static var count: Int { 2 }
}

/// The baseline family's marker for the templates that take a family and a vector type.
enum BaselineFamily: KernelFamily {}

/// The baseline family's microkernels.
let baselineMicrokernels = MicrokernelTable(
    instructionSet: baselineInstructionSetName,
    gemmPanelWidth: BaselineF32x8x2.count * SIMD8<Float>.scalarCount, gemmTileRows: GemmSixRows.count,
    gemmShortTileRows: GemmFiveRows.count, gemmHalfPanelTileRows: GemmFourRows.count,
    gemmPanels: baselineGemmPanels,
    gemmHalfPanels: baselineGemmHalfPanels,
    gemmWideningTile: baselineGemmWideningTile,
    gemmJoinedPanels: baselineGemmJoinedPanels,
    convolutionEpilogue: baselineConvolutionEpilogue,
    depthwiseInterior: baselineDepthwiseInterior,
    depthwiseBand: baselineDepthwiseBand,
    depthwisePixel: baselineDepthwisePixel,
    sparsePointwiseTile: baselineSparsePointwiseTile,
    packSparsePointwiseTile: baselinePackSparsePointwiseTile,
    depthwiseCHWBand: baselineDepthwiseCHWBand,
    depthwiseCHWPlanes: baselineDepthwiseCHWPlanes,
    channelMajorConvTile: baselineChannelMajorConvTile,
    fmaPeakChains: baselineFMAPeakChains,
    fmaPeakFlopsPerRound: fmaPeakFlopsPerRound(SIMD8<Float>.self),
    names: [
        "f32-gemm-6x16-\(baselineInstructionSetName)", "f32-gemm-5x16-\(baselineInstructionSetName)",
        "f32-gemm-8x8-\(baselineInstructionSetName)", "f32-gemm-3x24-\(baselineInstructionSetName)",
        "f32-gemm-4x16-f16w-\(baselineInstructionSetName)", "f32-gemm-4x16-f16w-widening-\(baselineInstructionSetName)",
        "f32-gemm-epilogue-\(baselineInstructionSetName)",
        "f32-dwconv-3x3s1-\(baselineInstructionSetName)", "f32-dwconv-3x3s2-\(baselineInstructionSetName)",
        "f32-dwconv-5x5s1-\(baselineInstructionSetName)", "f32-dwconv-5x5s2-\(baselineInstructionSetName)",
        "f32-dwconv-band-\(baselineInstructionSetName)", "f32-dwconv-pixel-\(baselineInstructionSetName)", "f32-spmm-16-\(baselineInstructionSetName)",
        "f32-dwconv2d-chw-3x3-\(baselineInstructionSetName)", "f32-dwconv2d-chw-3x3s2-\(baselineInstructionSetName)",
        "f32-dwconv2d-chw-5x5-\(baselineInstructionSetName)", "f32-dwconv2d-chw-5x5s2-\(baselineInstructionSetName)",
        "f32-dwconv2d-chw-planes-\(baselineInstructionSetName)", "f32-conv-hwc2chw-6x16-\(baselineInstructionSetName)",
        "f32-fma-peak-\(baselineInstructionSetName)",
    ])

/// `avx2-fma` in the native build, `portable` otherwise.
private var baselineInstructionSetName: String {
    #if LANDMARKER_FMA
    return "avx2-fma"
    #else
    return "portable"
    #endif
}

/// The GEMM over whole 16-wide panels, 6×16 tiles: 12 accumulators, the panel's 2 vectors and
/// a broadcast fill AVX2's 16 registers; 5×16 ones where they make the rows come out exactly
/// (a 7 × 7 map's 49 rows as 4 × 6 + 5 × 5). Each panel in turn, every tile of rows of it, so
/// the panel stays in L1 while the block of A streams from L2.
@inline(never)
private func baselineGemmPanels(_ operands: GemmPanelOperands) {
    gemmPanels(
        BaselineF32x8x2.self, BaselineF32x8x2.self, GemmSixRows.self, GemmFiveRows.self, rowsOuterUpToFloats: 0,
        operands)
}

/// The GEMM over whole 16-wide float16 panels for blocks of few rows: 4×16 tiles that widen
/// each k's two panel vectors as they load them.
@inline(never)
private func baselineGemmHalfPanels(_ operands: GemmPanelOperands) {
    gemmHalfPanels(BaselineF32x8x2.self, GemmFourRows.self, operands)
}

/// The first rows (at most 4) of a whole 16-wide float16 panel: the 4×16 tile that widens each
/// k's two panel vectors as it loads them, storing them to the panel's float32 copy.
@inline(never)
private func baselineGemmWideningTile(_ operands: GemmPanelOperands, widenedCopy: UnsafeMutablePointer<Float>) {
    gemmWideningTile(BaselineF32x8x2.self, operands, widenedCopy: widenedCopy)
}

/// A last whole panel of 16 channels and the panel of 8 after it, in 3×24 tiles: 9 accumulators,
/// three panel loads and three broadcasts per k (`gemmJoinedPanels`).
@inline(never)
private func baselineGemmJoinedPanels(_ operands: GemmPanelOperands) {
    gemmJoinedPanels(BaselineF32x8x2.self, BaselineF32x8.self, GemmThreeRows.self, operands)
}

/// A last GEMM panel of 8 channels, in both families, where it is not joined to the panel before
/// it (`gemmJoinedPanels`: a partial one, one after a 32-wide AVX-512 panel, float16 weights, a
/// single row): 8×8 tiles, 8 accumulators, enough to keep both FMA pipes busy.
/// - Parameters:
///   - a: row 0 of A, laid out as `runs` says.
///   - rows: rows of A and C.
///   - panel: the 8-wide K-major panel.
///   - bias: its 8 biases.
///   - c: row 0 of C at the panel's first column; row `r` starts at `c + r·cStride`.
///   - columns: the panel's channels, 1...8.
///   - bounds: the clamp of every output.
///   - epilogue: the ADD and PRELU after the clamp, or nil; `channel` is the panel's first
///     output channel.
@inline(never)
func gemmNarrowPanel(
    a: UnsafePointer<Float>, rows: Int, runs: GemmRowRuns, panel: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    bounds: UnsafePointer<ClampBounds>, epilogue: UnsafePointer<EpilogueOperands>?, channel: Int
) {
    func tiles<Output: GemmTileOutput>(_ output: Output.Type) {
        for row in stride(from: 0, to: rows, by: 8) {
            gemmTile(
                BaselineF32x8.self, GemmEightRows.self, Output.self, GemmFloat32Panel.self,
                rows: min(8, rows - row), a: a + row * runs.rowStride, runs: runs,
                panel: panel, bias: bias, c: c + row * cStride, cStride: cStride, columns: columns,
                bounds: bounds, epilogue: epilogue, channel: channel)
        }
    }
    if epilogue == nil { tiles(GemmTileClampOnly.self) } else { tiles(GemmTileWithEpilogue.self) }
}

/// `EpilogueOperands.apply`, eight lanes at a time with a scalar tail.
@inline(never)
private func baselineConvolutionEpilogue(
    _ epilogue: EpilogueOperands, c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, column: Int,
    columns: Int
) {
    epilogue.apply(BaselineF32x8.self, BaselineF32x8.self, c: c, cStride: cStride, rows: rows, column: column, columns: columns)
}

/// The interior of one depthwise output row, compiled once per filter shape so that the tap
/// loops unroll and neighbouring pixels share their input loads: channels 16 at a time in the
/// outer loop (then 8, then the last 8 for channels left over; 4 at a time below 8 channels), so
/// a group's weights stay in L1 while blocks of 4 pixels sweep the row with 8 accumulators.
@inline(never)
private func baselineDepthwiseInterior(size: Int, stride: Int, _ row: DepthwiseInteriorRow) {
    switch (size, stride) {
    case (3, 1): depthwiseInterior(Depthwise3x3Stride1.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, BaselineF32x4.self, row)
    case (3, 2): depthwiseInterior(Depthwise3x3Stride2.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, BaselineF32x4.self, row)
    case (5, 1): depthwiseInterior(Depthwise5x5Stride1.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, BaselineF32x4.self, row)
    case (5, 2): depthwiseInterior(Depthwise5x5Stride2.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, BaselineF32x4.self, row)
    default: preconditionFailure("no depthwise interior kernel for \(size)×\(size) stride \(stride)")
    }
}

/// A band of 2...4 depthwise output rows, column by column (`depthwiseBand`): channels 16 at a
/// time (two ymm vectors), then 8, then the last 8 for channels left over.
@inline(never)
private func baselineDepthwiseBand(size: Int, stride: Int, _ band: DepthwiseBand) {
    switch (size, stride) {
    case (3, 1): depthwiseBand(Depthwise3x3Stride1.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, band)
    case (3, 2): depthwiseBand(Depthwise3x3Stride2.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, band)
    case (5, 1): depthwiseBand(Depthwise5x5Stride1.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, band)
    case (5, 2): depthwiseBand(Depthwise5x5Stride2.self, BaselineF32x8x2.self, BaselineF32x8.self, BaselineF32x8.self, band)
    default: preconditionFailure("no depthwise band kernel for \(size)×\(size) stride \(stride)")
    }
}

/// One depthwise output pixel with any window of valid taps: 32 channels at a time with 4
/// accumulators, then 8, then the last 8 for channels left over (one by one below 8 channels).
@inline(never)
private func baselineDepthwisePixel(
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Int,
    lower: Float, upper: Float
) {
    depthwisePixel(
        BaselineF32x8.self, BaselineF32x8.self, walk: walk, input: input, weights: weights, bias: bias,
        output: output, channels: channels, lower: lower, upper: upper)
}

/// The channels in `channels` (fewer than 8, past the last whole vector) of one depthwise
/// output pixel, one at a time (`depthwisePixelScalarChannels`).
@inline(never)
func depthwiseScalarChannels(
    walk: DepthwiseTapWalk, input: UnsafePointer<Float>, weights: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, channels: Range<Int>,
    lower: Float, upper: Float
) {
    depthwisePixelScalarChannels(
        BaselineF32x8.self, walk: walk, input: input, weights: weights, bias: bias, output: output,
        channels: channels, lower: lower, upper: upper)
}

/// One tile of the sparse 1×1 convolution on channel-major tensors: two 8-lane vectors per
/// 16-pixel unit, one chain per pixel (`sparsePointwiseTile`).
@inline(never)
private func baselineSparsePointwiseTile(
    _ tile: SparsePointwiseTile, weights: SparsePointwiseWeights, out: SparsePointwiseOutput
) {
    sparsePointwiseTile(BaselineF32x8x2.self, tile, weights: weights, out: out)
}

/// `packSparsePointwiseTile` on two 8-lane vectors per 16 pixels.
@inline(never)
private func baselinePackSparsePointwiseTile(
    input: UnsafePointer<Float>, channelStride: Int, channels: Int, pixels: Int,
    packed: UnsafeMutablePointer<Float>
) {
    packSparsePointwiseTile(
        BaselineF32x8x2.self, input: input, channelStride: channelStride, channels: channels, pixels: pixels,
        packed: packed)
}

/// One band of a channel-major depthwise convolution, 16 pixels of a row at a time in two
/// ymm registers (8 for rows of at most 8 pixels and for a last piece of at most 8)
/// (`depthwiseCHWBand`).
@inline(never)
private func baselineDepthwiseCHWBand(size: Int, strideWidth: Int, _ band: DepthwiseCHWBandOperands) {
    depthwiseCHWBand(BaselineF32x16.self, size: size, strideWidth: strideWidth, band)
}

/// Whole small planes of a channel-major depthwise convolution, 16 flat positions per vector
/// of two ymm registers (`depthwiseCHWPlanes`).
@inline(never)
private func baselineDepthwiseCHWPlanes(size: Int, stride: Int, _ planes: DepthwiseCHWPlanesOperands) {
    depthwiseCHWPlanes(BaselineF32x16.self, size: size, stride: stride, planes)
}

/// One tile of a convolution that writes channel-major: six channels by two 8-lane vectors
/// of pixels at a time, 12 accumulators (`channelMajorConvTile`).
@inline(never)
private func baselineChannelMajorConvTile(_ tile: ChannelMajorConvTile) {
    channelMajorConvTile(BaselineF32x8.self, CHWCount2.self, tile)
}

/// `fmaPeakChains` on `SIMD8<Float>`.
@inline(never)
private func baselineFMAPeakChains(rounds: Int, multiplier: Float, addend: Float) -> Float {
    fmaPeakChains(SIMD8<Float>.self, family: BaselineFamily.self, rounds: rounds, multiplier: multiplier, addend: addend)
}
