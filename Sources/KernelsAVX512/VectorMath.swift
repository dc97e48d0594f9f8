import KernelTemplates

// Load, store and lane-shuffling helpers of the 512-bit kernels (select, clamp and PRELU are
// KernelTemplates' `VectorLanes.swift`). This module is compiled for AVX-512
// (`-target-cpu skylake-avx512`): a `SIMD16<Float>` is one zmm register. Nothing here is
// `@inlinable`, so none of it is compiled into callers outside the module.

/// Loads 16 floats starting at `pointer` (no alignment required).
@inline(__always)
func loadVector16(_ pointer: UnsafePointer<Float>) -> SIMD16<Float> {
    UnsafeRawPointer(pointer).loadUnaligned(as: SIMD16<Float>.self)
}

/// Stores 16 floats starting at `pointer` (no alignment required).
@inline(__always)
func storeVector16(_ value: SIMD16<Float>, _ pointer: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(pointer).storeBytes(of: value, as: SIMD16<Float>.self)
}

/// Stores the first `count` lanes (0...16) of `value` at `pointer`: whole
/// vectors of 16, 8 and 4 lanes, then single lanes.
@inline(__always)
func storeVector16(_ value: SIMD16<Float>, _ pointer: UnsafeMutablePointer<Float>, count: Int) {
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
    var quarter = rest.lowHalf
    if count & 4 != 0 {
        UnsafeMutableRawPointer(pointer + offset).storeBytes(of: quarter, as: SIMD4<Float>.self)
        quarter = rest.highHalf
        offset += 4
    }
    if count & 2 != 0 {
        UnsafeMutableRawPointer(pointer + offset).storeBytes(of: quarter.lowHalf, as: SIMD2<Float>.self)
        offset += 2
        if count & 1 != 0 { pointer[offset] = quarter[2] }
    } else if count & 1 != 0 {
        pointer[offset] = quarter[0]
    }
}

/// Lanes 0, 2, …, 14 of `a`, then lanes 0, 2, …, 14 of `b`. Spelled out
/// lane by lane from two 16-lane vectors, which the compiler turns into a
/// single two-source permute (`SIMD32.evenHalf` takes several).
@inline(__always)
func evenLanes(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
    SIMD16(
        a[0], a[2], a[4], a[6], a[8], a[10], a[12], a[14],
        b[0], b[2], b[4], b[6], b[8], b[10], b[12], b[14])
}

/// Lanes 1, 3, …, 15 of `a`, then lanes 1, 3, …, 15 of `b` (see `evenLanes`).
@inline(__always)
func oddLanes(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
    SIMD16(
        a[1], a[3], a[5], a[7], a[9], a[11], a[13], a[15],
        b[1], b[3], b[5], b[7], b[9], b[11], b[13], b[15])
}
