// Lane-wise multiply-add, select, clamp and PRELU on the vectors the kernel families use
// (`SIMD8<Float>`, one ymm register; `SIMD16<Float>`, one zmm register with AVX-512), the
// loads and stores of eight and sixteen floats, and the lane shuffles of the channel-major
// kernels. Each is written for its concrete type: the generic `SIMD`
// operations go lane by lane and leave it to the compiler to put the lanes back into vectors,
// which it does only sometimes. They are `@inlinable` and not generic, so a family's module
// compiles them into its own code with its own code generation (a call that is not inlined
// reaches this module's copy, compiled for the baseline).
//
// With `LANDMARKER_FMA` (set by Package.swift together with `-target-cpu haswell` in native
// builds) a multiply-add is one fused `vfmadd` instruction. In the portable build it is a
// separate multiply and add: without FMA code generation, `addingProduct` lowers to a software
// `fmaf` call per lane, two orders of magnitude slower. The two builds differ only in rounding
// of the last bits.

/// `a · b + c` for eight lanes, fused when FMA code generation is on.
@inlinable @inline(__always)
public func multiplyAdd(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
    #if LANDMARKER_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// `a · b + c` for sixteen lanes, fused when FMA code generation is on.
@inlinable @inline(__always)
public func multiplyAdd(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
    #if LANDMARKER_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// `a · b + c` for four lanes, fused when FMA code generation is on.
@inlinable @inline(__always)
public func multiplyAdd(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>) -> SIMD4<Float> {
    #if LANDMARKER_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// `a · b + c` for one scalar, fused when FMA code generation is on.
@inlinable @inline(__always)
public func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float {
    #if LANDMARKER_FMA
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}

/// The lanes of `a` where `mask` is set, of `b` elsewhere. Written with the integer `&` and `^`
/// of the lanes' bits, which compile to whole-vector operations (`replacing(with:where:)` and
/// per-lane loops go lane by lane).
@inlinable @inline(__always)
public func select(_ mask: SIMDMask<SIMD8<Int32>>, _ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    let aBits = unsafeBitCast(a, to: SIMD8<Int32>.self), bBits = unsafeBitCast(b, to: SIMD8<Int32>.self)
    return unsafeBitCast(bBits ^ ((aBits ^ bBits) & mask._storage), to: SIMD8<Float>.self)
}

/// `select` for sixteen lanes.
@inlinable @inline(__always)
public func select(_ mask: SIMDMask<SIMD16<Int32>>, _ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
    let aBits = unsafeBitCast(a, to: SIMD16<Int32>.self), bBits = unsafeBitCast(b, to: SIMD16<Int32>.self)
    return unsafeBitCast(bBits ^ ((aBits ^ bBits) & mask._storage), to: SIMD16<Float>.self)
}

/// `select` for four lanes.
@inlinable @inline(__always)
public func select(_ mask: SIMDMask<SIMD4<Int32>>, _ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    let aBits = unsafeBitCast(a, to: SIMD4<Int32>.self), bBits = unsafeBitCast(b, to: SIMD4<Int32>.self)
    return unsafeBitCast(bBits ^ ((aBits ^ bBits) & mask._storage), to: SIMD4<Float>.self)
}

/// `min(max(x, lower), upper)` per lane with C++'s `std::max`/`std::min` semantics (as TFLite
/// clamps): a NaN lane stays NaN.
@inlinable @inline(__always)
public func clamp(_ x: SIMD8<Float>, lower: SIMD8<Float>, upper: SIMD8<Float>) -> SIMD8<Float> {
    let raised = select(x .< lower, lower, x)
    return select(upper .< raised, upper, raised)
}

/// `clamp` for sixteen lanes.
@inlinable @inline(__always)
public func clamp(_ x: SIMD16<Float>, lower: SIMD16<Float>, upper: SIMD16<Float>) -> SIMD16<Float> {
    let raised = select(x .< lower, lower, x)
    return select(upper .< raised, upper, raised)
}

/// `clamp` for four lanes.
@inlinable @inline(__always)
public func clamp(_ x: SIMD4<Float>, lower: SIMD4<Float>, upper: SIMD4<Float>) -> SIMD4<Float> {
    let raised = select(x .< lower, lower, x)
    return select(upper .< raised, upper, raised)
}

/// `min(max(x, lower), upper)` for one scalar, with the same NaN behaviour as the vector `clamp`.
@inlinable @inline(__always)
public func clamp(_ x: Float, lower: Float, upper: Float) -> Float {
    let raised = x < lower ? lower : x
    return upper < raised ? upper : raised
}

/// PRELU per lane: `x >= 0 ? x : alpha·x` (NaN lanes take the product, as in TFLite).
@inlinable @inline(__always)
public func prelu(_ x: SIMD8<Float>, alpha: SIMD8<Float>) -> SIMD8<Float> {
    // Typed, so that the comparison is SIMD8<Float>'s own (a vector compare), not the generic
    // one that goes lane by lane.
    let nonNegative: SIMDMask<SIMD8<Int32>> = x .>= SIMD8<Float>(repeating: 0)
    return select(nonNegative, x, x * alpha)
}

/// `prelu` for sixteen lanes.
@inlinable @inline(__always)
public func prelu(_ x: SIMD16<Float>, alpha: SIMD16<Float>) -> SIMD16<Float> {
    let nonNegative: SIMDMask<SIMD16<Int32>> = x .>= SIMD16<Float>(repeating: 0)
    return select(nonNegative, x, x * alpha)
}

/// `prelu` for four lanes.
@inlinable @inline(__always)
public func prelu(_ x: SIMD4<Float>, alpha: SIMD4<Float>) -> SIMD4<Float> {
    let nonNegative: SIMDMask<SIMD4<Int32>> = x .>= SIMD4<Float>(repeating: 0)
    return select(nonNegative, x, x * alpha)
}

/// RELU per lane: `0 < x ? x : 0`, as TFLite's RELU and XNNPACK's `maxps` give it (−0 and NaN
/// lanes become +0).
@inlinable @inline(__always)
public func rectify(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let zero = SIMD8<Float>(repeating: 0)
    let positive: SIMDMask<SIMD8<Int32>> = zero .< x
    return select(positive, x, zero)
}

/// `rectify` for sixteen lanes.
@inlinable @inline(__always)
public func rectify(_ x: SIMD16<Float>) -> SIMD16<Float> {
    let zero = SIMD16<Float>(repeating: 0)
    let positive: SIMDMask<SIMD16<Int32>> = zero .< x
    return select(positive, x, zero)
}

/// `rectify` for four lanes.
@inlinable @inline(__always)
public func rectify(_ x: SIMD4<Float>) -> SIMD4<Float> {
    let zero = SIMD4<Float>(repeating: 0)
    let positive: SIMDMask<SIMD4<Int32>> = zero .< x
    return select(positive, x, zero)
}

/// Loads eight floats starting at `pointer` (no alignment required).
@inlinable @inline(__always)
public func loadVector8(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
}

/// Stores eight floats starting at `pointer` (no alignment required).
@inlinable @inline(__always)
public func storeVector8(_ value: SIMD8<Float>, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD8<Float>.self)
}

/// Stores the first `count` lanes (0...8) of `value` at `pointer`.
@inlinable @inline(__always)
public func storeVector8(_ value: SIMD8<Float>, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
    withUnsafeBytes(of: value) { bytes in
        UnsafeMutableRawPointer(pointer).copyMemory(
            from: bytes.baseAddress!, byteCount: count * MemoryLayout<Float>.stride)
    }
}

/// Stores the first `count` lanes (0...8) of `value` at `pointer` with whole stores of 4 and 2
/// lanes, then one lane: no call to `memmove`, for the short row ends of the channel-major
/// kernels.
@inlinable @inline(__always)
public func storeVector8Lanes(_ value: SIMD8<Float>, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
    if count >= 8 {
        storeVector8(value, pointer)
        return
    }
    var quarter = value.lowHalf, offset = 0
    if count & 4 != 0 {
        UnsafeMutableRawPointer(pointer).storeBytes(of: quarter, as: SIMD4<Float>.self)
        quarter = value.highHalf
        offset = 4
    }
    if count & 2 != 0 {
        UnsafeMutableRawPointer(pointer + offset).storeBytes(of: quarter.lowHalf, as: SIMD2<Float>.self)
        if count & 1 != 0 { pointer[offset &+ 2] = quarter[2] }
    } else if count & 1 != 0 {
        pointer[offset] = quarter[0]
    }
}

/// Loads 16 floats starting at `pointer` (no alignment required): one zmm register with
/// AVX-512, two ymm registers with AVX2.
@inlinable @inline(__always)
public func loadVector16(_ pointer: UnsafePointer<Float>) -> SIMD16<Float> {
    UnsafeRawPointer(pointer).loadUnaligned(as: SIMD16<Float>.self)
}

/// Stores 16 floats starting at `pointer` (no alignment required).
@inlinable @inline(__always)
public func storeVector16(_ value: SIMD16<Float>, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD16<Float>.self)
}

/// Stores the first `count` lanes (0...16) of `value` at `pointer`: whole vectors of 16, 8 and
/// 4 lanes, then single lanes.
@inlinable @inline(__always)
public func storeVector16(_ value: SIMD16<Float>, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
    if count == 16 {
        storeVector16(value, pointer)
        return
    }
    var rest = value.lowHalf, offset = 0
    if count & 8 != 0 {
        storeVector8(rest, pointer)
        rest = value.highHalf
        offset = 8
    }
    storeVector8Lanes(rest, pointer + offset, count: count & 7)
}

/// `value` with its lanes from `count` on set to zero.
@inlinable @inline(__always)
public func keepingLanes(_ value: SIMD16<Float>, below count: Int) -> SIMD16<Float> {
    let lanes = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    let keep: SIMDMask<SIMD16<Int32>> = lanes .< SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: count))
    return select(keep, value, SIMD16<Float>(repeating: 0))
}

/// Lanes 0, 2, …, 14 of `a`, then lanes 0, 2, …, 14 of `b`. Spelled out lane by lane from two
/// 16-lane vectors, which the compiler turns into a single two-source permute with AVX-512
/// (`SIMD32.evenHalf` takes several), and into in-lane shuffles and a cross-lane permute per
/// ymm half with AVX2.
@inlinable @inline(__always)
public func evenLanes(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
    SIMD16(
        a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14],
        b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14])
}

/// Lanes 1, 3, …, 15 of `a`, then lanes 1, 3, …, 15 of `b` (see `evenLanes`).
@inlinable @inline(__always)
public func oddLanes(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
    SIMD16(
        a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15],
        b[1], b[3], b[5], b[7], b[9], b[11], b[13], b[15])
}
