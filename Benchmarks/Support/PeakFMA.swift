/// A loop of independent fused multiply-add chains at another register
/// shape than the library's own peak loops (`FMAPeak` in `Kernels`, which
/// `landmarker bench` and `KernelThroughput`'s percentages use): 6
/// `SIMD16<Float>` chains compiled like the baseline kernels (AVX2 + FMA on
/// x86-64, so each `SIMD16<Float>` is two ymm registers, 12 in flight),
/// to show that the register shape does not change the measured peak.
public enum PeakFMA {
    /// Floating-point operations in one round of `simd16Chains`: 6 chains × 16 lanes × 2.
    public static let simd16FlopsPerRound = 6 * 16 * 2

    /// Runs `rounds` rounds of 6 independent `SIMD16<Float>` multiply-add chains
    /// and returns the sum of the accumulators (so that the work is kept).
    @inline(never)
    public static func simd16Chains(rounds: Int, multiplier: Float, addend: Float) -> Float {
        let a = SIMD16<Float>(repeating: multiplier), b = SIMD16<Float>(repeating: addend)
        var c0 = SIMD16<Float>(repeating: 0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0
        for _ in 0..<rounds {
            c0 = c0.addingProduct(a, b)
            c1 = c1.addingProduct(a, b)
            c2 = c2.addingProduct(a, b)
            c3 = c3.addingProduct(a, b)
            c4 = c4.addingProduct(a, b)
            c5 = c5.addingProduct(a, b)
        }
        return (((c0 + c1) + (c2 + c3)) + (c4 + c5)).sum()
    }
}
