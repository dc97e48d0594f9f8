import KernelTemplates

// Register-blocked microkernels of the GEMM `C = clamp(A · W + bias)`:
// the panel tiles are `gemmTile` of KernelTemplates (6×16, 5×16 and 8×8 on
// `SIMD8<Float>`, 4×16 reading float16 panels), the dot kernel for narrow
// outputs is below.
//
// Each computes one small tile of C with all of K summed in registers, in
// ascending k order, starting from the bias: an element's value depends
// only on its row of A (and how that row is cut into runs, for the dot
// kernel) and its column of W, never on the tile it was computed in. Rows
// past `rows` reuse the last valid row's pointer (the extra lanes are
// computed and dropped), so one kernel covers every row remainder without
// branches in the k loop.

/// Where the microkernels read the K values of each row of A (`GemmRowRuns` of
/// `KernelTemplates`, shared with the AVX-512 family).
typealias GemmRows = GemmRowRuns

extension GemmRowRuns {
    /// Rows of `depth` contiguous floats, `rowStride` apart.
    static func contiguous(depth: Int, rowStride: Int) -> GemmRows {
        GemmRows(rowStride: rowStride, segmentCount: 1, segmentLength: depth, segmentStride: depth)
    }

    var depth: Int { segmentCount * segmentLength }
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
    var sums = SIMD8<Float>(repeating: bias)
    var w = weights
    var (r0, r1, r2, r3, r4, r5, r6, r7) = gemmTileRowPointers(a, stride: stride, rows: rows)
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
