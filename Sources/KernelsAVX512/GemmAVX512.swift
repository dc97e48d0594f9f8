import KernelTemplates

// The 512-bit GEMM microkernels of `C = clamp(A · W + bias)`, for the 1×1
// and k×k convolutions and FULLY_CONNECTED: `gemmTile` of KernelTemplates
// (the baseline kernels' template too) on `SIMD16<Float>`, so an element is
// its bias plus one fused multiply-add per k, in ascending k order, and it
// is bit-identical to the baseline kernels' result.

/// Output channels per full panel of the 512-bit kernels (two zmm vectors):
/// Kernels' `PackedGemmWeights.avx512PanelWidth`.
let gemmPanelWidthAVX512 = 32

/// Rows of C per microkernel call: Kernels' `GemmTiling.avx512MicrokernelRows`.
let gemmMicrokernelRowsAVX512 = 8

/// Computes rows `0..<rows` × the columns of `panels` of C. When the
/// panels are too large for L1, for each panel every 8-row tile in turn,
/// so that the panel stays in L1 while the rows of A stream from L2;
/// otherwise for each 8-row tile every panel in turn, so that the tile's
/// rows of A are read once and each row of C is written whole. The order
/// never changes what is computed.
///
/// - Parameters:
///   - a: row 0 of A, laid out as `runs` says (`K = segmentCount·segmentLength`).
///   - packed: the packed weights (Kernels' `PackedGemmWeights`): panels
///     `0 ..< fullPanelCount` are 32 wide, panel `p` at float offset
///     `32·p·K`; panel `fullPanelCount` is 16 wide, at `32·fullPanelCount·K`.
///     Each is K-major, its width in floats per k. `panels` holds only
///     these (not a last panel of 8).
///   - bias: the bias, zero-padded to a multiple of 32 floats.
///   - outputs: N, the number of columns of C.
///   - c: row 0 of C, column 0; row `r` starts at `c + r·cStride`.
@inline(never)
public func gemmF32PanelsAVX512(
    a: UnsafePointer<Float>, rows: Int, runs: GemmRowRuns,
    packed: UnsafePointer<Float>, bias: UnsafePointer<Float>, outputs: Int,
    panels: Range<Int>, fullPanelCount: Int,
    c: UnsafeMutablePointer<Float>, cStride: Int, lower: Float, upper: Float
) {
    let width = gemmPanelWidthAVX512, mr = gemmMicrokernelRowsAVX512
    let depth = runs.segmentCount * runs.segmentLength
    /// One tile: rows `row ..< row + 8` of panel `p`.
    func tile(row: Int, panel p: Int) {
        let panel = packed + p * width * depth
        let column = p * width
        let columns = min(p == fullPanelCount ? 16 : width, outputs - column)
        if p == fullPanelCount {
            // 8×16: 8 accumulators, one load of the panel and eight broadcasts of A per k.
            gemmTile(
                AVX512F32x16.self, GemmEightRows.self,
                rows: min(mr, rows - row), a: a + row * runs.rowStride, runs: runs,
                panel: panel, bias: bias + column, c: c + row * cStride + column,
                cStride: cStride, columns: columns, lower: lower, upper: upper)
        } else {
            // 8×32: 16 accumulators, two loads of the panel and eight broadcasts of A per k.
            gemmTile(
                AVX512F32x16x2.self, GemmEightRows.self,
                rows: min(mr, rows - row), a: a + row * runs.rowStride, runs: runs,
                panel: panel, bias: bias + column, c: c + row * cStride + column,
                cStride: cStride, columns: columns, lower: lower, upper: upper)
        }
    }
    // `depth` and `panels.count` are at most the packed buffer's float count: no overflow.
    if depth * panels.count * width <= panelsInL1Floats {
        for row in stride(from: 0, to: rows, by: mr) {
            for p in panels { tile(row: row, panel: p) }
        }
    } else {
        for p in panels {
            for row in stride(from: 0, to: rows, by: mr) { tile(row: row, panel: p) }
        }
    }
}

/// Floats of packed panels that stay in L1 while every tile of rows passes
/// over all of them: 24 KiB, half of a 48 KiB L1.
let panelsInL1Floats = 6 * 1024

extension EpilogueOperands {
    /// Finishes rows `0..<rows`, columns `column ..< column + columns` of
    /// the block already stored at `c` (row `r` at `c + r·cStride`; column 0
    /// of `c` is channel 0): 16 lanes at a time, then 8, then one by one
    /// (`apply` of KernelTemplates).
    @inline(never)
    public func applyAVX512(c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, column: Int, columns: Int) {
        apply(AVX512F32x16.self, AVX512F32x8.self, c: c, cStride: cStride, rows: rows, column: column, columns: columns)
    }
}
