import Benchmark
import BenchmarkSupport
import Dispatch
import Kernels

/// The fp32 peak the kernels are compared with, in GFLOP/s: one core's, the
/// best of 20 short runs of the FMA loop of the microkernels the kernels
/// run (`FMAPeak`'s loop for `KernelInstructionSet.detected`, the library's
/// own, as `landmarker bench` reports it) measured once per process,
/// times the thread count. The best of short runs holds even while other
/// processes share the machine; a measured two-thread peak does not (both
/// cores are rarely free at once), so the peak benchmarks report it but the
/// percentages use the nominal figure.
enum PeakReference {
    /// Rounds per thread in one timed run of a loop (about 2 ms at 100 GFLOP/s).
    static let rounds = FMAPeak.roundsPerRun

    /// The loop whose peak the kernels are compared with.
    static let kernelsLoop: Loop = KernelInstructionSet.detected == .avx512 ? .simd16AVX512Chains : .simd8Chains

    /// One core's peak, GFLOP/s.
    static let oneCore = (0..<20).map { _ in runOnce(kernelsLoop, threads: 1) }.max() ?? 0

    /// The nominal peak of `threads` cores, GFLOP/s.
    static func gflops(threads: Int) -> Double {
        Double(threads) * oneCore
    }

    /// Which `FMAPeak` loop to run.
    enum Loop: Sendable {
        /// `FMAPeak`'s `.baseline` loop: 12 `SIMD8<Float>` chains.
        case simd8Chains
        /// `FMAPeak`'s `.avx512` loop: 12 `SIMD16<Float>` chains compiled for AVX-512 (only where supported).
        case simd16AVX512Chains
    }

    /// Runs one FMA loop of `rounds` rounds on each of `threads` threads at once
    /// and returns the GFLOP/s of all of them together.
    static func runOnce(_ loop: Loop, threads: Int) -> Double {
        @Sendable func work() {
            switch loop {
            case .simd8Chains: blackHole(FMAPeak.runChains(.baseline, rounds: rounds))
            case .simd16AVX512Chains: blackHole(FMAPeak.runChains(.avx512, rounds: rounds))
            }
        }
        let elapsed = ContinuousClock().measure {
            if threads == 1 {
                work()
            } else {
                DispatchQueue.concurrentPerform(iterations: threads) { _ in work() }
            }
        }
        let flopsPerRound: Int
        switch loop {
        case .simd8Chains: flopsPerRound = FMAPeak.flopsPerRound(.baseline)
        case .simd16AVX512Chains: flopsPerRound = FMAPeak.flopsPerRound(.avx512)
        }
        return Double(threads * rounds * flopsPerRound) / elapsed.seconds / 1e9
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
