import KernelTemplates

// The float transposes the kernels share: an 8 × 8 square in registers (the GEMM's dot-product
// kernel, the single-channel convolution), and whole matrices of any size built on it (the
// layout conversions and the channel-major depthwise layer's channel-last tiles).

/// Writes the `rows × columns` matrix at `source` (its rows `sourceStride` floats apart)
/// transposed to `target` (the source's columns as rows, `targetStride` floats apart): whole
/// 8 × 8 squares in registers (`transposeSquare8x8`), the edges element by element. Used by
/// `LayoutConversion` and by the channel-last tiles of `DepthwiseCHWTiles`.
@inline(__always)
func transposeMatrix(
    _ source: UnsafePointer<Float>, rows: Int, columns: Int, sourceStride: Int,
    into target: UnsafeMutablePointer<Float>, targetStride: Int
) {
    let wholeRows = rows / 8 * 8, wholeColumns = columns / 8 * 8
    var c = 0
    while c < wholeColumns {
        var r = 0
        while r < wholeRows {
            transposeSquare8x8(
                source + r * sourceStride + c, sourceStride: sourceStride,
                into: target + c * targetStride + r, targetStride: targetStride)
            r += 8
        }
        c += 8
    }
    // The rows past the last whole square, for the whole squares' columns;
    // then every row of the columns past them.
    for c in 0..<wholeColumns {
        for r in wholeRows..<rows { target[c * targetStride + r] = source[r * sourceStride + c] }
    }
    for c in wholeColumns..<columns {
        for r in 0..<rows { target[c * targetStride + r] = source[r * sourceStride + c] }
    }
}

/// Writes the 8 × 8 square of floats at `source` (rows `sourceStride` apart) to `target`
/// transposed (rows `targetStride` apart): row `j` of the target is column `j` of the source.
/// Eight vector loads, `transpose8x8`, eight vector stores.
@inline(__always)
func transposeSquare8x8(
    _ source: UnsafePointer<Float>, sourceStride: Int, into target: UnsafeMutablePointer<Float>, targetStride: Int
) {
    let t = transpose8x8(
        loadVector8(source), loadVector8(source + sourceStride), loadVector8(source + 2 * sourceStride),
        loadVector8(source + 3 * sourceStride), loadVector8(source + 4 * sourceStride),
        loadVector8(source + 5 * sourceStride), loadVector8(source + 6 * sourceStride),
        loadVector8(source + 7 * sourceStride))
    storeVector8(t.0, target)
    storeVector8(t.1, target + targetStride)
    storeVector8(t.2, target + 2 * targetStride)
    storeVector8(t.3, target + 3 * targetStride)
    storeVector8(t.4, target + 4 * targetStride)
    storeVector8(t.5, target + 5 * targetStride)
    storeVector8(t.6, target + 6 * targetStride)
    storeVector8(t.7, target + 7 * targetStride)
}

/// The 8×8 matrix with rows `v0...v7`, transposed: vector `j` of the result
/// holds element `j` of every row. Three rounds of splitting pairs of
/// vectors into their even and odd elements (each round rotates the bits of
/// an element's position by one, so three move row bits and column bits past
/// each other). Where the rows come straight from memory (`transposeSquare8x8`), LLVM folds
/// the loads into the shuffles and emits per-element loads and blends instead; written as
/// unpacks, pair shuffles and lane swaps it does the same and runs no faster
/// (`Benchmarks/JOURNAL.md`, "Tensors staggered within a page").
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
