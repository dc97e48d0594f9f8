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

/// The lanes of `a` where `mask` is set, of `b` elsewhere. Written with the
/// integer `&` and `^` of the lanes' bits, which compile to whole-vector
/// operations: `replacing(with:where:)` and per-lane loops go lane by lane
/// and leave it to the compiler to put the lanes back into vectors, which it
/// does only sometimes.
@inline(__always)
func select(_ mask: SIMDMask<SIMD8<Int32>>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    let aBits = unsafeBitCast(a, to: SIMD8<Int32>.self), bBits = unsafeBitCast(b, to: SIMD8<Int32>.self)
    return unsafeBitCast(bBits ^ ((aBits ^ bBits) & mask._storage), to: SIMD8<Float>.self)
}

/// `min(max(x, lower), upper)` per lane with C++'s `std::max`/`std::min`
/// semantics (as TFLite clamps): a NaN lane stays NaN.
@inline(__always)
func clamp(_ x: SIMD8<Float>, lower: SIMD8<Float>, upper: SIMD8<Float>) -> SIMD8<Float> {
    let raised = select(x .< lower, lower, x)
    return select(upper .< raised, upper, raised)
}

/// PRELU per lane: `x >= 0 ? x : alpha·x` (NaN lanes take the product, as
/// in TFLite).
@inline(__always)
func prelu(_ x: SIMD8<Float>, alpha: SIMD8<Float>) -> SIMD8<Float> {
    // Typed, so that the comparison is SIMD8<Float>'s own (a vector
    // compare), not the generic one that goes lane by lane.
    let nonNegative: SIMDMask<SIMD8<Int32>> = x .>= SIMD8<Float>(repeating: 0)
    return select(nonNegative, x, x * alpha)
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
