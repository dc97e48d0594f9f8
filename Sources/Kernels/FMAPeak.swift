#if LANDMARKER_AVX512
import KernelsAVX512
#endif

/// One core's measured fp32 multiply-add peak for a kernel family: the rate
/// the fast kernels' GFLOP/s are compared with (`landmarker bench`, the
/// kernel benchmarks, `Benchmarks/peer/compare_litert.py`).
///
/// The loop keeps every FMA pipe busy with 12 independent accumulator chains
/// of the family's vector type, compiled as its microkernels are:
/// `SIMD8<Float>` (one ymm register, `vfmadd231ps`) for `.baseline` in the
/// native build, `SIMD16<Float>` (one zmm register) for `.avx512`. The best
/// of several short runs holds even while other processes share the machine.
public enum FMAPeak {
    /// Rounds in one run of a loop: about 2 ms at 100 GFLOP/s.
    public static let roundsPerRun = 1_000_000

    /// Floating-point operations in one round of `family`'s loop (a
    /// multiply-add counts two).
    public static func flopsPerRound(_ family: KernelInstructionSet) -> Int {
        switch family {
        case .baseline: return baselineFlopsPerRound
        case .avx512:
            #if LANDMARKER_AVX512
            return fmaPeakAVX512FlopsPerRound
            #else
            return 0
            #endif
        }
    }

    /// Runs `rounds` rounds of `family`'s loop on the calling thread and
    /// returns the accumulators' sum (pass it to something the optimiser
    /// cannot drop). `family` must be supported here.
    public static func runChains(_ family: KernelInstructionSet, rounds: Int) -> Float {
        precondition(family.isSupported, "the \(family) kernels are not available here")
        switch family {
        case .baseline: return baselineChains(rounds: rounds, multiplier: 0.999, addend: 1e-6)
        case .avx512:
            #if LANDMARKER_AVX512
            return fmaPeakChainsAVX512(rounds: rounds, multiplier: 0.999, addend: 1e-6)
            #else
            preconditionFailure("unreachable: AVX-512 is never supported without its kernels")
            #endif
        }
    }

    /// One core's peak for `family` in GFLOP/s: the best of `runs` runs of
    /// `roundsPerRun` rounds on the calling thread. Nil where the family is
    /// not supported, and in the portable build, whose kernels round each
    /// product before adding it and so have no fused multiply-add to measure.
    public static func measure(_ family: KernelInstructionSet = .detected, runs: Int = 20) -> Double? {
        guard family.isSupported, KernelInstructionSet.fusesMultiplyAdd, runs >= 1 else { return nil }
        let clock = ContinuousClock()
        var best = 0.0
        var kept: Float = 0
        for _ in 0..<runs {
            let elapsed = clock.measure { kept += runChains(family, rounds: roundsPerRun) }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            best = max(best, Double(roundsPerRun * flopsPerRound(family)) / seconds / 1e9)
        }
        // The sum is finite for these operands; the check keeps the loops from being dropped.
        precondition(kept.isFinite, "FMA peak loop overflowed")
        return best
    }

    /// Operations in one round of `baselineChains`: 12 chains × 8 lanes × 2.
    static let baselineFlopsPerRound = 12 * 8 * 2

    /// Twelve independent `SIMD8<Float>` multiply-add chains (a fused
    /// multiply-add has a latency of about 4 cycles and two issue each cycle,
    /// so at least 8 must be in flight; 12 of the 16 ymm registers leave room
    /// for the operands).
    @inline(never)
    static func baselineChains(rounds: Int, multiplier: Float, addend: Float) -> Float {
        let a = SIMD8<Float>(repeating: multiplier), b = SIMD8<Float>(repeating: addend)
        var c0 = SIMD8<Float>(repeating: 0), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0
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
