import KernelTemplates
/// One core's measured fp32 multiply-add peak for a kernel family: the rate
/// the fast kernels' GFLOP/s are compared with (`landmarker bench`, the
/// kernel benchmarks, `Benchmarks/peer/compare_litert.py`).
///
/// The loop (`fmaPeakChains` of `KernelTemplates`) keeps every FMA pipe busy with
/// 12 independent accumulator chains of the family's vector type, compiled as its
/// microkernels are:
/// `SIMD8<Float>` (one ymm register, `vfmadd231ps`) for `.baseline` in the
/// native build, `SIMD16<Float>` (one zmm register) for `.avx512`. The best
/// of several short runs holds even while other processes share the machine.
public enum FMAPeak {
    /// Rounds in one run of a loop: about 2 ms at 100 GFLOP/s.
    public static let roundsPerRun = 1_000_000

    /// Floating-point operations in one round of `family`'s loop (a
    /// multiply-add counts two). `family` must be supported here.
    public static func flopsPerRound(_ family: KernelInstructionSet) -> Int {
        precondition(family.isSupported, "the \(family) kernels are not available here")
        return family.microkernels.fmaPeakFlopsPerRound
    }

    /// Runs `rounds` rounds of `family`'s loop on the calling thread and
    /// returns the accumulators' sum (pass it to something the optimiser
    /// cannot drop). `family` must be supported here.
    public static func runChains(_ family: KernelInstructionSet, rounds: Int) -> Float {
        precondition(family.isSupported, "the \(family) kernels are not available here")
        return family.microkernels.fmaPeakChains(rounds, 0.999, 1e-6)
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
}
