// Multiply-add, clamp, load and store helpers shared by the fast kernels.
//
// With `LANDMARKER_FMA` (set by Package.swift together with
// `-target-cpu haswell` in native builds) a multiply-add is one fused
// `vfmadd` instruction. In the portable build it is a separate multiply and
// add: without FMA code generation, `addingProduct` lowers to a software
// `fmaf` call per lane, which is two orders of magnitude slower. The two
// builds differ only in rounding of the last bits.

/// `a * b + c` for eight lanes, fused when FMA code generation is on.
@inline(__always)
func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    #if LANDMARKER_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// `a * b + c` for one scalar, fused when FMA code generation is on.
@inline(__always)
func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float {
    #if LANDMARKER_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// `min(max(x, lower), upper)` per lane with C++'s `std::max`/`std::min`
/// semantics (as TFLite clamps): a NaN lane stays NaN. Written as selects
/// that lower to `vmaxps`/`vminps` or a compare and blend.
@inline(__always)
func clamp(_ x: SIMD8<Float>, lower: SIMD8<Float>, upper: SIMD8<Float>) -> SIMD8<Float> {
    let raised = x.replacing(with: lower, where: x .< lower)
    return raised.replacing(with: upper, where: upper .< raised)
}

/// PRELU per lane: `x >= 0 ? x : alpha·x` (NaN lanes take the product, as
/// in TFLite). Written lane by lane: `SIMD`'s comparison operators can
/// compile to a loop over lanes, while this form becomes one compare and
/// blend.
@inline(__always)
func prelu(_ x: SIMD8<Float>, alpha: SIMD8<Float>) -> SIMD8<Float> {
    let scaled = x * alpha
    var result = x
    for lane in 0..<8 { result[lane] = x[lane] >= 0 ? x[lane] : scaled[lane] }
    return result
}

/// `min(max(x, lower), upper)` for one scalar, with the same NaN behaviour
/// as the vector `clamp`.
@inline(__always)
func clamp(_ x: Float, lower: Float, upper: Float) -> Float {
    let raised = x < lower ? lower : x
    return upper < raised ? upper : raised
}

/// Loads eight floats starting at `pointer` (no alignment required).
@inline(__always)
func loadVector8(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
}

/// Stores eight floats starting at `pointer` (no alignment required).
@inline(__always)
func storeVector8(_ value: SIMD8<Float>, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD8<Float>.self)
}

/// Stores the first `count` lanes (0...8) of `value` at `pointer`.
@inline(__always)
func storeVector8(_ value: SIMD8<Float>, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
    withUnsafeBytes(of: value) { bytes in
        UnsafeMutableRawPointer(pointer).copyMemory(
            from: bytes.baseAddress!, byteCount: count * MemoryLayout<Float>.stride)
    }
}
