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
            gemmF32Microkernel8x16(
                rows: min(mr, rows - row), a: a + row * runs.rowStride, runs: runs,
                panel: panel, bias: bias + column, c: c + row * cStride + column,
                cStride: cStride, columns: columns, lower: lower, upper: upper)
        } else {
            gemmF32Microkernel8x32(
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

/// A `rows × columns` tile (rows 1...8, columns 1...32) from one 32-wide
/// panel: 16 `SIMD16<Float>` accumulators, two loads of the panel and eight
/// broadcasts of A per k.
@inline(never)
func gemmF32Microkernel8x32(
    rows: Int, a: UnsafePointer<Float>, runs: GemmRowRuns,
    panel: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    c: UnsafeMutablePointer<Float>, cStride: Int, columns: Int,
    lower: Float, upper: Float
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
    var tile = (c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71)
    withUnsafeMutableBytes(of: &tile) { bytes in
        storePartialTile(bytes, rowWidth: 32, rows: rows, columns: columns, c: c, cStride: cStride)
    }
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
    lower: Float, upper: Float
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
    if rows == 8 && columns == 16 {
        storeVector16(c0, c); storeVector16(c1, c + cStride)
        storeVector16(c2, c + 2 * cStride); storeVector16(c3, c + 3 * cStride)
        storeVector16(c4, c + 4 * cStride); storeVector16(c5, c + 5 * cStride)
        storeVector16(c6, c + 6 * cStride); storeVector16(c7, c + 7 * cStride)
        return
    }
    var tile = (c0, c1, c2, c3, c4, c5, c6, c7)
    withUnsafeMutableBytes(of: &tile) { bytes in
        storePartialTile(bytes, rowWidth: 16, rows: rows, columns: columns, c: c, cStride: cStride)
    }
}

/// Copies the first `rows` rows and `columns` columns of a tile spilled to
/// `tile` (`rowWidth` floats per row, rows one after another) to `c`, 16,
/// 8, 4, 2 and 1 floats at a time: for the last row tile and a partial
/// panel. The microkernels spill the tile with whole-vector stores and call
/// this out of line: passing the vectors themselves, or extracting their
/// lanes inline, leads the compiler to split every vector of the tile into
/// quarters, which slows the whole-tile path several times over.
@inline(never)
private func storePartialTile(
    _ tile: UnsafeMutableRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
    c: UnsafeMutablePointer<Float>, cStride: Int
) {
    let base = UnsafePointer(tile.baseAddress!.assumingMemoryBound(to: Float.self))
    for r in 0..<rows {
        var j = 0
        while j + 16 <= columns {
            storeVector16(loadVector16(base + r * rowWidth + j), c + r * cStride + j)
            j += 16
        }
        storeVector16(loadVector16(base + r * rowWidth + j), c + r * cStride + j, count: columns - j)
    }
}

/// Element-wise operations applied to blocks of C after they are computed,
/// in place of a following ADD and PRELU (Kernels' `EpilogueOperands`,
/// whose float operations these repeat exactly):
/// `y = clamp(y + residual, lower, upper)` (or `residual + y`), then
/// `y = y >= 0 ? y : alpha[channel]·y`.
public struct TileEpilogue {
    /// C's first element.
    public var output: UnsafePointer<Float>
    /// The residual's first element (C's layout), or nil for no ADD.
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

    /// Finishes rows `0..<rows`, columns `column ..< column + columns` of
    /// the block already stored at `c` (row `r` at `c + r·cStride`; column 0
    /// of `c` is channel 0): 16 lanes at a time, then 8, then one by one.
    @inline(never)
    public func apply(c: UnsafeMutablePointer<Float>, cStride: Int, rows: Int, column: Int, columns: Int) {
        let offset = UnsafePointer(c) - output
        for r in 0..<rows {
            let y = c + r * cStride + column
            let x = residual.map { $0 + offset + r * cStride + column }
            var j = 0
            while j + 16 <= columns {
                var v = loadVector16(y + j)
                if let x {
                    let other = loadVector16(x + j)
                    v = clamp(
                        residualFirst ? other + v : v + other,
                        lower: SIMD16(repeating: lower), upper: SIMD16(repeating: upper))
                }
                if let alpha { v = prelu(v, alpha: loadVector16(alpha + column + j)) }
                storeVector16(v, y + j)
                j += 16
            }
            if j + 8 <= columns {
                var v = loadVector8(y + j)
                if let x {
                    let other = loadVector8(x + j)
                    v = clamp(
                        residualFirst ? other + v : v + other,
                        lower: SIMD8(repeating: lower), upper: SIMD8(repeating: upper))
                }
                if let alpha { v = prelu(v, alpha: loadVector8(alpha + column + j)) }
                storeVector8(v, y + j)
                j += 8
            }
            while j < columns {
                var v = y[j]
                if let x { v = clamp(residualFirst ? x[j] + v : v + x[j], lower: lower, upper: upper) }
                if let alpha, !(v >= 0) { v = v * alpha[column + j] }
                y[j] = v
                j += 1
            }
        }
    }
}
