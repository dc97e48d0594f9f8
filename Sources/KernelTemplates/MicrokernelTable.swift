/// The microkernels of one instruction-set family, as the ops call them: one value per family,
/// made in the one source file where the family instantiates the templates of this module
/// (Kernels' `BaselineKernels.swift`, KernelsAVX512's `AVX512Kernels.swift`). An op asks its
/// weights' family for its table (Kernels' `KernelInstructionSet.microkernels`), so which family
/// runs is decided in one place, not at each call.
///
/// Every entry computes each output element with the same float operations in the same order
/// in every family, so two families' results are bit-identical; they differ in vector width and
/// tiling only. A class, so that looking a table up costs one reference, not a copy of every
/// entry.
public final class MicrokernelTable: Sendable {
    /// The family's instruction-set name in XNNPACK's style: `avx2-fma` (or `portable` in a
    /// build without FMA code generation), `avx512f`.
    public let instructionSet: String
    /// Output channels per full GEMM panel: two vectors of the family's widest type.
    public let gemmPanelWidth: Int
    /// Rows of one full-panel GEMM tile; `GemmTiling` cuts blocks of rows in multiples of it.
    public let gemmTileRows: Int
    /// Rows of the shorter tile `gemmPanels` mixes in (`GemmRowTiles`); `gemmTileRows` where
    /// the family has none.
    public let gemmShortTileRows: Int
    /// Rows of `gemmHalfPanels`' taller tile (its shorter one has 4).
    public let gemmHalfPanelTileRows: Int
    /// The GEMM over whole panels (`gemmPanels` of this module): full panels of
    /// `gemmPanelWidth` channels, a half-width one after them.
    public let gemmPanels: @Sendable (GemmPanelOperands) -> Void
    /// The GEMM over whole float16 panels for blocks of few rows (`gemmHalfPanels`).
    public let gemmHalfPanels: @Sendable (GemmPanelOperands) -> Void
    /// The first rows (at most 4) of one whole float16 panel, leaving the panel's float32 copy
    /// behind (`gemmWideningTile`).
    public let gemmWideningTile: @Sendable (GemmPanelOperands, UnsafeMutablePointer<Float>) -> Void
    /// A 16-wide float32 panel and the whole 8-wide last panel after it, together
    /// (`gemmJoinedPanels`); nil in a family that computes them apart.
    public let gemmJoinedPanels: (@Sendable (GemmPanelOperands) -> Void)?
    /// `EpilogueOperands.apply` on the family's vectors: the fused ADD and PRELU on a block of
    /// a convolution's output (`c`, `cStride`, `rows`, `column`, `columns`).
    public let convolutionEpilogue: @Sendable (
        _ epilogue: EpilogueOperands, _ c: UnsafeMutablePointer<Float>, _ cStride: Int, _ rows: Int,
        _ column: Int, _ columns: Int) -> Void
    /// The interior of one output row of a depthwise convolution (`depthwiseInterior`) for a
    /// square `size × size` filter (3 or 5) at `stride` (1 or 2), undilated.
    public let depthwiseInterior: @Sendable (_ size: Int, _ stride: Int, DepthwiseInteriorRow) -> Void
    /// A band of 2...4 output rows of a depthwise convolution, each over its filter rows
    /// inside the input (`depthwiseBand`), for a square `size × size` filter (3 or 5) at
    /// `stride` (1 or 2), undilated.
    public let depthwiseBand: @Sendable (_ size: Int, _ stride: Int, DepthwiseBand) -> Void
    /// One output pixel of a depthwise convolution with any window of valid taps
    /// (`depthwisePixel`): the taps' walk, the first valid tap's input and packed weights
    /// (channel 0), `channels` biases, the pixel's output, the channel count and the clamp.
    public let depthwisePixel: @Sendable (
        _ walk: DepthwiseTapWalk, _ input: UnsafePointer<Float>, _ weights: UnsafePointer<Float>,
        _ bias: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, _ channels: Int,
        _ lower: Float, _ upper: Float) -> Void
    /// One tile of the sparse 1×1 convolution on channel-major tensors (`sparsePointwiseTile`).
    public let sparsePointwiseTile: @Sendable (SparsePointwiseTile, SparsePointwiseWeights, SparsePointwiseOutput) -> Void
    /// Copies a tile's pixels of some input rows to aligned scratch for `sparsePointwiseTile`
    /// (`packSparsePointwiseTile`): input, floats between rows, rows, pixels, destination.
    public let packSparsePointwiseTile: @Sendable (
        _ input: UnsafePointer<Float>, _ channelStride: Int, _ channels: Int, _ pixels: Int,
        _ packed: UnsafeMutablePointer<Float>) -> Void
    /// One band of output rows of a channel-major depthwise convolution
    /// (`depthwiseCHWBand`): the filter size (3 or 5), the stride along W (1 or 2, the band's
    /// stride along H too), the band.
    public let depthwiseCHWBand: @Sendable (_ size: Int, _ strideWidth: Int, DepthwiseCHWBandOperands) -> Void
    /// Whole small planes of a channel-major depthwise convolution (`depthwiseCHWPlanes`): the
    /// filter size (3 or 5), the stride along both axes (1 or 2), the planes.
    public let depthwiseCHWPlanes: @Sendable (_ size: Int, _ stride: Int, DepthwiseCHWPlanesOperands) -> Void
    /// One tile of 64 output pixels of a convolution that writes channel-major
    /// (`channelMajorConvTile`).
    public let channelMajorConvTile: @Sendable (ChannelMajorConvTile) -> Void
    /// The fp32 multiply-add peak loop (`fmaPeakChains`) on the family's widest vector:
    /// `rounds`, multiplier, addend; returns the accumulators' sum.
    public let fmaPeakChains: @Sendable (_ rounds: Int, _ multiplier: Float, _ addend: Float) -> Float
    /// Floating-point operations in one round of `fmaPeakChains`.
    public let fmaPeakFlopsPerRound: Int
    /// The names of the family's microkernels in XNNPACK's style (operation, data type, tile,
    /// instruction set), for listings: `f32-gemm-6x16-avx2-fma`, `f32-dwconv-3x3s1-avx512f`, ….
    public let names: [String]

    @inlinable
    public init(
        instructionSet: String, gemmPanelWidth: Int, gemmTileRows: Int, gemmShortTileRows: Int,
        gemmHalfPanelTileRows: Int,
        gemmPanels: @escaping @Sendable (GemmPanelOperands) -> Void,
        gemmHalfPanels: @escaping @Sendable (GemmPanelOperands) -> Void,
        gemmWideningTile: @escaping @Sendable (GemmPanelOperands, UnsafeMutablePointer<Float>) -> Void,
        gemmJoinedPanels: (@Sendable (GemmPanelOperands) -> Void)?,
        convolutionEpilogue: @escaping @Sendable (
            EpilogueOperands, UnsafeMutablePointer<Float>, Int, Int, Int, Int) -> Void,
        depthwiseInterior: @escaping @Sendable (Int, Int, DepthwiseInteriorRow) -> Void,
        depthwiseBand: @escaping @Sendable (Int, Int, DepthwiseBand) -> Void,
        depthwisePixel: @escaping @Sendable (
            DepthwiseTapWalk, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>,
            UnsafeMutablePointer<Float>, Int, Float, Float) -> Void,
        sparsePointwiseTile: @escaping @Sendable (SparsePointwiseTile, SparsePointwiseWeights, SparsePointwiseOutput) -> Void,
        packSparsePointwiseTile: @escaping @Sendable (
            UnsafePointer<Float>, Int, Int, Int, UnsafeMutablePointer<Float>) -> Void,
        depthwiseCHWBand: @escaping @Sendable (Int, Int, DepthwiseCHWBandOperands) -> Void,
        depthwiseCHWPlanes: @escaping @Sendable (Int, Int, DepthwiseCHWPlanesOperands) -> Void,
        channelMajorConvTile: @escaping @Sendable (ChannelMajorConvTile) -> Void,
        fmaPeakChains: @escaping @Sendable (Int, Float, Float) -> Float,
        fmaPeakFlopsPerRound: Int, names: [String]
    ) {
        self.instructionSet = instructionSet
        self.gemmPanelWidth = gemmPanelWidth
        self.gemmTileRows = gemmTileRows
        self.gemmShortTileRows = gemmShortTileRows
        self.gemmHalfPanelTileRows = gemmHalfPanelTileRows
        self.gemmPanels = gemmPanels
        self.gemmHalfPanels = gemmHalfPanels
        self.gemmWideningTile = gemmWideningTile
        self.gemmJoinedPanels = gemmJoinedPanels
        self.convolutionEpilogue = convolutionEpilogue
        self.depthwiseInterior = depthwiseInterior
        self.depthwiseBand = depthwiseBand
        self.depthwisePixel = depthwisePixel
        self.sparsePointwiseTile = sparsePointwiseTile
        self.packSparsePointwiseTile = packSparsePointwiseTile
        self.depthwiseCHWBand = depthwiseCHWBand
        self.depthwiseCHWPlanes = depthwiseCHWPlanes
        self.channelMajorConvTile = channelMajorConvTile
        self.fmaPeakChains = fmaPeakChains
        self.fmaPeakFlopsPerRound = fmaPeakFlopsPerRound
        self.names = names
    }
}
