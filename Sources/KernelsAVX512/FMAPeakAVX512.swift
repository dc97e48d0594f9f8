/// The fp32 multiply-add peak loop of the AVX-512 family: `SIMD16<Float>` is
/// one zmm register here and `addingProduct` one 512-bit `vfmadd`. Twelve
/// independent chains (a fused multiply-add has a latency of about 4 cycles
/// and two issue each cycle, so at least 8 must be in flight); 12 of the 32
/// zmm registers leave room for the operands. Call it only where the AVX-512
/// kernels are supported (`FMAPeak` checks).
///
/// Runs `rounds` rounds and returns the sum of the accumulators, so that the
/// work is kept. One round is `fmaPeakAVX512FlopsPerRound` operations.
@inline(never)
public func fmaPeakChainsAVX512(rounds: Int, multiplier: Float, addend: Float) -> Float {
    let a = SIMD16<Float>(repeating: multiplier), b = SIMD16<Float>(repeating: addend)
    var c0 = SIMD16<Float>(repeating: 0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0
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

/// Floating-point operations in one round of `fmaPeakChainsAVX512`: 12 chains × 16 lanes × 2.
public let fmaPeakAVX512FlopsPerRound = 12 * 16 * 2
