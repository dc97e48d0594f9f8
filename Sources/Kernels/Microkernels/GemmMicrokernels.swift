// Register-blocked microkernels of the GEMM `C = clamp(A · W + bias)`.
//
// Each computes one small tile of C with all of K summed in registers, in
// ascending k order, starting from the bias: an element's value depends
// only on its row of A (and how that row is cut into runs, for the dot
// kernel) and its column of W, never on the tile it was computed in. Rows
// past `rows` reuse the last valid row's pointer (the extra lanes are
// computed and dropped), so one kernel covers every row remainder without
// branches in the k loop.

/// Where the microkernels read the K values of each row of A: row `r` is
/// `segmentCount` runs of `segmentLength` contiguous floats, run `s`
/// starting at `a + r·rowStride + s·segmentStride`
/// (`K = segmentCount·segmentLength`). A row-major matrix is one run of K;
/// a convolution reads an output pixel's taps straight from the NHWC input
/// as `KH` runs of `KW·Cin` (one per filter row).
struct GemmRows {
    /// Floats between the starts of consecutive rows.
    var rowStride: Int
    var segmentCount: Int
    var segmentLength: Int
    /// Floats between the starts of consecutive runs of one row.
    var segmentStride: Int

    /// Rows of `depth` contiguous floats, `rowStride` apart.
    static func contiguous(depth: Int, rowStride: Int) -> GemmRows {
        GemmRows(rowStride: rowStride, segmentCount: 1, segmentLength: depth, segmentStride: depth)
    }

    var depth: Int { segmentCount * segmentLength }
}

/// A `rows × columns` tile (rows 1...6, columns 1...16) from one 16-wide
/// panel: 12 `SIMD8<Float>` accumulators, one broadcast of A and two loads
/// of the panel per k.
///
/// - Parameters:
///   - a: row 0 of A, laid out as `layout` says.
///   - panel: K-major panel, 16 floats per k (`PackedGemmWeights` layout).
///   - bias: 16 floats for the panel's columns.
///   - c: row 0 of the output tile; row `r` starts at `c + r·cStride`.
@inline(never)
func gemmF32Microkernel6x16(
    rows: Int, a: UnsafePointer<Float>, layout: GemmRows,
    panel: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    lower: Float, upper: Float
) {
    let stride = layout.rowStride
    let a0 = a
    let a1 = rows > 1 ? a0 + stride : a0
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    let a4 = rows > 4 ? a3 + stride : a3
    let a5 = rows > 5 ? a4 + stride : a4
    var c00 = loadVector8(bias), c01 = loadVector8(bias + 8)
    var c10 = c00, c11 = c01, c20 = c00, c21 = c01
    var c30 = c00, c31 = c01, c40 = c00, c41 = c01, c50 = c00, c51 = c01
    var b = panel
    var r0 = a0, r1 = a1, r2 = a2, r3 = a3, r4 = a4, r5 = a5
    for _ in 0..<layout.segmentCount {
        for k in 0..<layout.segmentLength {
            let b0 = loadVector8(b), b1 = loadVector8(b + 8)
            b += 16
            var x = SIMD8<Float>(repeating: r0[k])
            c00 = multiplyAdd(x, b0, c00); c01 = multiplyAdd(x, b1, c01)
            x = SIMD8<Float>(repeating: r1[k])
            c10 = multiplyAdd(x, b0, c10); c11 = multiplyAdd(x, b1, c11)
            x = SIMD8<Float>(repeating: r2[k])
            c20 = multiplyAdd(x, b0, c20); c21 = multiplyAdd(x, b1, c21)
            x = SIMD8<Float>(repeating: r3[k])
            c30 = multiplyAdd(x, b0, c30); c31 = multiplyAdd(x, b1, c31)
            x = SIMD8<Float>(repeating: r4[k])
            c40 = multiplyAdd(x, b0, c40); c41 = multiplyAdd(x, b1, c41)
            x = SIMD8<Float>(repeating: r5[k])
            c50 = multiplyAdd(x, b0, c50); c51 = multiplyAdd(x, b1, c51)
        }
        let next = layout.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next; r4 += next; r5 += next
    }
    let lo = SIMD8<Float>(repeating: lower), hi = SIMD8<Float>(repeating: upper)
    c00 = clamp(c00, lower: lo, upper: hi); c01 = clamp(c01, lower: lo, upper: hi)
    c10 = clamp(c10, lower: lo, upper: hi); c11 = clamp(c11, lower: lo, upper: hi)
    c20 = clamp(c20, lower: lo, upper: hi); c21 = clamp(c21, lower: lo, upper: hi)
    c30 = clamp(c30, lower: lo, upper: hi); c31 = clamp(c31, lower: lo, upper: hi)
    c40 = clamp(c40, lower: lo, upper: hi); c41 = clamp(c41, lower: lo, upper: hi)
    c50 = clamp(c50, lower: lo, upper: hi); c51 = clamp(c51, lower: lo, upper: hi)
    if rows == 6 && columns == 16 {
        storeVector8(c00, c); storeVector8(c01, c + 8)
        storeVector8(c10, c + cStride); storeVector8(c11, c + cStride + 8)
        storeVector8(c20, c + 2 * cStride); storeVector8(c21, c + 2 * cStride + 8)
        storeVector8(c30, c + 3 * cStride); storeVector8(c31, c + 3 * cStride + 8)
        storeVector8(c40, c + 4 * cStride); storeVector8(c41, c + 4 * cStride + 8)
        storeVector8(c50, c + 5 * cStride); storeVector8(c51, c + 5 * cStride + 8)
        return
    }
    let tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51)
    storeTile(tile, rowWidth: 16, rows: rows, columns: columns, c: c, cStride: cStride)
}

/// A `rows × columns` tile (rows 1...8, columns 1...8) from one 8-wide
/// panel (the last panel when at most 8 output channels remain): 8
/// `SIMD8<Float>` accumulators, enough to keep both FMA pipes busy, one
/// load of the panel and 8 broadcasts of A per k. Same parameters as
/// `gemmF32Microkernel6x16` with 8 floats per k in `panel`.
@inline(never)
func gemmF32Microkernel8x8(
    rows: Int, a: UnsafePointer<Float>, layout: GemmRows,
    panel: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    lower: Float, upper: Float
) {
    let stride = layout.rowStride
    let a0 = a
    let a1 = rows > 1 ? a0 + stride : a0
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    let a4 = rows > 4 ? a3 + stride : a3
    let a5 = rows > 5 ? a4 + stride : a4
    let a6 = rows > 6 ? a5 + stride : a5
    let a7 = rows > 7 ? a6 + stride : a6
    var c0 = loadVector8(bias)
    var c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
    var b = panel
    var r0 = a0, r1 = a1, r2 = a2, r3 = a3, r4 = a4, r5 = a5, r6 = a6, r7 = a7
    for _ in 0..<layout.segmentCount {
        for k in 0..<layout.segmentLength {
            let b0 = loadVector8(b)
            b += 8
            c0 = multiplyAdd(SIMD8<Float>(repeating: r0[k]), b0, c0)
            c1 = multiplyAdd(SIMD8<Float>(repeating: r1[k]), b0, c1)
            c2 = multiplyAdd(SIMD8<Float>(repeating: r2[k]), b0, c2)
            c3 = multiplyAdd(SIMD8<Float>(repeating: r3[k]), b0, c3)
            c4 = multiplyAdd(SIMD8<Float>(repeating: r4[k]), b0, c4)
            c5 = multiplyAdd(SIMD8<Float>(repeating: r5[k]), b0, c5)
            c6 = multiplyAdd(SIMD8<Float>(repeating: r6[k]), b0, c6)
            c7 = multiplyAdd(SIMD8<Float>(repeating: r7[k]), b0, c7)
        }
        let next = layout.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next
        r4 += next; r5 += next; r6 += next; r7 += next
    }
    let lo = SIMD8<Float>(repeating: lower), hi = SIMD8<Float>(repeating: upper)
    c0 = clamp(c0, lower: lo, upper: hi); c1 = clamp(c1, lower: lo, upper: hi)
    c2 = clamp(c2, lower: lo, upper: hi); c3 = clamp(c3, lower: lo, upper: hi)
    c4 = clamp(c4, lower: lo, upper: hi); c5 = clamp(c5, lower: lo, upper: hi)
    c6 = clamp(c6, lower: lo, upper: hi); c7 = clamp(c7, lower: lo, upper: hi)
    if rows == 8 && columns == 8 {
        storeVector8(c0, c); storeVector8(c1, c + cStride)
        storeVector8(c2, c + 2 * cStride); storeVector8(c3, c + 3 * cStride)
        storeVector8(c4, c + 4 * cStride); storeVector8(c5, c + 5 * cStride)
        storeVector8(c6, c + 6 * cStride); storeVector8(c7, c + 7 * cStride)
        return
    }
    storeTile(
        (c0, c1, c2, c3, c4, c5, c6, c7), rowWidth: 8, rows: rows, columns: columns, c: c,
        cStride: cStride)
}

/// One output channel for up to 8 rows (rows 1...8), for outputs too
/// narrow for a panel: eight k of the eight rows are loaded and transposed
/// so that one vector holds one k of every row, and every output is its
/// bias plus one fused multiply-add per k in ascending k order, as in the
/// panel kernels (and in XNNPACK), whose results these equal bit for bit.
///
/// - Parameters:
///   - a: row 0 of A, laid out as `layout` says.
///   - weights: the channel's K weights, contiguous.
///   - c: the output element of row 0; row `r`'s is at `c + r·cStride`.
@inline(never)
func gemmF32DotMicrokernel8x1(
    rows: Int, a: UnsafePointer<Float>, layout: GemmRows,
    weights: UnsafePointer<Float>, bias: Float,
    c: UnsafeMutablePointer<Float>, cStride: Int,
    lower: Float, upper: Float
) {
    let stride = layout.rowStride
    let a0 = a
    let a1 = rows > 1 ? a0 + stride : a0
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    let a4 = rows > 4 ? a3 + stride : a3
    let a5 = rows > 5 ? a4 + stride : a4
    let a6 = rows > 6 ? a5 + stride : a5
    let a7 = rows > 7 ? a6 + stride : a6
    var sums = SIMD8<Float>(repeating: bias)
    var w = weights
    var r0 = a0, r1 = a1, r2 = a2, r3 = a3, r4 = a4, r5 = a5, r6 = a6, r7 = a7
    let length = layout.segmentLength
    for _ in 0..<layout.segmentCount {
        var k = 0
        while k + 8 <= length {
            // Eight k of the eight rows, transposed so that vector j holds k + j of every row.
            let t = transpose8x8(
                loadVector8(r0 + k), loadVector8(r1 + k), loadVector8(r2 + k), loadVector8(r3 + k),
                loadVector8(r4 + k), loadVector8(r5 + k), loadVector8(r6 + k), loadVector8(r7 + k))
            sums = multiplyAdd(t.0, SIMD8<Float>(repeating: w[k]), sums)
            sums = multiplyAdd(t.1, SIMD8<Float>(repeating: w[k + 1]), sums)
            sums = multiplyAdd(t.2, SIMD8<Float>(repeating: w[k + 2]), sums)
            sums = multiplyAdd(t.3, SIMD8<Float>(repeating: w[k + 3]), sums)
            sums = multiplyAdd(t.4, SIMD8<Float>(repeating: w[k + 4]), sums)
            sums = multiplyAdd(t.5, SIMD8<Float>(repeating: w[k + 5]), sums)
            sums = multiplyAdd(t.6, SIMD8<Float>(repeating: w[k + 6]), sums)
            sums = multiplyAdd(t.7, SIMD8<Float>(repeating: w[k + 7]), sums)
            k += 8
        }
        while k < length {
            let column = SIMD8<Float>(r0[k], r1[k], r2[k], r3[k], r4[k], r5[k], r6[k], r7[k])
            sums = multiplyAdd(column, SIMD8<Float>(repeating: w[k]), sums)
            k += 1
        }
        w += length
        let next = layout.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next
        r4 += next; r5 += next; r6 += next; r7 += next
    }
    sums = clamp(sums, lower: SIMD8<Float>(repeating: lower), upper: SIMD8<Float>(repeating: upper))
    if cStride == 1 {
        storeVector8(sums, c, count: rows)
    } else {
        for r in 0..<rows { c[r * cStride] = sums[r] }
    }
}

/// The 8×8 matrix with rows `v0...v7`, transposed: vector `j` of the result
/// holds element `j` of every row. Three rounds of splitting pairs of
/// vectors into their even and odd elements (each round rotates the bits of
/// an element's position by one, so three move row bits and column bits past
/// each other); the compiler turns each split into a shuffle.
@inline(__always)
func transpose8x8(
    _ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ v2: SIMD8<Float>, _ v3: SIMD8<Float>,
    _ v4: SIMD8<Float>, _ v5: SIMD8<Float>, _ v6: SIMD8<Float>, _ v7: SIMD8<Float>
) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
    @inline(__always)
    func split(
        _ m: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
    ) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let a = SIMD16(lowHalf: m.0, highHalf: m.1), b = SIMD16(lowHalf: m.2, highHalf: m.3)
        let c = SIMD16(lowHalf: m.4, highHalf: m.5), d = SIMD16(lowHalf: m.6, highHalf: m.7)
        return (a.evenHalf, b.evenHalf, c.evenHalf, d.evenHalf, a.oddHalf, b.oddHalf, c.oddHalf, d.oddHalf)
    }
    return split(split(split((v0, v1, v2, v3, v4, v5, v6, v7))))
}

/// Copies the first `rows` rows and `columns` columns of a tile of
/// vectors (`rowWidth` floats per row, rows one after another) to `c`.
@inline(__always)
private func storeTile<Tile>(
    _ tile: Tile, rowWidth: Int, rows: Int, columns: Int,
    c: UnsafeMutablePointer<Float>, cStride: Int
) {
    withUnsafeBytes(of: tile) { bytes in
        let values = bytes.assumingMemoryBound(to: Float.self)
        for r in 0..<rows {
            for j in 0..<columns { c[r * cStride + j] = values[r * rowWidth + j] }
        }
    }
}
