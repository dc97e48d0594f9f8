// The register-blocked GEMM tile of `C = clamp(A · W + bias)`, written once for every
// family: `Rows.count` rows (4, 5, 6 or 8) × `Vectors.count` vectors (1 or 2) of C, all of K
// summed in registers, from float32 panels or from float16 ones widened as they are loaded
// (`GemmPanelElements`). Every element is its bias plus one multiply-add per k in ascending k
// order, so its value depends only on its row of A and its column of W, never on the tile,
// the family or the thread that computed it. Rows past `rows` reuse the last valid row's
// pointer (the extra lanes are computed and dropped), so one kernel covers every row
// remainder without branches in the k loop. A lone row (a one-pixel convolution, a
// FULLY_CONNECTED of batch 1) has a tile of its own, `gemmRowTile`, over up to four panels of
// either precision, with the same sums.

/// Where the GEMM kernels read the K values of each row of A: row `r` is `segmentCount`
/// runs of `segmentLength` contiguous floats, run `s` starting at
/// `a + r·rowStride + s·segmentStride` (`K = segmentCount·segmentLength`). A row-major
/// matrix is one run of K; a convolution reads an output pixel's taps straight from the NHWC
/// input as `KH` runs of `KW·Cin` (one per filter row).
public struct GemmRowRuns: Sendable {
    /// Floats between the starts of consecutive rows.
    public var rowStride: Int
    public var segmentCount: Int
    public var segmentLength: Int
    /// Floats between the starts of consecutive runs of one row.
    public var segmentStride: Int

    @inlinable
    public init(rowStride: Int, segmentCount: Int, segmentLength: Int, segmentStride: Int) {
        self.rowStride = rowStride
        self.segmentCount = segmentCount
        self.segmentLength = segmentLength
        self.segmentStride = segmentStride
    }
}

/// Rows of a GEMM tile, fixed at compile time: 4, 5, 6, 7 or 8.
public protocol GemmTileRows {
    static var count: Int { get }
}

/// 4 rows: the tile that widens a float16 panel into its float32 copy as it computes a block's
/// first rows (`gemmWideningTile`, both families), AVX2's tile that reads float16 panels in
/// place (the conversions leave no room in its 16 registers for more rows), and AVX-512's for a
/// last tile of at most 4 such rows.
public enum GemmFourRows: GemmTileRows {
    @inlinable public static var count: Int { 4 }
}

/// 5 rows: AVX2's short float32 tile. With 6-row tiles it covers any block of 20 rows or more
/// exactly (`GemmRowTiles`: a 7 × 7 map's 49 rows as 4 × 6 + 5 × 5).
public enum GemmFiveRows: GemmTileRows {
    @inlinable public static var count: Int { 5 }
}

/// 6 rows: with two 8-lane vectors a row, 12 accumulators, the panel's 2 vectors and one
/// broadcast fill the 16 vector registers of AVX2.
public enum GemmSixRows: GemmTileRows {
    @inlinable public static var count: Int { 6 }
}

/// 7 rows: AVX-512's short float32 tile. With 8-row tiles it covers any block of 42 rows or
/// more exactly (a 7 × 7 map's 49 rows as 7 × 7, a 14 × 14 map's 196 as 21 × 8 + 4 × 7).
public enum GemmSevenRows: GemmTileRows {
    @inlinable public static var count: Int { 7 }
}

/// 8 rows: AVX-512's tiles, float32 panels or float16 ones widened as they are loaded (16
/// accumulators of its 32 registers).
public enum GemmEightRows: GemmTileRows {
    @inlinable public static var count: Int { 8 }
}

/// How a GEMM panel stores its weights, fixed at compile time: the tile loads each k's vectors
/// of weights through it.
public protocol GemmPanelElements {
    /// Bytes a weight.
    static var size: Int { get }
    /// Whether the tile also stores each k's weights, as floats, to a float32 copy of the panel
    /// (false unless a panel type says otherwise).
    static var storesWidenedCopy: Bool { get }
    /// The `Vectors.Vector.scalarCount` weights at `pointer` as floats (no alignment required).
    static func load<Vectors: KernelVectors>(_ vectors: Vectors.Type, _ pointer: UnsafeRawPointer) -> Vectors.Vector
}

extension GemmPanelElements {
    @inlinable public static var storesWidenedCopy: Bool { false }
}

/// Float32 weights, read as they are.
public enum GemmFloat32Panel: GemmPanelElements {
    @inlinable public static var size: Int { 4 }

    @inlinable @inline(__always)
    public static func load<Vectors: KernelVectors>(
        _ vectors: Vectors.Type, _ pointer: UnsafeRawPointer
    ) -> Vectors.Vector {
        pointer.loadUnaligned(as: Vectors.Vector.self)
    }
}

/// Float16 bit patterns, each widened exactly as it is loaded.
public enum GemmFloat16Panel: GemmPanelElements {
    @inlinable public static var size: Int { 2 }

    @inlinable @inline(__always)
    public static func load<Vectors: KernelVectors>(
        _ vectors: Vectors.Type, _ pointer: UnsafeRawPointer
    ) -> Vectors.Vector {
        Vectors.loadWidening(pointer)
    }
}

/// Float16 bit patterns, each widened exactly as it is loaded and stored widened to the float32
/// copy of the panel that the tiles of the block's other rows then read: the panel's first
/// tile streams the cold weights from memory while it multiplies, rather than a pass of its own
/// that only waits for them.
public enum GemmFloat16PanelWidening: GemmPanelElements {
    @inlinable public static var size: Int { GemmFloat16Panel.size }
    @inlinable public static var storesWidenedCopy: Bool { true }

    @inlinable @inline(__always)
    public static func load<Vectors: KernelVectors>(
        _ vectors: Vectors.Type, _ pointer: UnsafeRawPointer
    ) -> Vectors.Vector { GemmFloat16Panel.load(Vectors.self, pointer) }
}

/// Whether a GEMM tile applies an epilogue, fixed at compile time: a tile without one compiles
/// to no more than the clamp and the stores.
public protocol GemmTileOutput {
    static var appliesEpilogue: Bool { get }
}

/// Tiles that clamp and store.
public enum GemmTileClampOnly: GemmTileOutput {
    @inlinable public static var appliesEpilogue: Bool { false }
}

/// Tiles that clamp, apply their `EpilogueOperands` and store.
public enum GemmTileWithEpilogue: GemmTileOutput {
    @inlinable public static var appliesEpilogue: Bool { true }
}

/// A `rows × columns` tile of C (rows 1...`Rows.count`, columns 1...`Vectors.count` vector
/// widths) from one panel: `Rows.count · Vectors.count` accumulators, `Vectors.count` loads of
/// the panel (in `Panel`'s elements) and `Rows.count` broadcasts of A per k. Instantiate it
/// with the family's own `KernelVectors` type: the specialisation is compiled into the family's
/// module, as a function of its own (not inlined into the loop over tiles).
///
/// - Parameters:
///   - a: row 0 of A, laid out as `runs` says.
///   - panel: K-major panel, `Vectors.count` vectors of `Panel` elements per k.
///   - bias: the panel's `Vectors.count` vectors of biases.
///   - c: row 0 of the output tile; row `r` starts at `c + r·cStride`.
///   - bounds: the clamp of every output.
///   - epilogue: the ADD and PRELU applied after the clamp when `Output` applies one (nil
///     otherwise); `channel` is the output channel of the tile's column 0. A whole tile applies
///     them in registers before it stores, a partial one to what it stored.
///   - widenedCopy: where a `Panel` that stores a widened copy writes it (K-major,
///     `Vectors.count` vectors of floats per k, as the panel); nil for the others.
@inlinable @inline(never)
public func gemmTile<
    Vectors: KernelVectors, Rows: GemmTileRows, Output: GemmTileOutput, Panel: GemmPanelElements
>(
    _ vectors: Vectors.Type, _ tileRows: Rows.Type, _ output: Output.Type, _ elements: Panel.Type,
    rows: Int, a: UnsafePointer<Float>, runs: GemmRowRuns,
    panel: UnsafeRawPointer, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    bounds: UnsafePointer<ClampBounds>, epilogue: UnsafePointer<EpilogueOperands>?, channel: Int,
    widenedCopy: UnsafeMutablePointer<Float>? = nil
) {
    typealias V = Vectors.Vector
    let mr = Rows.count, two = Vectors.count == 2, width = V.scalarCount
    // Which of rows 4, 5, 6 and 7 the tile has.
    let five = mr > 4, six = mr > 5, seven = mr > 6, eight = mr > 7
    let stride = runs.rowStride
    var c00 = loadVector(bias, as: V.self)
    var c01 = two ? loadVector(bias + width, as: V.self) : c00
    var c10 = c00, c11 = c01, c20 = c00, c21 = c01, c30 = c00, c31 = c01
    var c40 = c00, c41 = c01, c50 = c00, c51 = c01, c60 = c00, c61 = c01, c70 = c00, c71 = c01
    var b = panel
    let panelStep = two ? 2 * width : width
    let vectorBytes = width * Panel.size, stepBytes = panelStep * Panel.size
    var (r0, r1, r2, r3, r4, r5, r6, r7) = gemmTileRowPointers(a, stride: stride, rows: rows)
    var copy = widenedCopy
    for _ in 0..<runs.segmentCount {
        for k in 0..<runs.segmentLength {
            let b0 = Panel.load(Vectors.self, b)
            let b1 = two ? Panel.load(Vectors.self, b + vectorBytes) : b0
            b += stepBytes
            if Panel.storesWidenedCopy, let out = copy {
                storeVector(b0, out)
                if two { storeVector(b1, out + width) }
                copy = out + panelStep
            }
            var x = Vectors.broadcast(r0[k])
            c00 = Vectors.multiplyAdd(x, b0, c00)
            if two { c01 = Vectors.multiplyAdd(x, b1, c01) }
            x = Vectors.broadcast(r1[k])
            c10 = Vectors.multiplyAdd(x, b0, c10)
            if two { c11 = Vectors.multiplyAdd(x, b1, c11) }
            x = Vectors.broadcast(r2[k])
            c20 = Vectors.multiplyAdd(x, b0, c20)
            if two { c21 = Vectors.multiplyAdd(x, b1, c21) }
            x = Vectors.broadcast(r3[k])
            c30 = Vectors.multiplyAdd(x, b0, c30)
            if two { c31 = Vectors.multiplyAdd(x, b1, c31) }
            if five {
                x = Vectors.broadcast(r4[k])
                c40 = Vectors.multiplyAdd(x, b0, c40)
                if two { c41 = Vectors.multiplyAdd(x, b1, c41) }
            }
            if six {
                x = Vectors.broadcast(r5[k])
                c50 = Vectors.multiplyAdd(x, b0, c50)
                if two { c51 = Vectors.multiplyAdd(x, b1, c51) }
            }
            if seven {
                x = Vectors.broadcast(r6[k])
                c60 = Vectors.multiplyAdd(x, b0, c60)
                if two { c61 = Vectors.multiplyAdd(x, b1, c61) }
            }
            if eight {
                x = Vectors.broadcast(r7[k])
                c70 = Vectors.multiplyAdd(x, b0, c70)
                if two { c71 = Vectors.multiplyAdd(x, b1, c71) }
            }
        }
        let next = runs.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next
        if five { r4 += next }
        if six { r5 += next }
        if seven { r6 += next }
        if eight { r7 += next }
    }
    let (lo, hi) = ClampBounds.load(bounds, as: V.self)
    c00 = Vectors.clamp(c00, lower: lo, upper: hi); c10 = Vectors.clamp(c10, lower: lo, upper: hi)
    c20 = Vectors.clamp(c20, lower: lo, upper: hi); c30 = Vectors.clamp(c30, lower: lo, upper: hi)
    if five { c40 = Vectors.clamp(c40, lower: lo, upper: hi) }
    if six { c50 = Vectors.clamp(c50, lower: lo, upper: hi) }
    if seven { c60 = Vectors.clamp(c60, lower: lo, upper: hi) }
    if eight { c70 = Vectors.clamp(c70, lower: lo, upper: hi) }
    if two {
        c01 = Vectors.clamp(c01, lower: lo, upper: hi); c11 = Vectors.clamp(c11, lower: lo, upper: hi)
        c21 = Vectors.clamp(c21, lower: lo, upper: hi); c31 = Vectors.clamp(c31, lower: lo, upper: hi)
        if five { c41 = Vectors.clamp(c41, lower: lo, upper: hi) }
        if six { c51 = Vectors.clamp(c51, lower: lo, upper: hi) }
        if seven { c61 = Vectors.clamp(c61, lower: lo, upper: hi) }
        if eight { c71 = Vectors.clamp(c71, lower: lo, upper: hi) }
    }
    let whole = rows == mr && columns == panelStep
    // A partial tile finishes in registers too where its whole vectors' residual stays inside
    // the residual (every tile but the tensor's last): the lanes past its rows and columns are
    // computed from whatever follows and dropped. Only the tensor's last tile finishes what it
    // stored, in a pass over it (reading back what was just stored in pieces stalls each load).
    var finishesInRegisters = whole
    if Output.appliesEpilogue, !whole, let epilogue {
        let e = epilogue.pointee
        if let residual = e.residual, let end = e.residualEnd {
            let lastRow = residual + (UnsafePointer(c) - e.output) + (mr - 1) * cStride
            finishesInRegisters = lastRow + panelStep <= end
        } else {
            finishesInRegisters = true
        }
    }
    if Output.appliesEpilogue, finishesInRegisters, let epilogue {
        // Written out rather than in a nested function: one that assigns the accumulators
        // captures them in boxes, allocated on every call.
        let tile = EpilogueTile<Vectors>(epilogue, c: c, channel: channel), s = cStride
        c00 = tile.finish(c00, offset: 0, vector: 0)
        c10 = tile.finish(c10, offset: s, vector: 0)
        c20 = tile.finish(c20, offset: 2 * s, vector: 0)
        c30 = tile.finish(c30, offset: 3 * s, vector: 0)
        if five { c40 = tile.finish(c40, offset: 4 * s, vector: 0) }
        if six { c50 = tile.finish(c50, offset: 5 * s, vector: 0) }
        if seven { c60 = tile.finish(c60, offset: 6 * s, vector: 0) }
        if eight { c70 = tile.finish(c70, offset: 7 * s, vector: 0) }
        if two {
            c01 = tile.finish(c01, offset: width, vector: 1)
            c11 = tile.finish(c11, offset: s + width, vector: 1)
            c21 = tile.finish(c21, offset: 2 * s + width, vector: 1)
            c31 = tile.finish(c31, offset: 3 * s + width, vector: 1)
            if five { c41 = tile.finish(c41, offset: 4 * s + width, vector: 1) }
            if six { c51 = tile.finish(c51, offset: 5 * s + width, vector: 1) }
            if seven { c61 = tile.finish(c61, offset: 6 * s + width, vector: 1) }
            if eight { c71 = tile.finish(c71, offset: 7 * s + width, vector: 1) }
        }
    }
    if whole {
        var out = c
        storeVector(c00, out); if two { storeVector(c01, out + width) }; out += cStride
        storeVector(c10, out); if two { storeVector(c11, out + width) }; out += cStride
        storeVector(c20, out); if two { storeVector(c21, out + width) }; out += cStride
        storeVector(c30, out); if two { storeVector(c31, out + width) }
        if five {
            out += cStride
            storeVector(c40, out); if two { storeVector(c41, out + width) }
        }
        if six {
            out += cStride
            storeVector(c50, out); if two { storeVector(c51, out + width) }
        }
        if seven {
            out += cStride
            storeVector(c60, out); if two { storeVector(c61, out + width) }
        }
        if eight {
            out += cStride
            storeVector(c70, out); if two { storeVector(c71, out + width) }
        }
        return
    }
    // The tile spilled with whole-vector stores and copied by the family's own function:
    // extracting lanes of the vectors inline leads the compiler to split every vector of the
    // tile into pieces, which slows the whole-tile path too.
    if two && !five {
        let tile = (c00, c01, c10, c11, c20, c21, c30, c31)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    } else if two && !six {
        let tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    } else if two && !seven {
        let tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    } else if two && !eight {
        let tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    } else if two {
        let tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    } else {
        let tile = (c00, c10, c20, c30, c40, c50, c60, c70)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    }
    if Output.appliesEpilogue, !finishesInRegisters, let epilogue {
        epilogue.pointee.apply(
            Vectors.self, Vectors.self, c: c - channel, cStride: cStride, rows: rows, column: channel,
            columns: columns)
    }
}

/// One call of a family's GEMM over whole panels: rows `0..<rows` × the columns of `panels`
/// of C, from weights packed by Kernels' `PackedGemmWeights` for the family.
public struct GemmPanelOperands {
    /// Row 0 of A, laid out as `runs` says (`K = segmentCount·segmentLength`).
    public var a: UnsafePointer<Float>
    /// Rows of A and C, at least 0.
    public var rows: Int
    public var runs: GemmRowRuns
    /// The packed weights: panels `0 ..< fullPanelCount` are the family's full panel width `w`
    /// wide, panel `p` at element offset `w·p·K`; panel `fullPanelCount`, if in `panels`, is half
    /// as wide, at `w·fullPanelCount·K`. Each is K-major, its width in elements per k: float32
    /// values for `gemmPanels`, float16 bit patterns for `gemmHalfPanels`.
    public var packed: UnsafeRawPointer
    /// The bias, zero-padded to a multiple of `w` floats.
    public var bias: UnsafePointer<Float>
    /// N, the number of columns of C.
    public var outputs: Int
    /// The panels to compute: full ones and at most the half one (never a last panel of 8).
    public var panels: Range<Int>
    public var fullPanelCount: Int
    /// Row 0, column 0 of C; row `r` starts at `c + r·cStride`.
    public var c: UnsafeMutablePointer<Float>
    public var cStride: Int
    public var bounds: UnsafePointer<ClampBounds>
    /// The ADD and PRELU the tiles apply after the clamp, or nil.
    public var epilogue: UnsafePointer<EpilogueOperands>?
    /// The output channel of column 0 of `c` (where the epilogue's alphas start).
    public var channel: Int

    @inlinable
    public init(
        a: UnsafePointer<Float>, rows: Int, runs: GemmRowRuns, packed: UnsafeRawPointer,
        bias: UnsafePointer<Float>, outputs: Int, panels: Range<Int>, fullPanelCount: Int,
        c: UnsafeMutablePointer<Float>, cStride: Int, bounds: UnsafePointer<ClampBounds>,
        epilogue: UnsafePointer<EpilogueOperands>?, channel: Int
    ) {
        self.a = a
        self.rows = rows
        self.runs = runs
        self.packed = packed
        self.bias = bias
        self.outputs = outputs
        self.panels = panels
        self.fullPanelCount = fullPanelCount
        self.c = c
        self.cStride = cStride
        self.bounds = bounds
        self.epilogue = epilogue
        self.channel = channel
    }
}

/// Computes the tiles of `g`: every panel with `gemmTile` of `Full` (the full panels) or `Half`
/// (the half-width panel), in tiles of `Rows.count` rows and of `ShortRows.count` rows as
/// `GemmRowTiles` cuts them (AVX2's 6- and 5-row tiles cover a 7 × 7 map's 49 rows as
/// 4 × 6 + 5 × 5 rather than 9 × 6; AVX-512 has no short tile: `ShortRows` is `Rows`). When the
/// panels together hold at most `rowsOuterUpToFloats` floats (they stay in L1 while every tile of
/// rows passes over all of them), for each tile of rows every panel in turn, so that the tile's
/// rows of A are read once and each row of C is written whole; otherwise for each panel every
/// tile of rows in turn, so that the panel stays in L1 while the rows of A stream from L2. The
/// order never changes what is computed. A single row (a convolution with one output pixel, a
/// FULLY_CONNECTED of batch 1) goes through `gemmRowTiles`, and the half-width panel through a
/// `gemmRowTile` of its own.
@inlinable @inline(__always)
public func gemmPanels<Full: KernelVectors, Half: KernelVectors, Rows: GemmTileRows, ShortRows: GemmTileRows>(
    _ full: Full.Type, _ half: Half.Type, _ tileRows: Rows.Type, _ shortTileRows: ShortRows.Type,
    rowsOuterUpToFloats: Int, _ g: GemmPanelOperands
) {
    if g.epilogue == nil {
        gemmPanelTiles(
            Full.self, Half.self, Rows.self, ShortRows.self, GemmTileClampOnly.self,
            rowsOuterUpToFloats: rowsOuterUpToFloats, g)
    } else {
        gemmPanelTiles(
            Full.self, Half.self, Rows.self, ShortRows.self, GemmTileWithEpilogue.self,
            rowsOuterUpToFloats: rowsOuterUpToFloats, g)
    }
}

/// `gemmPanels` with tiles that apply the epilogue or not, as `Output` says.
@inlinable @inline(__always)
func gemmPanelTiles<
    Full: KernelVectors, Half: KernelVectors, Rows: GemmTileRows, ShortRows: GemmTileRows, Output: GemmTileOutput
>(
    _ full: Full.Type, _ half: Half.Type, _ tileRows: Rows.Type, _ shortTileRows: ShortRows.Type,
    _ output: Output.Type, rowsOuterUpToFloats: Int, _ g: GemmPanelOperands
) {
    let width = Full.count * Full.Vector.scalarCount
    let halfWidth = Half.count * Half.Vector.scalarCount
    let depth = g.runs.segmentCount * g.runs.segmentLength
    let packed = g.packed.assumingMemoryBound(to: Float.self)
    let tiling = GemmRowTiles(rows: g.rows, tileRows: Rows.count, shortTileRows: ShortRows.count)
    /// Rows `row ..< row + rows` of panel `p` through the tile of `TileRows.count` rows.
    func tile<TileRows: GemmTileRows>(of tileRows: TileRows.Type, row: Int, rows: Int, panel p: Int) {
        let panel = packed + p * width * depth
        let column = p * width
        let a = g.a + row * g.runs.rowStride, c = g.c + row * g.cStride + column
        if p == g.fullPanelCount {
            gemmTile(
                Half.self, TileRows.self, Output.self, GemmFloat32Panel.self, rows: rows, a: a, runs: g.runs,
                panel: panel, bias: g.bias + column, c: c, cStride: g.cStride, columns: min(halfWidth, g.outputs - column),
                bounds: g.bounds, epilogue: g.epilogue, channel: g.channel + column)
        } else {
            gemmTile(
                Full.self, TileRows.self, Output.self, GemmFloat32Panel.self, rows: rows, a: a, runs: g.runs,
                panel: panel, bias: g.bias + column, c: c, cStride: g.cStride, columns: min(width, g.outputs - column),
                bounds: g.bounds, epilogue: g.epilogue, channel: g.channel + column)
        }
    }
    if g.rows == 1 {
        let fullEnd = max(g.panels.lowerBound, min(g.panels.upperBound, g.fullPanelCount))
        gemmRowTiles(Full.self, GemmFloat32Panel.self, Output.self, panels: g.panels.lowerBound..<fullEnd, g)
        if fullEnd < g.panels.upperBound {
            // The half-width panel, alone.
            let column = fullEnd * width
            gemmRowTile(
                Half.self, GemmFloat32Panel.self, Output.self, panelCount: 1,
                lastColumns: min(halfWidth, g.outputs - column), a: g.a, runs: g.runs,
                panel: g.packed + GemmFloat32Panel.size * column * depth, bias: g.bias + column, c: g.c + column,
                bounds: g.bounds, epilogue: g.epilogue, channel: g.channel + column)
        }
        return
    }
    // `depth` and `panels.count` are at most the packed buffer's float count: no overflow.
    if depth * g.panels.count * width <= rowsOuterUpToFloats {
        tiling.forEachTile(
            tall: { row, rows in for p in g.panels { tile(of: Rows.self, row: row, rows: rows, panel: p) } },
            short: { row, rows in for p in g.panels { tile(of: ShortRows.self, row: row, rows: rows, panel: p) } })
    } else {
        for p in g.panels {
            tiling.forEachTile(
                tall: { row, rows in tile(of: Rows.self, row: row, rows: rows, panel: p) },
                short: { row, rows in tile(of: ShortRows.self, row: row, rows: rows, panel: p) })
        }
    }
}

/// One row of C over the full panels `panels` of `g` (a convolution with one output pixel, a
/// FULLY_CONNECTED of batch 1), up to four panels a `gemmRowTile`, so that its sums are
/// independent enough to keep the multiply-adds busy; the last panel may end past N.
/// `g.packed` holds `Panel` elements.
@inlinable @inline(__always)
public func gemmRowTiles<Full: KernelVectors, Panel: GemmPanelElements, Output: GemmTileOutput>(
    _ full: Full.Type, _ panelElements: Panel.Type, _ output: Output.Type, panels: Range<Int>, _ g: GemmPanelOperands
) {
    let width = Full.count * Full.Vector.scalarCount
    let depth = g.runs.segmentCount * g.runs.segmentLength
    var p = panels.lowerBound
    while p < panels.upperBound {
        let count = min(4, panels.upperBound - p), column = p * width
        gemmRowTile(
            Full.self, Panel.self, Output.self, panelCount: count,
            lastColumns: min(width, g.outputs - (p + count - 1) * width), a: g.a, runs: g.runs,
            panel: g.packed + Panel.size * column * depth, bias: g.bias + column, c: g.c + column,
            bounds: g.bounds, epilogue: g.epilogue, channel: g.channel + column)
        p += count
    }
}

/// One row of C over `panelCount` (1...4) consecutive panels of `Vectors.count` vectors each:
/// a 6- or 8-row tile would compute its one row six or eight times over, and one panel alone
/// gives only `Vectors.count` independent sums, each waiting on its last multiply-add. Every
/// element is its bias plus one multiply-add per k in ascending k order, as in `gemmTile`, so
/// the same bits, whether the weights are float32 or float16 widened as they are loaded.
///
/// - Parameters:
///   - lastColumns: the columns of the last panel to store (1 ... its width): a panel that
///     ends past N is computed whole (its weights past N are zeros) and stored in part.
///   - a: the row of A, laid out as `runs` says.
///   - panel: the first panel, K-major, `Vectors.count` vectors of `Panel` elements per k;
///     the next ones follow it, K of those apart.
///   - bias: the first panel's biases; the next panels' follow.
///   - c: the row's column 0 of the first panel.
///   - epilogue: applied after the clamp when `Output` applies one, to what was stored
///     (`channel` is the output channel of `c`).
@inlinable @inline(never)
public func gemmRowTile<Vectors: KernelVectors, Panel: GemmPanelElements, Output: GemmTileOutput>(
    _ vectors: Vectors.Type, _ panelElements: Panel.Type, _ output: Output.Type, panelCount n: Int,
    lastColumns: Int, a: UnsafePointer<Float>, runs: GemmRowRuns, panel: UnsafeRawPointer,
    bias: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, bounds: UnsafePointer<ClampBounds>,
    epilogue: UnsafePointer<EpilogueOperands>?, channel: Int
) {
    typealias V = Vectors.Vector
    let two = Vectors.count == 2, width = V.scalarCount
    let panelStep = two ? 2 * width : width
    // Bytes of one k's weights of a panel, of its second vector's offset, and of a whole panel.
    let stepBytes = panelStep * Panel.size, secondBytes = width * Panel.size
    let panelBytes = stepBytes * runs.segmentCount * runs.segmentLength
    var b0 = panel
    var b1 = n > 1 ? b0 + panelBytes : b0
    var b2 = n > 2 ? b1 + panelBytes : b1
    var b3 = n > 3 ? b2 + panelBytes : b2
    var c00 = loadVector(bias, as: V.self)
    var c01 = two ? loadVector(bias + width, as: V.self) : c00
    var c10 = n > 1 ? loadVector(bias + panelStep, as: V.self) : c00
    var c11 = two && n > 1 ? loadVector(bias + panelStep + width, as: V.self) : c00
    var c20 = n > 2 ? loadVector(bias + 2 * panelStep, as: V.self) : c00
    var c21 = two && n > 2 ? loadVector(bias + 2 * panelStep + width, as: V.self) : c00
    var c30 = n > 3 ? loadVector(bias + 3 * panelStep, as: V.self) : c00
    var c31 = two && n > 3 ? loadVector(bias + 3 * panelStep + width, as: V.self) : c00
    var row = a
    for _ in 0..<runs.segmentCount {
        for k in 0..<runs.segmentLength {
            let x = Vectors.broadcast(row[k])
            c00 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b0), c00)
            if two { c01 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b0 + secondBytes), c01) }
            b0 += stepBytes
            if n > 1 {
                c10 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b1), c10)
                if two { c11 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b1 + secondBytes), c11) }
                b1 += stepBytes
            }
            if n > 2 {
                c20 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b2), c20)
                if two { c21 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b2 + secondBytes), c21) }
                b2 += stepBytes
            }
            if n > 3 {
                c30 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b3), c30)
                if two { c31 = Vectors.multiplyAdd(x, Panel.load(Vectors.self, b3 + secondBytes), c31) }
                b3 += stepBytes
            }
        }
        row += runs.segmentStride
    }
    let (lo, hi) = ClampBounds.load(bounds, as: V.self)
    /// Panel `index`'s sums, clamped, at its columns of `c`: all of them, or the last panel's
    /// first `lastColumns`.
    @inline(__always)
    func store(_ first: V, _ second: V, panel index: Int) {
        let clamped = (Vectors.clamp(first, lower: lo, upper: hi), Vectors.clamp(second, lower: lo, upper: hi))
        let destination = c + index * panelStep
        if index < n - 1 || lastColumns == panelStep {
            storeVector(clamped.0, destination)
            if two { storeVector(clamped.1, destination + width) }
        } else {
            withUnsafeBytes(of: clamped) { spilled in
                Vectors.storePartialTile(
                    spilled, rowWidth: panelStep, rows: 1, columns: lastColumns, c: destination, cStride: 0)
            }
        }
    }
    store(c00, c01, panel: 0)
    if n > 1 { store(c10, c11, panel: 1) }
    if n > 2 { store(c20, c21, panel: 2) }
    if n > 3 { store(c30, c31, panel: 3) }
    if Output.appliesEpilogue, let epilogue {
        epilogue.pointee.apply(
            Vectors.self, Vectors.self, c: c - channel, cStride: 0, rows: 1, column: channel,
            columns: (n - 1) * panelStep + lastColumns)
    }
}
