import Testing

@testable import Kernels

/// The peak loops `landmarker bench` and the benchmarks compare the kernels with.
@Suite struct FMAPeakTests {
    /// Each chain runs c ← c · 0.999 + 1e-6 from 0; every lane of every chain
    /// holds the same value, so the loop returns lanes × chains times it.
    @Test(arguments: KernelInstructionSet.supported)
    func loopComputesItsChains(family: KernelInstructionSet) {
        let rounds = 50
        var chain: Float = 0
        for _ in 0..<rounds {
            chain = chain.addingProduct(0.999, 1e-6)
        }
        let lanes = FMAPeak.flopsPerRound(family) / 2
        let result = FMAPeak.runChains(family, rounds: rounds)
        let expected = Float(lanes) * chain
        #expect(abs(result - expected) <= expected * 1e-5, "\(family): \(result) for \(lanes) lanes of \(chain)")
    }

    @Test func operationsPerRoundMatchTheRegisterShapes() {
        // 12 chains of 8 lanes, a multiply-add counted as two operations.
        #expect(FMAPeak.flopsPerRound(.baseline) == 12 * 8 * 2)
        if KernelInstructionSet.avx512.isSupported {
            #expect(FMAPeak.flopsPerRound(.avx512) == 12 * 16 * 2)
        }
    }

    /// A measured peak where the kernels fuse their multiply-adds, none in
    /// the portable build or for a family this CPU cannot run.
    @Test func measuresOnlyWhatTheKernelsRun() throws {
        let peak = FMAPeak.measure(.baseline, runs: 2)
        if KernelInstructionSet.fusesMultiplyAdd {
            let gflops = try #require(peak)
            #expect(gflops.isFinite && gflops > 0)
        } else {
            #expect(peak == nil)
        }
        if !KernelInstructionSet.avx512.isSupported {
            #expect(FMAPeak.measure(.avx512, runs: 2) == nil)
        }
        #expect(FMAPeak.measure(.baseline, runs: 0) == nil)
    }
}
