// The GEMM of `C = clamp(A · W + bias)` read straight from float16 panels, for blocks of few
// rows: widening a whole panel into float32 scratch (as Kernels' `gemmF32Block` does for longer
// blocks) costs as much as multiplying a 2×2 or 4×4 map's handful of rows by it, so here each
// k's panel vectors are widened as they are loaded (`GemmFloat16Panel`), in tiles of as many
// rows as the family's registers hold with the conversions: 4 in AVX2's 16 (six would no longer
// fit), 8 in AVX-512's 32 (16 accumulators, so half as many conversions per multiply-add). Every
// element is still its bias plus one multiply-add per k in ascending k order, with each weight
// widened exactly, so the sums are those of the float32 panels, bit for bit. Longer blocks
// start with the widening tile (`gemmWideningTile`): their first 4 rows read a panel the same
// way and leave its float32 copy behind for the other rows. A lone row goes through
// `gemmRowTiles`, four panels at a time, reading the float16 panels in place too: half the bytes
// of float32 panels, which a layer of one row (a model's head) streams from L3 in every run.

/// The tiles of `g` over whole panels of float16 weights (`g.panels` within
/// `0 ..< g.fullPanelCount`; `g.packed` holds the panels' bit patterns, panel `p` at byte offset
/// `2·w·p·K` for the family's panel width `w`): for each tile of `Rows.count` rows every panel in
/// turn, so that the tile's rows of A stay in cache while the weights stream past them once.
@inlinable @inline(__always)
public func gemmHalfPanels<Full: KernelVectors, Rows: GemmTileRows>(
    _ full: Full.Type, _ tileRows: Rows.Type, _ g: GemmPanelOperands
) {
    if g.epilogue == nil {
        gemmHalfPanelTiles(Full.self, Rows.self, GemmTileClampOnly.self, g)
    } else {
        gemmHalfPanelTiles(Full.self, Rows.self, GemmTileWithEpilogue.self, g)
    }
}

/// `gemmHalfPanels` with tiles that apply the epilogue or not, as `Output` says. The block's
/// rows go to tiles of `Rows.count` rows and of 4 as `GemmRowTiles` cuts them, so that a 2×2
/// map's 4 rows, or the 4 left of a block of 12 in AVX-512's 8-row tiles, are not computed as
/// 8; a single row to `gemmRowTiles`.
@inlinable @inline(__always)
func gemmHalfPanelTiles<Full: KernelVectors, Rows: GemmTileRows, Output: GemmTileOutput>(
    _ full: Full.Type, _ tileRows: Rows.Type, _ output: Output.Type, _ g: GemmPanelOperands
) {
    if g.rows == 1 {
        gemmRowTiles(Full.self, GemmFloat16Panel.self, Output.self, panels: g.panels, g)
        return
    }
    let width = Full.count * Full.Vector.scalarCount
    let depth = g.runs.segmentCount * g.runs.segmentLength
    /// Rows `row ..< row + rows` of every panel through tiles of `TileRows.count` rows.
    func tiles<TileRows: GemmTileRows>(of tileRows: TileRows.Type, row: Int, rows: Int) {
        for p in g.panels {
            let column = p * width
            gemmTile(
                Full.self, TileRows.self, Output.self, GemmFloat16Panel.self, rows: rows,
                a: g.a + row * g.runs.rowStride, runs: g.runs,
                panel: g.packed + GemmFloat16Panel.size * column * depth, bias: g.bias + column,
                c: g.c + row * g.cStride + column, cStride: g.cStride, columns: min(width, g.outputs - column),
                bounds: g.bounds, epilogue: g.epilogue, channel: g.channel + column)
        }
    }
    GemmRowTiles(rows: g.rows, tileRows: Rows.count, shortTileRows: GemmFourRows.count).forEachTile(
        tall: { row, rows in tiles(of: Rows.self, row: row, rows: rows) },
        short: { row, rows in tiles(of: GemmFourRows.self, row: row, rows: rows) })
}

/// The first rows (at most 4) of one whole float16 panel (`g.panels` is one panel within
/// `0 ..< g.fullPanelCount`, `g.packed` as for `gemmHalfPanels`) through the 4-row tile that
/// reads the panel in place, widening each k's weights, and stores them widened at
/// `widenedCopy` (the panel's width times K floats, K-major): the panel's float32 copy, which
/// the tiles of the block's other rows then read.
@inlinable @inline(__always)
public func gemmWideningTile<Full: KernelVectors>(
    _ full: Full.Type, _ g: GemmPanelOperands, widenedCopy: UnsafeMutablePointer<Float>
) {
    precondition(g.rows <= GemmFourRows.count && g.panels.count == 1, "not the first rows of one panel")
    if g.epilogue == nil {
        gemmWideningTile(Full.self, GemmTileClampOnly.self, g, widenedCopy: widenedCopy)
    } else {
        gemmWideningTile(Full.self, GemmTileWithEpilogue.self, g, widenedCopy: widenedCopy)
    }
}

/// `gemmWideningTile` with a tile that applies the epilogue or not, as `Output` says.
@inlinable @inline(__always)
func gemmWideningTile<Full: KernelVectors, Output: GemmTileOutput>(
    _ full: Full.Type, _ output: Output.Type, _ g: GemmPanelOperands, widenedCopy: UnsafeMutablePointer<Float>
) {
    let width = Full.count * Full.Vector.scalarCount
    let depth = g.runs.segmentCount * g.runs.segmentLength
    let column = g.panels.lowerBound * width
    gemmTile(
        Full.self, GemmFourRows.self, Output.self, GemmFloat16PanelWidening.self, rows: g.rows, a: g.a, runs: g.runs,
        panel: g.packed + GemmFloat16Panel.size * column * depth, bias: g.bias + column, c: g.c + column,
        cStride: g.cStride, columns: min(width, g.outputs - column), bounds: g.bounds, epilogue: g.epilogue,
        channel: g.channel + column, widenedCopy: widenedCopy)
}
