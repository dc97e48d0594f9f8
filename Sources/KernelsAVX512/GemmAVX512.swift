// The 512-bit GEMM microkernels of `C = clamp(A · W + bias)`, for the 1×1
// and k×k convolutions and FULLY_CONNECTED.
//
// Like the baseline kernels in Kernels/Microkernels/GemmMicrokernels.swift,
// each computes a tile of C with all of K summed in registers: an element is
// its bias plus one fused multiply-add per k, in ascending k order, so its
// value depends only on its row of A and its column of W, never on the tile
// or the thread that computed it, and it is bit-identical to the baseline
// kernels' result. Rows past `rows` reuse the last valid row's pointer (the
// extra lanes are computed and dropped).

/// Where the kernels read the K values of each row of A: row `r` is
/// `segmentCount` runs of `segmentLength` contiguous floats, run `s`
/// starting at `a + r·rowStride + s·segmentStride`. The same description
/// as Kernels' `GemmRows`.
public struct GemmRowRuns: Sendable {
    /// Floats between the starts of consecutive rows.
    public var rowStride: Int
    public var segmentCount: Int
    public var segmentLength: Int
    /// Floats between the starts of consecutive runs of one row.
    public var segmentStride: Int

    public init(rowStride: Int, segmentCount: Int, segmentLength: Int, segmentStride: Int) {
        self.rowStride = rowStride
        self.segmentCount = segmentCount
        self.segmentLength = segmentLength
        self.segmentStride = segmentStride
    }
}

/// Output channels per full panel of the 512-bit kernels (two zmm vectors):
/// Kernels' `PackedGemmWeights.avx512PanelWidth`.
let gemmPanelWidthAVX512 = 32

/// Rows of C per microkernel call: Kernels' `GemmTiling.avx512MicrokernelRows`.
let gemmMicrokernelRowsAVX512 = 8

/// Computes rows `0..<rows` × the columns of `panels` of C: for each panel,
/// every 8-row tile in turn, so that the panel stays in L1 while the rows of
/// A stream from L2.
///
/// - Parameters:
///   - a: row 0 of A, laid out as `runs` says (`K = segmentCount·segmentLength`).
///   - packed: the packed weights, panel `p` at float offset `32·p·K`,
///     K-major with `width(p)` floats per k: 32, except panel `lastPanel`,
///     which is `lastPanelWidth` (16 or 32) wide. `panels` must not hold an
///     8-wide panel.
///   - bias: the bias, zero-padded to a multiple of 32 floats.
///   - outputs: N, the number of columns of C.
///   - c: row 0 of C, column 0; row `r` starts at `c + r·cStride`.
///   - epilogue: applied to each tile in registers before it is stored, or nil.
@inline(never)
public func gemmF32PanelsAVX512(
    a: UnsafePointer<Float>, rows: Int, runs: GemmRowRuns,
    packed: UnsafePointer<Float>, bias: UnsafePointer<Float>, outputs: Int,
    panels: Range<Int>, lastPanel: Int, lastPanelWidth: Int,
    c: UnsafeMutablePointer<Float>, cStride: Int, lower: Float, upper: Float,
    epilogue: TileEpilogue?
) {
    let width = gemmPanelWidthAVX512, mr = gemmMicrokernelRowsAVX512
    let depth = runs.segmentCount * runs.segmentLength
    for p in panels {
        let panel = packed + p * width * depth
        let column = p * width
        let columns = min(width, outputs - column)
        var row = 0
        let narrow = p == lastPanel && lastPanelWidth == 16
        let finish = epilogue?.forColumns(startingAt: column)
        while row < rows {
            if narrow {
                gemmF32Microkernel8x16(
                    rows: min(mr, rows - row), a: a + row * runs.rowStride, runs: runs,
                    panel: panel, bias: bias + column, c: c + row * cStride + column,
                    cStride: cStride, columns: columns, lower: lower, upper: upper, epilogue: finish)
            } else {
                gemmF32Microkernel8x32(
                    rows: min(mr, rows - row), a: a + row * runs.rowStride, runs: runs,
                    panel: panel, bias: bias + column, c: c + row * cStride + column,
                    cStride: cStride, columns: columns, lower: lower, upper: upper, epilogue: finish)
            }
            row += mr
        }
    }
}

/// A `rows × columns` tile (rows 1...8, columns 1...32) from one 32-wide
/// panel: 16 `SIMD16<Float>` accumulators, two loads of the panel and eight
/// broadcasts of A per k. `epilogue` (its channels starting at the tile's
/// first column) finishes the clamped rows before they are stored.
@inline(never)
func gemmF32Microkernel8x32(
    rows: Int, a: UnsafePointer<Float>, runs: GemmRowRuns,
    panel: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    lower: Float, upper: Float, epilogue: TileEpilogue?
) {
    let stride = runs.rowStride
    let a0 = a
    let a1 = rows > 1 ? a0 + stride : a0
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    let a4 = rows > 4 ? a3 + stride : a3
    let a5 = rows > 5 ? a4 + stride : a4
    let a6 = rows > 6 ? a5 + stride : a5
    let a7 = rows > 7 ? a6 + stride : a6
    var c00 = loadVector16(bias), c01 = loadVector16(bias + 16)
    var c10 = c00, c11 = c01, c20 = c00, c21 = c01, c30 = c00, c31 = c01
    var c40 = c00, c41 = c01, c50 = c00, c51 = c01, c60 = c00, c61 = c01, c70 = c00, c71 = c01
    var b = panel
    var r0 = a0, r1 = a1, r2 = a2, r3 = a3, r4 = a4, r5 = a5, r6 = a6, r7 = a7
    for _ in 0..<runs.segmentCount {
        for k in 0..<runs.segmentLength {
            let b0 = loadVector16(b), b1 = loadVector16(b + 16)
            b += 32
            var x = SIMD16<Float>(repeating: r0[k])
            c00 = c00.addingProduct(x, b0); c01 = c01.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r1[k])
            c10 = c10.addingProduct(x, b0); c11 = c11.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r2[k])
            c20 = c20.addingProduct(x, b0); c21 = c21.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r3[k])
            c30 = c30.addingProduct(x, b0); c31 = c31.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r4[k])
            c40 = c40.addingProduct(x, b0); c41 = c41.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r5[k])
            c50 = c50.addingProduct(x, b0); c51 = c51.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r6[k])
            c60 = c60.addingProduct(x, b0); c61 = c61.addingProduct(x, b1)
            x = SIMD16<Float>(repeating: r7[k])
            c70 = c70.addingProduct(x, b0); c71 = c71.addingProduct(x, b1)
        }
        let next = runs.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next
        r4 += next; r5 += next; r6 += next; r7 += next
    }
    let lo = SIMD16<Float>(repeating: lower), hi = SIMD16<Float>(repeating: upper)
    c00 = clamp(c00, lower: lo, upper: hi); c01 = clamp(c01, lower: lo, upper: hi)
    c10 = clamp(c10, lower: lo, upper: hi); c11 = clamp(c11, lower: lo, upper: hi)
    c20 = clamp(c20, lower: lo, upper: hi); c21 = clamp(c21, lower: lo, upper: hi)
    c30 = clamp(c30, lower: lo, upper: hi); c31 = clamp(c31, lower: lo, upper: hi)
    c40 = clamp(c40, lower: lo, upper: hi); c41 = clamp(c41, lower: lo, upper: hi)
    c50 = clamp(c50, lower: lo, upper: hi); c51 = clamp(c51, lower: lo, upper: hi)
    c60 = clamp(c60, lower: lo, upper: hi); c61 = clamp(c61, lower: lo, upper: hi)
    c70 = clamp(c70, lower: lo, upper: hi); c71 = clamp(c71, lower: lo, upper: hi)
    if let epilogue {
        // Rows past `rows` are not finished: their residual may lie past the tensor.
        (c00, c01) = epilogue.finished(c00, c01, c, columns: columns)
        if rows > 1 { (c10, c11) = epilogue.finished(c10, c11, c + cStride, columns: columns) }
        if rows > 2 { (c20, c21) = epilogue.finished(c20, c21, c + 2 * cStride, columns: columns) }
        if rows > 3 { (c30, c31) = epilogue.finished(c30, c31, c + 3 * cStride, columns: columns) }
        if rows > 4 { (c40, c41) = epilogue.finished(c40, c41, c + 4 * cStride, columns: columns) }
        if rows > 5 { (c50, c51) = epilogue.finished(c50, c51, c + 5 * cStride, columns: columns) }
        if rows > 6 { (c60, c61) = epilogue.finished(c60, c61, c + 6 * cStride, columns: columns) }
        if rows > 7 { (c70, c71) = epilogue.finished(c70, c71, c + 7 * cStride, columns: columns) }
    }
    if rows == 8 && columns == 32 {
        var out = c
        storeVector16(c00, out); storeVector16(c01, out + 16); out += cStride
        storeVector16(c10, out); storeVector16(c11, out + 16); out += cStride
        storeVector16(c20, out); storeVector16(c21, out + 16); out += cStride
        storeVector16(c30, out); storeVector16(c31, out + 16); out += cStride
        storeVector16(c40, out); storeVector16(c41, out + 16); out += cStride
        storeVector16(c50, out); storeVector16(c51, out + 16); out += cStride
        storeVector16(c60, out); storeVector16(c61, out + 16); out += cStride
        storeVector16(c70, out); storeVector16(c71, out + 16)
        return
    }
    let tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71)
    storeTile(tile, rowVectors: 2, rows: rows, columns: columns, c: c, cStride: cStride)
}

/// A `rows × columns` tile (rows 1...8, columns 1...16) from the 16-wide
/// last panel: 8 `SIMD16<Float>` accumulators, one load of the panel and
/// eight broadcasts of A per k. Same parameters as `gemmF32Microkernel8x32`
/// with 16 floats per k in `panel`.
@inline(never)
func gemmF32Microkernel8x16(
    rows: Int, a: UnsafePointer<Float>, runs: GemmRowRuns,
    panel: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    lower: Float, upper: Float, epilogue: TileEpilogue?
) {
    let stride = runs.rowStride
    let a0 = a
    let a1 = rows > 1 ? a0 + stride : a0
    let a2 = rows > 2 ? a1 + stride : a1
    let a3 = rows > 3 ? a2 + stride : a2
    let a4 = rows > 4 ? a3 + stride : a3
    let a5 = rows > 5 ? a4 + stride : a4
    let a6 = rows > 6 ? a5 + stride : a5
    let a7 = rows > 7 ? a6 + stride : a6
    var c0 = loadVector16(bias)
    var c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0
    var b = panel
    var r0 = a0, r1 = a1, r2 = a2, r3 = a3, r4 = a4, r5 = a5, r6 = a6, r7 = a7
    for _ in 0..<runs.segmentCount {
        for k in 0..<runs.segmentLength {
            let b0 = loadVector16(b)
            b += 16
            c0 = c0.addingProduct(SIMD16<Float>(repeating: r0[k]), b0)
            c1 = c1.addingProduct(SIMD16<Float>(repeating: r1[k]), b0)
            c2 = c2.addingProduct(SIMD16<Float>(repeating: r2[k]), b0)
            c3 = c3.addingProduct(SIMD16<Float>(repeating: r3[k]), b0)
            c4 = c4.addingProduct(SIMD16<Float>(repeating: r4[k]), b0)
            c5 = c5.addingProduct(SIMD16<Float>(repeating: r5[k]), b0)
            c6 = c6.addingProduct(SIMD16<Float>(repeating: r6[k]), b0)
            c7 = c7.addingProduct(SIMD16<Float>(repeating: r7[k]), b0)
        }
        let next = runs.segmentStride
        r0 += next; r1 += next; r2 += next; r3 += next
        r4 += next; r5 += next; r6 += next; r7 += next
    }
    let lo = SIMD16<Float>(repeating: lower), hi = SIMD16<Float>(repeating: upper)
    c0 = clamp(c0, lower: lo, upper: hi); c1 = clamp(c1, lower: lo, upper: hi)
    c2 = clamp(c2, lower: lo, upper: hi); c3 = clamp(c3, lower: lo, upper: hi)
    c4 = clamp(c4, lower: lo, upper: hi); c5 = clamp(c5, lower: lo, upper: hi)
    c6 = clamp(c6, lower: lo, upper: hi); c7 = clamp(c7, lower: lo, upper: hi)
    if let epilogue {
        // Rows past `rows` are not finished: their residual may lie past the tensor.
        c0 = epilogue.finished(c0, c)
        if rows > 1 { c1 = epilogue.finished(c1, c + cStride) }
        if rows > 2 { c2 = epilogue.finished(c2, c + 2 * cStride) }
        if rows > 3 { c3 = epilogue.finished(c3, c + 3 * cStride) }
        if rows > 4 { c4 = epilogue.finished(c4, c + 4 * cStride) }
        if rows > 5 { c5 = epilogue.finished(c5, c + 5 * cStride) }
        if rows > 6 { c6 = epilogue.finished(c6, c + 6 * cStride) }
        if rows > 7 { c7 = epilogue.finished(c7, c + 7 * cStride) }
    }
    if rows == 8 && columns == 16 {
        storeVector16(c0, c); storeVector16(c1, c + cStride)
        storeVector16(c2, c + 2 * cStride); storeVector16(c3, c + 3 * cStride)
        storeVector16(c4, c + 4 * cStride); storeVector16(c5, c + 5 * cStride)
        storeVector16(c6, c + 6 * cStride); storeVector16(c7, c + 7 * cStride)
        return
    }
    storeTile(
        (c0, c1, c2, c3, c4, c5, c6, c7), rowVectors: 1, rows: rows, columns: columns, c: c,
        cStride: cStride)
}

/// Stores the first `rows` rows and `columns` columns of a tile of
/// `SIMD16<Float>` vectors (`rowVectors` per row, rows one after another)
/// to `c`, a vector at a time: for the last row tile and a narrow last
/// panel.
@inline(__always)
private func storeTile<Tile>(
    _ tile: Tile, rowVectors: Int, rows: Int, columns: Int, c: UnsafeMutablePointer<Float>, cStride: Int
) {
    withUnsafeBytes(of: tile) { bytes in
        let vectors = bytes.assumingMemoryBound(to: SIMD16<Float>.self)
        for r in 0..<rows {
            var remaining = columns, v = 0
            while remaining > 0 {
                storeVector16(vectors[r * rowVectors + v], c + r * cStride + 16 * v, count: min(16, remaining))
                remaining -= 16
                v += 1
            }
        }
    }
}

/// Element-wise operations applied to each tile of C in registers before
/// it is stored, in place of a following ADD and PRELU (Kernels'
/// `EpilogueOperands`, whose float operations these repeat exactly):
/// `y = clamp(y + residual, lower, upper)` (or `residual + y`), then
/// `y = y >= 0 ? y : alpha[channel]·y`.
public struct TileEpilogue {
    /// C's first element.
    public var output: UnsafePointer<Float>
    /// The residual's first element (C's layout, readable 16 floats past
    /// its end), or nil for no ADD.
    public var residual: UnsafePointer<Float>?
    public var lower: Float
    public var upper: Float
    /// Whether the residual is the ADD's first operand.
    public var residualFirst: Bool
    /// PRELU's alpha per channel, readable up to a multiple of 32 floats, or nil.
    public var alpha: UnsafePointer<Float>?

    public init(
        output: UnsafePointer<Float>, residual: UnsafePointer<Float>?, lower: Float, upper: Float,
        residualFirst: Bool, alpha: UnsafePointer<Float>?
    ) {
        self.output = output
        self.residual = residual
        self.lower = lower
        self.upper = upper
        self.residualFirst = residualFirst
        self.alpha = alpha
    }

    /// The same epilogue for a tile whose first column is channel `column`.
    func forColumns(startingAt column: Int) -> TileEpilogue {
        var shifted = self
        shifted.alpha = alpha.map { $0 + column }
        return shifted
    }

    /// The 16 outputs of one row that would be stored at `c`, whose first
    /// is channel 0 of `alpha`'s view (`forColumns`), finished. Reads 16
    /// residual values even where fewer outputs are stored: the tensor may
    /// be read one vector past its end. (Returns values rather than taking
    /// `inout` accumulators, which would keep them in memory.)
    @inline(__always)
    func finished(_ value: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>) -> SIMD16<Float> {
        finished(value, c, channel: 0)
    }

    /// The `columns` (1...32) outputs of one row that would be stored at
    /// `c`, as two vectors, finished; the second only when `columns > 16`.
    @inline(__always)
    func finished(
        _ low: SIMD16<Float>, _ high: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>, columns: Int
    ) -> (SIMD16<Float>, SIMD16<Float>) {
        (finished(low, c, channel: 0), columns > 16 ? finished(high, c + 16, channel: 16) : high)
    }

    @inline(__always)
    private func finished(_ value: SIMD16<Float>, _ c: UnsafeMutablePointer<Float>, channel: Int) -> SIMD16<Float> {
        var v = value
        if let residual {
            let other = loadVector16(residual + (UnsafePointer(c) - output))
            v = clamp(
                residualFirst ? other + v : v + other,
                lower: SIMD16(repeating: lower), upper: SIMD16(repeating: upper))
        }
        if let alpha {
            v = prelu(v, alpha: loadVector16(alpha + channel))
        }
        return v
    }
}
