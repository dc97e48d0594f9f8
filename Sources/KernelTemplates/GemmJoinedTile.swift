// A layer whose output channels end in a whole panel of two vectors and a last panel of one
// vector (N = 24, 40, 56, … in the 8-lane family) computed that last panel in 8-row tiles of
// one vector: a broadcast of A for every multiply-add, and 8 accumulators, just the FMA
// latency's worth, so on a Zen 3 each row of it took about as long as a row of the whole panel.
// Here the two panels are computed together, in tiles of 3 rows × 3 vectors: 9 accumulators,
// three panel loads and three broadcasts per k, each broadcast feeding three multiply-adds.
// (4 rows would need all 16 ymm registers: LLVM unrolls the k loop and spills an accumulator.)
// Each output element is still its bias plus its k products in k order, so the results are the
// bits of the separate panels' tiles.

/// Computes rows `0..<g.rows` (a multiple of 3) of the whole panel `g.panels.lowerBound` and
/// of the one-vector panel packed right after it (panels are K-major and consecutive, so the
/// narrow one starts `width·K` floats after the whole one), in tiles of 3 rows × 3 vectors
/// (`Two`: the whole panel's two vectors, `One`: one vector of the same type). `g.panels` holds
/// the whole panel only; `g.packed` is panel 0, float32. Instantiate it with the family's own
/// `KernelVectors` types.
@inlinable @inline(never)
public func gemmJoinedPanels<Two: KernelVectors, One: KernelVectors>(
    _ two: Two.Type, _ one: One.Type, _ g: GemmPanelOperands
) where Two.Vector == One.Vector {
    precondition(g.rows % 3 == 0, "joined tiles take rows 3 at a time")
    let width = 2 * One.Vector.scalarCount, depth = g.runs.segmentCount * g.runs.segmentLength
    let column = g.panels.lowerBound * width
    let wide = g.packed.assumingMemoryBound(to: Float.self) + column * depth
    var row = 0
    while row < g.rows {
        let a = g.a + row * g.runs.rowStride, c = g.c + row * g.cStride + column
        if g.epilogue == nil {
            gemmJoinedTile(Two.self, One.self, GemmTileClampOnly.self, a: a, c: c, wide: wide, bias: g.bias + column, channel: g.channel + column, g)
        } else {
            gemmJoinedTile(Two.self, One.self, GemmTileWithEpilogue.self, a: a, c: c, wide: wide, bias: g.bias + column, channel: g.channel + column, g)
        }
        row += 3
    }
}

/// The 3 rows from `a` of the whole panel at `wide`, the narrow one after it and their biases
/// into `c` (output channel `channel`): the multiply-adds, the clamp, the epilogue when `Output`
/// applies one, the stores.
@inlinable @inline(__always)
func gemmJoinedTile<Two: KernelVectors, One: KernelVectors, Output: GemmTileOutput>(
    _ two: Two.Type, _ one: One.Type, _ output: Output.Type,
    a: UnsafePointer<Float>, c: UnsafeMutablePointer<Float>, wide: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, channel: Int, _ g: GemmPanelOperands
) where Two.Vector == One.Vector {
    typealias V = One.Vector
    let width = V.scalarCount, stride = g.runs.rowStride
    var r0 = a, r1 = a + stride, r2 = a + 2 * stride
    let bias0 = loadVector(bias, as: V.self)
    let bias1 = loadVector(bias + width, as: V.self)
    let bias2 = loadVector(bias + 2 * width, as: V.self)
    var c00 = bias0, c01 = bias1, c02 = bias2, c10 = bias0, c11 = bias1, c12 = bias2
    var c20 = bias0, c21 = bias1, c22 = bias2
    var w = wide, n = wide + 2 * width * g.runs.segmentCount * g.runs.segmentLength
    for _ in 0..<g.runs.segmentCount {
        for k in 0..<g.runs.segmentLength {
            let b0 = loadVector(w, as: V.self), b1 = loadVector(w + width, as: V.self)
            let b2 = loadVector(n, as: V.self)
            w += 2 * width
            n += width
            var x = One.broadcast(r0[k])
            c00 = One.multiplyAdd(x, b0, c00); c01 = One.multiplyAdd(x, b1, c01); c02 = One.multiplyAdd(x, b2, c02)
            x = One.broadcast(r1[k])
            c10 = One.multiplyAdd(x, b0, c10); c11 = One.multiplyAdd(x, b1, c11); c12 = One.multiplyAdd(x, b2, c12)
            x = One.broadcast(r2[k])
            c20 = One.multiplyAdd(x, b0, c20); c21 = One.multiplyAdd(x, b1, c21); c22 = One.multiplyAdd(x, b2, c22)
        }
        let next = g.runs.segmentStride
        r0 += next; r1 += next; r2 += next
    }
    let (lo, hi) = ClampBounds.load(g.bounds, as: V.self)
    c00 = One.clamp(c00, lower: lo, upper: hi); c01 = One.clamp(c01, lower: lo, upper: hi)
    c02 = One.clamp(c02, lower: lo, upper: hi); c10 = One.clamp(c10, lower: lo, upper: hi)
    c11 = One.clamp(c11, lower: lo, upper: hi); c12 = One.clamp(c12, lower: lo, upper: hi)
    c20 = One.clamp(c20, lower: lo, upper: hi); c21 = One.clamp(c21, lower: lo, upper: hi)
    c22 = One.clamp(c22, lower: lo, upper: hi)
    let s = g.cStride
    if Output.appliesEpilogue, let epilogue = g.epilogue {
        // The whole panel's two vectors as `gemmTile` finishes them, the third as a panel of
        // its own starting `2·width` channels further.
        let wide = EpilogueTile<Two>(epilogue, c: c, channel: channel)
        let narrow = EpilogueTile<One>(epilogue, c: c + 2 * width, channel: channel + 2 * width)
        c00 = wide.finish(c00, offset: 0, vector: 0); c01 = wide.finish(c01, offset: width, vector: 1)
        c02 = narrow.finish(c02, offset: 0, vector: 0)
        c10 = wide.finish(c10, offset: s, vector: 0); c11 = wide.finish(c11, offset: s + width, vector: 1)
        c12 = narrow.finish(c12, offset: s, vector: 0)
        c20 = wide.finish(c20, offset: 2 * s, vector: 0); c21 = wide.finish(c21, offset: 2 * s + width, vector: 1)
        c22 = narrow.finish(c22, offset: 2 * s, vector: 0)
    }
    var out = c
    storeVector(c00, out); storeVector(c01, out + width); storeVector(c02, out + 2 * width); out += s
    storeVector(c10, out); storeVector(c11, out + width); storeVector(c12, out + 2 * width); out += s
    storeVector(c20, out); storeVector(c21, out + width); storeVector(c22, out + 2 * width)
}
