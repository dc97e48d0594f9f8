/// The fp32 multiply-add peak loop, for any vector width: twelve independent accumulator
/// chains of `Vector`, each updated with `addingProduct` once a round. A fused multiply-add
/// has a latency of about 4 cycles and two issue each cycle, so at least 8 must be in flight;
/// 12 leave room for the two operands in 16 registers (AVX2) and plenty in 32 (AVX-512).
///
/// Runs `rounds` rounds and returns the sum of the accumulators, so that the work is kept.
/// One round is `fmaPeakFlopsPerRound(Vector.self)` operations. Instantiate it with the
/// family's marker (`KernelFamily`) from a non-generic function of the family's module.
@inlinable @inline(__always)
public func fmaPeakChains<Vector: SIMD, Family: KernelFamily>(
    _ vector: Vector.Type, family: Family.Type, rounds: Int, multiplier: Float, addend: Float
) -> Float where Vector.Scalar == Float {
    let a = Vector(repeating: multiplier), b = Vector(repeating: addend)
    var c0 = Vector(repeating: 0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0
    var c6 = c0, c7 = c0, c8 = c0, c9 = c0, c10 = c0, c11 = c0
    for _ in 0..<rounds {
        c0 = c0.addingProduct(a, b)
        c1 = c1.addingProduct(a, b)
        c2 = c2.addingProduct(a, b)
        c3 = c3.addingProduct(a, b)
        c4 = c4.addingProduct(a, b)
        c5 = c5.addingProduct(a, b)
        c6 = c6.addingProduct(a, b)
        c7 = c7.addingProduct(a, b)
        c8 = c8.addingProduct(a, b)
        c9 = c9.addingProduct(a, b)
        c10 = c10.addingProduct(a, b)
        c11 = c11.addingProduct(a, b)
    }
    let sum = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11))
    return sum.sum()
}

/// Floating-point operations in one round of `fmaPeakChains` for `Vector`: 12 chains × lanes × 2.
@inlinable
public func fmaPeakFlopsPerRound<Vector: SIMD>(_ vector: Vector.Type) -> Int {
    12 * Vector.scalarCount * 2
}
