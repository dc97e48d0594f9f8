// A layer whose output channels end in a 16-wide panel and a last panel of 8 (N = 24, 40, 56, …
// in AVX2's 16-wide panels; N = 24, 56, 88, … after AVX-512's 32-wide ones) computed that last
// panel in 8-row tiles of one 8-lane vector: a broadcast of A for every multiply-add, and 8
// accumulators, just the FMA latency's worth, so on a Zen 3 each row of it took about as long as
// a row of the 16-wide panel. Here the two panels are computed together, 24 channels a row:
// AVX2 in tiles of 3 rows × 3 ymm vectors (9 accumulators; 4 rows would need all 16 registers,
// and LLVM unrolls the k loop and spills an accumulator), AVX-512 in tiles of 8 rows × one zmm
// and one ymm vector (16 accumulators of its 32 registers). Each broadcast of A feeds the whole
// row's multiply-adds. Each output element is still its bias plus its k products in k order, so
// the results are the bits of the separate panels' tiles.

/// Rows of a joined tile: 3, AVX2's.
public enum GemmThreeRows: GemmTileRows {
    @inlinable public static var count: Int { 3 }
}

/// Computes rows `0..<g.rows` of a 16-wide float32 panel and of the 8-wide panel packed right
/// after it (both K-major, so the narrow one starts `16·K` floats after the wide one), in tiles
/// of `Rows.count` (3...8) rows; a last tile of fewer rows repeats its last row's pointer and
/// stores only its own rows. `g.packed` is the wide panel itself, and `g.bias`, `g.c` and
/// `g.channel` are at its first column; `g.panels` and `g.fullPanelCount` are not read.
/// `Wide` is the 16 lanes as one or two vectors, `Narrow` one 8-lane vector; instantiate it with
/// the family's own `KernelVectors` types.
@inlinable @inline(never)
public func gemmJoinedPanels<Wide: KernelVectors, Narrow: KernelVectors, Rows: GemmTileRows>(
    _ wide: Wide.Type, _ narrow: Narrow.Type, _ tileRows: Rows.Type, _ g: GemmPanelOperands
) {
    precondition(
        Wide.count * Wide.Vector.scalarCount == 16 && Narrow.count == 1 && Narrow.Vector.scalarCount == 8
            && (3...8).contains(Rows.count),
        "joined tiles are 16 + 8 channels wide and 3 to 8 rows tall")
    var row = 0
    while row < g.rows {
        let rows = min(Rows.count, g.rows - row)
        let a = g.a + row * g.runs.rowStride, c = g.c + row * g.cStride
        if g.epilogue == nil {
            gemmJoinedTile(Wide.self, Narrow.self, Rows.self, GemmTileClampOnly.self, rows: rows, a: a, c: c, g)
        } else {
            gemmJoinedTile(Wide.self, Narrow.self, Rows.self, GemmTileWithEpilogue.self, rows: rows, a: a, c: c, g)
        }
        row += Rows.count
    }
}

/// Rows `0..<rows` (at most `Rows.count`) from `a` of the wide panel, the narrow one after it and
/// their biases into `c`: the multiply-adds, the clamp, the epilogue when `Output` applies one,
/// the stores.
@inlinable @inline(__always)
func gemmJoinedTile<Wide: KernelVectors, Narrow: KernelVectors, Rows: GemmTileRows, Output: GemmTileOutput>(
    _ wide: Wide.Type, _ narrow: Narrow.Type, _ tileRows: Rows.Type, _ output: Output.Type,
    rows: Int, a: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, _ g: GemmPanelOperands
) {
    typealias W = Wide.Vector
    typealias N = Narrow.Vector
    let mr = Rows.count, two = Wide.count == 2, width = W.scalarCount
    // Which of rows 3 to 7 the tile has.
    let four = mr > 3, five = mr > 4, six = mr > 5, seven = mr > 6, eight = mr > 7
    let stride = g.runs.rowStride
    var (r0, r1, r2, r3, r4, r5, r6, r7) = gemmTileRowPointers(a, stride: stride, rows: rows)
    let wideBias0 = loadVector(g.bias, as: W.self)
    let wideBias1 = two ? loadVector(g.bias + width, as: W.self) : wideBias0
    let narrowBias = loadVector(g.bias + 16, as: N.self)
    // Row r's accumulators: w<r>0 and w<r>1 the wide panel's vectors, n<r> the narrow panel's.
    var w00 = wideBias0, w01 = wideBias1, n0 = narrowBias, w10 = wideBias0, w11 = wideBias1, n1 = narrowBias
    var w20 = wideBias0, w21 = wideBias1, n2 = narrowBias, w30 = wideBias0, w31 = wideBias1, n3 = narrowBias
    var w40 = wideBias0, w41 = wideBias1, n4 = narrowBias, w50 = wideBias0, w51 = wideBias1, n5 = narrowBias
    var w60 = wideBias0, w61 = wideBias1, n6 = narrowBias, w70 = wideBias0, w71 = wideBias1, n7 = narrowBias
    let depth = g.runs.segmentCount * g.runs.segmentLength
    var w = g.packed.assumingMemoryBound(to: Float.self)
    var n = w + 16 * depth
    for _ in 0..<g.runs.segmentCount {
        for k in 0..<g.runs.segmentLength {
            let b0 = loadVector(w, as: W.self)
            let b1 = two ? loadVector(w + width, as: W.self) : b0
            let b2 = loadVector(n, as: N.self)
            w += 16
            n += 8
            var x = Wide.broadcast(r0[k])
            w00 = Wide.multiplyAdd(x, b0, w00)
            if two { w01 = Wide.multiplyAdd(x, b1, w01) }
            n0 = Narrow.multiplyAdd(Narrow.broadcast(r0[k]), b2, n0)
            x = Wide.broadcast(r1[k])
            w10 = Wide.multiplyAdd(x, b0, w10)
            if two { w11 = Wide.multiplyAdd(x, b1, w11) }
            n1 = Narrow.multiplyAdd(Narrow.broadcast(r1[k]), b2, n1)
            x = Wide.broadcast(r2[k])
            w20 = Wide.multiplyAdd(x, b0, w20)
            if two { w21 = Wide.multiplyAdd(x, b1, w21) }
            n2 = Narrow.multiplyAdd(Narrow.broadcast(r2[k]), b2, n2)
            if four {
                x = Wide.broadcast(r3[k])
                w30 = Wide.multiplyAdd(x, b0, w30)
                if two { w31 = Wide.multiplyAdd(x, b1, w31) }
                n3 = Narrow.multiplyAdd(Narrow.broadcast(r3[k]), b2, n3)
            }
            if five {
                x = Wide.broadcast(r4[k])
                w40 = Wide.multiplyAdd(x, b0, w40)
                if two { w41 = Wide.multiplyAdd(x, b1, w41) }
                n4 = Narrow.multiplyAdd(Narrow.broadcast(r4[k]), b2, n4)
            }
            if six {
                x = Wide.broadcast(r5[k])
                w50 = Wide.multiplyAdd(x, b0, w50)
                if two { w51 = Wide.multiplyAdd(x, b1, w51) }
                n5 = Narrow.multiplyAdd(Narrow.broadcast(r5[k]), b2, n5)
            }
            if seven {
                x = Wide.broadcast(r6[k])
                w60 = Wide.multiplyAdd(x, b0, w60)
                if two { w61 = Wide.multiplyAdd(x, b1, w61) }
                n6 = Narrow.multiplyAdd(Narrow.broadcast(r6[k]), b2, n6)
            }
            if eight {
                x = Wide.broadcast(r7[k])
                w70 = Wide.multiplyAdd(x, b0, w70)
                if two { w71 = Wide.multiplyAdd(x, b1, w71) }
                n7 = Narrow.multiplyAdd(Narrow.broadcast(r7[k]), b2, n7)
            }
        }
        let next = g.runs.segmentStride
        r0 += next; r1 += next; r2 += next
        if four { r3 += next }
        if five { r4 += next }
        if six { r5 += next }
        if seven { r6 += next }
        if eight { r7 += next }
    }
    let (wideLower, wideUpper) = ClampBounds.load(g.bounds, as: W.self)
    let s = g.cStride
    /// Clamps row `r`'s vectors, applies the epilogue (the wide panel's tile, and the narrow
    /// panel's built here) when there is one, and stores them. The narrow panel's bounds and
    /// epilogue tile are loaded for each row: held across the rows, AVX-512 code kept their 8-lane
    /// vectors in general registers and rebuilt them lane by lane for every row (16 `vmovd` and
    /// `vpinsrd` a row), and its clamp became compares and blends (Zen 4: face_detection_short_range's
    /// 64 × 64 24 → 24 layer with its ADD 75.6 → 57.6 µs).
    @inline(__always)
    func store(row r: Int, _ v0: W, _ v1: W, _ v2: N, _ wideTile: EpilogueTile<Wide>?) {
        var v0 = Wide.clamp(v0, lower: wideLower, upper: wideUpper)
        var v1 = two ? Wide.clamp(v1, lower: wideLower, upper: wideUpper) : v1
        let (narrowLower, narrowUpper) = ClampBounds.load(g.bounds, as: N.self)
        var v2 = Narrow.clamp(v2, lower: narrowLower, upper: narrowUpper)
        if Output.appliesEpilogue, let wideTile, let epilogue = g.epilogue {
            v0 = wideTile.finish(v0, offset: r * s, vector: 0)
            if two { v1 = wideTile.finish(v1, offset: r * s + width, vector: 1) }
            let narrowTile = EpilogueTile<Narrow>(epilogue, c: c + 16, channel: g.channel + 16)
            v2 = narrowTile.finish(v2, offset: r * s, vector: 0)
        }
        let out = c + r * s
        storeVector(v0, out)
        if two { storeVector(v1, out + width) }
        storeVector(v2, out + 16)
    }
    // The rows stored twice over, with the wide panel's epilogue tile and with nil: a tile held
    // in an optional variable is copied out of line at every use (nine calls a tile, measured), a
    // nil literal or a tile built in place is not.
    if Output.appliesEpilogue, let epilogue = g.epilogue {
        // The wide panel's vectors as `gemmTile` finishes them, the narrow one as a panel of its
        // own 16 channels further.
        let wideTile = EpilogueTile<Wide>(epilogue, c: c, channel: g.channel)
        store(row: 0, w00, w01, n0, wideTile)
        if rows > 1 { store(row: 1, w10, w11, n1, wideTile) }
        if rows > 2 { store(row: 2, w20, w21, n2, wideTile) }
        if four && rows > 3 { store(row: 3, w30, w31, n3, wideTile) }
        if five && rows > 4 { store(row: 4, w40, w41, n4, wideTile) }
        if six && rows > 5 { store(row: 5, w50, w51, n5, wideTile) }
        if seven && rows > 6 { store(row: 6, w60, w61, n6, wideTile) }
        if eight && rows > 7 { store(row: 7, w70, w71, n7, wideTile) }
    } else {
        store(row: 0, w00, w01, n0, nil)
        if rows > 1 { store(row: 1, w10, w11, n1, nil) }
        if rows > 2 { store(row: 2, w20, w21, n2, nil) }
        if four && rows > 3 { store(row: 3, w30, w31, n3, nil) }
        if five && rows > 4 { store(row: 4, w40, w41, n4, nil) }
        if six && rows > 5 { store(row: 5, w50, w51, n5, nil) }
        if seven && rows > 6 { store(row: 6, w60, w61, n6, nil) }
        if eight && rows > 7 { store(row: 7, w70, w71, n7, nil) }
    }
}
