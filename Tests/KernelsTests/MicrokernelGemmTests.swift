import TestSupport
import Testing

@testable import Kernels

/// Sweeps `gemmF32` (1×1 convolution / FULLY_CONNECTED) against a plain
/// double-accumulated product, with every microkernel family this CPU runs.
@Suite struct MicrokernelGemmTests {
    /// One GEMM problem with random data.
    struct Problem {
        let rows: Int, depth: Int, outputs: Int
        let a: [Float], w: [Float], bias: [Float]?
        let clamp: (lower: Float, upper: Float)

        init(
            rows: Int, depth: Int, outputs: Int, hasBias: Bool = true,
            clamp: (lower: Float, upper: Float) = (-.infinity, .infinity),
            rng: inout SeededGenerator
        ) {
            self.rows = rows
            self.depth = depth
            self.outputs = outputs
            a = rng.floats(rows * depth)
            w = rng.floats(outputs * depth)
            bias = hasBias ? rng.floats(outputs) : nil
            self.clamp = clamp
        }

        /// `C[p, n] = clamp(Σ_k A[p, k] · W[n, k] + bias[n])` in double.
        func reference() -> [Expected] {
            var expected: [Expected] = []
            expected.reserveCapacity(rows * outputs)
            for p in 0..<rows {
                for n in 0..<outputs {
                    let b = Double(bias?[n] ?? 0)
                    var sum = b, magnitude = abs(b)
                    for k in 0..<depth {
                        let term = Double(a[p * depth + k]) * Double(w[n * depth + k])
                        sum += term
                        magnitude += abs(term)
                    }
                    expected.append(Expected(value: clamped(sum, clamp), magnitude: magnitude))
                }
            }
            return expected
        }

        func run(runner: ParallelRunner, _ instructionSet: KernelInstructionSet) throws -> GuardedBuffer {
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: w, bias: bias,
                instructionSet: instructionSet)
            let input = GuardedBuffer(a)
            let output = GuardedBuffer(count: rows * outputs)
            gemmF32(
                input: input.pointer, rows: rows, weights: packed, output: output.pointer,
                clamp: clamp, runner: runner)
            return output
        }

        var description: String {
            "P=\(rows) K=\(depth) N=\(outputs) bias=\(bias != nil) clamp=\(clamp)"
        }
    }

    static let sizes = [1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33]

    @Test(arguments: KernelInstructionSet.supported)
    func everyDepthAndWidthAroundTheVectorSizes(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for depth in Self.sizes + [64, 100] {
            for outputs in Self.sizes + [37, 38, 40, 45, 46, 48, 52, 56, 63, 64, 65, 80, 88] {
                let rows = [1, 7, 13][(depth + outputs) % 3]
                let problem = Problem(rows: rows, depth: depth, outputs: outputs, rng: &rng)
                expectClose(
                    try problem.run(runner: .serial, instructionSet), problem.reference(),
                    "\(problem.description) \(instructionSet) seed \(seed)")
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func everyRowRemainder(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for rows in 0...26 {
            for outputs in [1, 2, 24, 40, 56] {
                let problem = Problem(rows: rows, depth: 19, outputs: outputs, rng: &rng)
                expectClose(
                    try problem.run(runner: .serial, instructionSet), problem.reference(),
                    "\(problem.description) \(instructionSet) seed \(seed)")
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func activationClampsAndMissingBias(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for clamp in activationClamps {
            for hasBias in [true, false] {
                for outputs in [2, 17, 45] {
                    let problem = Problem(
                        rows: 11, depth: 40, outputs: outputs, hasBias: hasBias, clamp: clamp,
                        rng: &rng)
                    expectClose(
                        try problem.run(runner: .serial, instructionSet), problem.reference(),
                        "\(problem.description) \(instructionSet) seed \(seed)")
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func bitIdenticalForAnyThreadCount(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Large enough that every thread count really splits the work, with
        // row and column remainders; the last case uses dot products.
        for (rows, depth, outputs) in [(301, 64, 72), (49, 288, 200), (5, 400, 600), (3000, 200, 2)] {
            let problem = Problem(
                rows: rows, depth: depth, outputs: outputs, clamp: (0, 6), rng: &rng)
            let context = "\(problem.description) \(instructionSet) seed \(seed)"
            expectClose(
                try problem.run(runner: ParallelRunner(threadCount: 3), instructionSet), problem.reference(),
                context)
            try expectSameForThreadCounts(context) { runner in
                try problem.run(runner: runner, instructionSet).values
            }
        }
    }

    @Test(.enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"))
    func bitIdenticalAcrossInstructionSets() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (rows, depth, outputs) in [(37, 33, 24), (64, 144, 88), (9, 19, 65), (100, 24, 2)] {
            let problem = Problem(rows: rows, depth: depth, outputs: outputs, clamp: (0, 6), rng: &rng)
            try expectSameForInstructionSets("\(problem.description) seed \(seed)") { instructionSet in
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet).values
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func tilesCoverTheOutputExactlyOnce(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for rows in [0, 1, 5, 6, 7, 8, 49, 144, 1000, 4096] {
            for (depth, outputs) in [(8, 2), (16, 24), (288, 288), (1152, 192)] {
                let weights = try PackedGemmWeights(
                    outputChannels: outputs, inputChannels: depth,
                    weights: rng.floats(outputs * depth), bias: nil, instructionSet: instructionSet)
                for threads in [1, 2, 3, 7, 16] {
                    let tiling = GemmTiling(rows: rows, weights: weights, threadCount: threads)
                    var covered = [Int](repeating: 0, count: rows * weights.columnBlockCount)
                    for t in 0..<tiling.tileCount {
                        let (tileRows, blocks) = tiling.tile(t)
                        for r in tileRows {
                            for b in blocks { covered[r * weights.columnBlockCount + b] += 1 }
                        }
                    }
                    #expect(
                        covered.allSatisfy { $0 == 1 },
                        "P=\(rows) K=\(depth) N=\(outputs) threads=\(threads) \(instructionSet)")
                }
            }
        }
    }

    @Test func packedLayoutPutsChannelsInPanels() throws {
        // W[n, k] = 100·n + k, so every packed value names its source.
        let outputs = 27, depth = 3
        let w = (0..<outputs).flatMap { n in (0..<depth).map { k in Float(100 * n + k) } }
        let bias = (0..<outputs).map { Float(-$0) }
        let packed = try PackedGemmWeights(
            outputChannels: outputs, inputChannels: depth, weights: w, bias: bias,
            instructionSet: .baseline)
        #expect(packed.panelCount == 2 && packed.fullPanelCount == 2 && !packed.hasPanelOf8)
        for p in 0..<2 {
            for k in 0..<depth {
                for j in 0..<16 {
                    let n = 16 * p + j
                    #expect(packed.panel(p)[k * 16 + j] == (n < outputs ? Float(100 * n + k) : 0))
                }
            }
        }
        for n in 0..<32 { #expect(packed.bias[n] == (n < outputs ? Float(-n) : 0)) }

        let narrow = try PackedGemmWeights(
            outputChannels: 20, inputChannels: 1, weights: (0..<20).map(Float.init), bias: nil,
            instructionSet: .baseline)
        #expect(narrow.panelCount == 2 && narrow.hasPanelOf8 && narrow.width(ofPanel: 1) == 8)
        for j in 0..<8 { #expect(narrow.panel(1)[j] == (j < 4 ? Float(16 + j) : 0)) }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func packedWeightsGiveTheSourceBack(instructionSet: KernelInstructionSet) throws {
        // Every panel arrangement of both families (and the dot-product rows),
        // read back through `sourceRow` as the reference kernels read it.
        for outputs in [1, 2, 3, 5, 8, 9, 16, 20, 24, 27, 32, 40, 45, 52, 56, 64, 90] {
            let depth = 7
            let w = (0..<outputs).flatMap { n in (0..<depth).map { k in Float(100 * n + k) } }
            let bias = (0..<outputs).map { Float(-$0) }
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: w, bias: bias,
                instructionSet: instructionSet)
            #expect(packed.unpackedWeights() == w, "N=\(outputs) \(instructionSet)")
            #expect(packed.unpackedBias() == bias, "N=\(outputs) \(instructionSet)")
        }
    }

    @Test(.enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"))
    func avx512PackingUsesPanelsOf32ThenOf16And8() throws {
        // W[n, k] = 100·n + k, so every packed value names its source.
        let cases: [(outputs: Int, widths: [Int])] = [
            (27, [32]), (45, [32, 16]), (40, [32, 8]), (64, [32, 32]), (3, [8]), (24, [16, 8]),
            (56, [32, 16, 8]), (52, [32, 16, 8]), (90, [32, 32, 32]),
        ]
        for (outputs, widths) in cases {
            let depth = 3
            let w = (0..<outputs).flatMap { n in (0..<depth).map { k in Float(100 * n + k) } }
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: w,
                bias: (0..<outputs).map { Float(-$0) }, instructionSet: .avx512)
            #expect((0..<packed.panelCount).map(packed.width(ofPanel:)) == widths, "N=\(outputs)")
            var column = 0
            for (p, width) in widths.enumerated() {
                #expect(packed.column(ofPanel: p) == column, "N=\(outputs) panel \(p)")
                for k in 0..<depth {
                    for j in 0..<width {
                        let n = column + j
                        #expect(
                            packed.panel(p)[k * width + j] == (n < outputs ? Float(100 * n + k) : 0),
                            "N=\(outputs) panel \(p) k \(k) j \(j)")
                    }
                }
                column += width
            }
            for n in 0..<column { #expect(packed.bias[n] == (n < outputs ? Float(-n) : 0)) }
        }
    }
}
