/// The fp32 peak loop compiled for AVX-512 (`-target-cpu skylake-avx512`, as
/// the library's `KernelsAVX512` kernels are): a `SIMD16<Float>` is one zmm
/// register and `addingProduct` one 512-bit `vfmadd`. Call it only where
/// `KernelInstructionSet.avx512.isSupported`.
///
/// Twelve independent chains: a fused multiply-add has a latency of about 4
/// cycles and two issue each cycle, so at least 8 must be in flight; 12 of
/// the 32 zmm registers leave room for the operands.
public enum PeakFMA512 {
    /// Floating-point operations in one round of `simd16Chains`: 12 chains × 16 lanes × 2.
    public static let flopsPerRound = 12 * 16 * 2

    /// Runs `rounds` rounds of 12 independent `SIMD16<Float>` multiply-add
    /// chains and returns the sum of the accumulators (so that the work is kept).
    @inline(never)
    public static func simd16Chains(rounds: Int, multiplier: Float, addend: Float) -> Float {
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
}
