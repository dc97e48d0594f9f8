// The GEMM of `C = clamp(A · W + bias)` read straight from float16 panels, for blocks of few
// rows: widening a whole panel into float32 scratch (as `gemmF32Block` does for longer blocks)
// costs as much as multiplying a 2×2 or 4×4 map's handful of rows by it, so here every k's
// panel vectors are widened as they are loaded. Four rows a tile: with the conversions, six or
// eight rows would no longer fit the vector registers. Every element is its bias plus one
// multiply-add per k in ascending k order, with each weight widened exactly, so the sums are
// those of the float32 tiles, bit for bit.

/// Rows of a `gemmHalfPanelTile`.
public let gemmHalfPanelTileRows = 4

/// A `rows × columns` tile of C (rows 1...4, columns 1...`Vectors.count` vector widths) from
/// one float16 panel: 4·`Vectors.count` accumulators, `Vectors.count` widening loads of the
/// panel and 4 broadcasts of A per k. Rows past `rows` reuse the last valid row's pointer (their
/// sums are computed and dropped).
///
/// - Parameters:
///   - a: row 0 of A, laid out as `runs` says.
///   - halves: the K-major panel's float16 bit patterns, `Vectors.count` vectors per k.
///   - bias: the panel's `Vectors.count` vectors of biases.
///   - c: row 0 of the output tile; row `r` starts at `c + r·cStride`.
///   - bounds: the clamp of every output.
///   - epilogue: applied after the clamp when `Output` applies one, to what was stored
///     (`channel` is the output channel of the tile's column 0).
@inlinable @inline(never)
public func gemmHalfPanelTile<Vectors: KernelVectors, Output: GemmTileOutput>(
    _ vectors: Vectors.Type, _ output: Output.Type,
    rows: Int, a: UnsafePointer<Float>, runs: GemmRowRuns,
    halves: UnsafeRawPointer, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    bounds: UnsafePointer<ClampBounds>, epilogue: UnsafePointer<EpilogueOperands>?, channel: Int
) {
    typealias V = Vectors.Vector
    let two = Vectors.count == 2, width = V.scalarCount
    let panelStep = two ? 2 * width : width
    let stride = runs.rowStride
    let a0 = a
    let a1 = rows > 1 ? a0 + stride : a0
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    var c00 = loadVector(bias, as: V.self)
    var c01 = two ? loadVector(bias + width, as: V.self) : c00
    var c10 = c00, c11 = c01, c20 = c00, c21 = c01, c30 = c00, c31 = c01
    var b = halves
    var r0 = a0, r1 = a1, r2 = a2, r3 = a3
    for _ in 0..<runs.segmentCount {
        for k in 0..<runs.segmentLength {
            let b0 = Vectors.loadWidening(b)
            let b1 = two ? Vectors.loadWidening(b + 2 * width) : b0
            b += 2 * panelStep
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
        }
        let next = runs.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next
    }
    let (lo, hi) = ClampBounds.load(bounds, as: V.self)
    c00 = Vectors.clamp(c00, lower: lo, upper: hi); c10 = Vectors.clamp(c10, lower: lo, upper: hi)
    c20 = Vectors.clamp(c20, lower: lo, upper: hi); c30 = Vectors.clamp(c30, lower: lo, upper: hi)
    if two {
        c01 = Vectors.clamp(c01, lower: lo, upper: hi); c11 = Vectors.clamp(c11, lower: lo, upper: hi)
        c21 = Vectors.clamp(c21, lower: lo, upper: hi); c31 = Vectors.clamp(c31, lower: lo, upper: hi)
    }
    if rows == gemmHalfPanelTileRows && columns == panelStep {
        var out = c
        storeVector(c00, out); if two { storeVector(c01, out + width) }; out += cStride
        storeVector(c10, out); if two { storeVector(c11, out + width) }; out += cStride
        storeVector(c20, out); if two { storeVector(c21, out + width) }; out += cStride
        storeVector(c30, out); if two { storeVector(c31, out + width) }
    } else if two {
        let tile = (c00, c01, c10, c11, c20, c21, c30, c31)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    } else {
        let tile = (c00, c10, c20, c30)
        withUnsafeBytes(of: tile) { bytes in
            Vectors.storePartialTile(bytes, rowWidth: panelStep, rows: rows, columns: columns, c: c, cStride: cStride)
        }
    }
    if Output.appliesEpilogue, let epilogue {
        epilogue.pointee.apply(
            Vectors.self, Vectors.self, c: c - channel, cStride: cStride, rows: rows, column: channel,
            columns: columns)
    }
}

/// The tiles of `g` over whole panels of float16 weights (`g.panels` within
/// `0 ..< g.fullPanelCount`; `g.packed` holds the panels' bit patterns, panel `p` at byte offset
/// `2·w·p·K` for the family's panel width `w`): for each tile of 4 rows every panel in turn, so
/// that the rows of A are read from L1 while the weights stream past them once.
@inlinable @inline(__always)
public func gemmHalfPanels<Full: KernelVectors>(_ full: Full.Type, _ g: GemmPanelOperands) {
    if g.epilogue == nil {
        gemmHalfPanelTiles(Full.self, GemmTileClampOnly.self, g)
    } else {
        gemmHalfPanelTiles(Full.self, GemmTileWithEpilogue.self, g)
    }
}

/// `gemmHalfPanels` with tiles that apply the epilogue or not, as `Output` says.
@inlinable @inline(__always)
func gemmHalfPanelTiles<Full: KernelVectors, Output: GemmTileOutput>(
    _ full: Full.Type, _ output: Output.Type, _ g: GemmPanelOperands
) {
    let width = Full.count * Full.Vector.scalarCount
    let depth = g.runs.segmentCount * g.runs.segmentLength
    let mr = gemmHalfPanelTileRows
    for row in stride(from: 0, to: g.rows, by: mr) {
        let a = g.a + row * g.runs.rowStride
        for p in g.panels {
            let column = p * width
            gemmHalfPanelTile(
                Full.self, Output.self, rows: min(mr, g.rows - row), a: a, runs: g.runs,
                halves: g.packed + 2 * column * depth, bias: g.bias + column, c: g.c + row * g.cStride + column,
                cStride: g.cStride, columns: min(width, g.outputs - column), bounds: g.bounds,
                epilogue: g.epilogue, channel: g.channel + column)
        }
    }
}
