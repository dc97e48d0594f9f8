import KernelTemplates

/// The AVX-512 family's vectors for the templates of `KernelTemplates`:
/// `SIMD16<Float>` (one zmm register), a fused multiply-add, and this module's
/// clamp. The conforming types are the family's own markers.
protocol AVX512Vectors16: KernelVectors where Vector == SIMD16<Float> {}

extension AVX512Vectors16 {
    @inline(__always)
    static func broadcast(_ value: Float) -> SIMD16<Float> { SIMD16<Float>(repeating: value) }

    @inline(__always)
    static func multiplyAdd(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
        c.addingProduct(a, b)
    }

    @inline(__always)
    static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float { c.addingProduct(a, b) }

    @inline(__always)
    static func clamp(_ x: SIMD16<Float>, lower: SIMD16<Float>, upper: SIMD16<Float>) -> SIMD16<Float> {
        KernelsAVX512.clamp(x, lower: lower, upper: upper)
    }

    @inline(__always)
    static func prelu(_ x: SIMD16<Float>, alpha: SIMD16<Float>) -> SIMD16<Float> {
        KernelsAVX512.prelu(x, alpha: alpha)
    }

    /// Out of line, 16, 8, 4, 2 and 1 floats at a time.
    @inline(__always)
    static func storePartialTile(
        _ tile: UnsafeRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
        c: UnsafeMutablePointer<Float>, cStride: Int
    ) {
        storePartialTile16(tile, rowWidth: rowWidth, rows: rows, columns: columns, c: c, cStride: cStride)
    }
}

/// One 16-lane vector: the 16-wide last GEMM panel, a group of 16 channels.
enum AVX512F32x16: AVX512Vectors16 {
    static var count: Int { 1 }
}

/// Two 16-lane vectors: the 32-wide GEMM panel, a group of 32 channels.
enum AVX512F32x16x2: AVX512Vectors16 {
    static var count: Int { 2 }
}

/// Copies the first `rows` rows and `columns` columns of a tile spilled to
/// `tile` (`rowWidth` floats per row, rows one after another) to `c`, 16,
/// 8, 4, 2 and 1 floats at a time: for the last row tile and a partial
/// panel. Out of line: passing the vectors themselves, or extracting their
/// lanes inline, leads the compiler to split every vector of the tile into
/// quarters, which slows the whole-tile path several times over.
@inline(never)
private func storePartialTile16(
    _ tile: UnsafeRawBufferPointer, rowWidth: Int, rows: Int, columns: Int,
    c: UnsafeMutablePointer<Float>, cStride: Int
) {
    let base = tile.baseAddress!.assumingMemoryBound(to: Float.self)
    for r in 0..<rows {
        var j = 0
        while j + 16 <= columns {
            storeVector16(loadVector16(base + r * rowWidth + j), c + r * cStride + j)
            j += 16
        }
        storeVector16(loadVector16(base + r * rowWidth + j), c + r * cStride + j, count: columns - j)
    }
}

/// One 8-lane vector (one ymm register), with a fused multiply-add: a group of 8 channels,
/// the 8-lane step of the epilogue.
enum AVX512F32x8: KernelVectors {
    typealias Vector = SIMD8<Float>
    static var count: Int { 1 }

    @inline(__always)
    static func broadcast(_ value: Float) -> SIMD8<Float> { SIMD8<Float>(repeating: value) }

    @inline(__always)
    static func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
        c.addingProduct(a, b)
    }

    @inline(__always)
    static func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float { c.addingProduct(a, b) }

    @inline(__always)
    static func clamp(_ x: Vector, lower: Vector, upper: Vector) -> Vector {
        KernelsAVX512.clamp(x, lower: lower, upper: upper)
    }

    @inline(__always)
    static func prelu(_ x: SIMD8<Float>, alpha: SIMD8<Float>) -> SIMD8<Float> { KernelsAVX512.prelu(x, alpha: alpha) }
}
