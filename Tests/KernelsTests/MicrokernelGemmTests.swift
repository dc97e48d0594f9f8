import KernelTemplates
import Tensor
import TestSupport
import Testing

@testable import Kernels

/// Sweeps `gemmF32` (1×1 convolution / FULLY_CONNECTED) against a plain
/// double-accumulated product, with every microkernel family this CPU runs and
/// with float16 and float32 panels.
@Suite struct MicrokernelGemmTests {
    /// One GEMM problem with random data.
    struct Problem {
        let rows: Int, depth: Int, outputs: Int
        let a: [Float], w: [Float], bias: [Float]?
        let clamp: (lower: Float, upper: Float)
        /// The panel precision the weights are made for (`SeededGenerator.panelWeights`).
        let precision: PackedGemmWeights.Precision

        init(
            rows: Int, depth: Int, outputs: Int, hasBias: Bool = true,
            clamp: (lower: Float, upper: Float) = (-.infinity, .infinity),
            precision: PackedGemmWeights.Precision, rng: inout SeededGenerator
        ) {
            self.rows = rows
            self.depth = depth
            self.outputs = outputs
            self.precision = precision
            a = rng.floats(rows * depth)
            w = rng.panelWeights(outputs * depth, precision)
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
            #expect(packed.panelPrecision == expectedPanelPrecision(precision, outputs: outputs), "\(description)")
            return try run(packed, runner: runner)
        }

        /// `gemmF32` with weights already packed from `w` and `bias`.
        func run(_ packed: PackedGemmWeights, runner: ParallelRunner) throws -> GuardedBuffer {
            let input = GuardedBuffer(a)
            let output = GuardedBuffer(count: rows * outputs)
            let workspace = GuardedBuffer(
                count: try gemmF32WorkspaceSize(weights: packed, threadCount: runner.threadCount))
            gemmF32(
                input: input.pointer, rows: rows, weights: packed, output: output.pointer,
                workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count),
                clamp: clamp, runner: runner)
            #expect(workspace.guardIntact, "wrote past the workspace: \(description)")
            return output
        }

        var description: String {
            "P=\(rows) K=\(depth) N=\(outputs) bias=\(bias != nil) clamp=\(clamp) \(precision) weights"
        }
    }

    static let sizes = [1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33]

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func everyDepthAndWidthAroundTheVectorSizes(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for depth in Self.sizes + [64, 100] {
            for outputs in Self.sizes + [37, 38, 40, 45, 46, 48, 52, 56, 63, 64, 65, 80, 88] {
                let rows = [1, 7, 13][(depth + outputs) % 3]
                let problem = Problem(rows: rows, depth: depth, outputs: outputs, precision: precision, rng: &rng)
                expectClose(
                    try problem.run(runner: .serial, instructionSet), problem.reference(),
                    "\(problem.description) \(instructionSet) seed \(seed)")
            }
        }
    }

    /// Sums that are NaN, ±∞ or ordinary values come out of every tile shape (full, half and
    /// narrow panels, every row of a tile) clamped as TFLite clamps: a NaN stays NaN, ±∞ meet
    /// the bounds, and the rest is `FusedActivation.apply`'s value, bit for bit. (The tiles'
    /// clamp compiles to the CPU's min and max instructions, whose NaN rules depend on the
    /// order of their operands.)
    @Test(arguments: KernelInstructionSet.supported)
    func specialSumsAreClampedAsTFLiteClamps(_ instructionSet: KernelInstructionSet) throws {
        let specials: [Float] = [.nan, .infinity, -.infinity, 5, 7.5, -3, 0.25, -0.5, 6, 1e30, -1e30]
        // K = 1 and a weight of 1, no bias: each output is its row's value plus a zero bias.
        let rows = 2 * specials.count + 1
        let a = (0..<rows).map { specials[$0 % specials.count] }
        for outputs in [8, 16, 24, 40] {
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: 1, weights: [Float](repeating: 1, count: outputs),
                bias: nil, instructionSet: instructionSet)
            for activation in [FusedActivation.none, .relu, .reluN1To1, .relu6] {
                let input = GuardedBuffer(a)
                let output = GuardedBuffer(count: rows * outputs)
                let workspace = GuardedBuffer(count: try gemmF32WorkspaceSize(weights: packed, threadCount: 1))
                gemmF32(
                    input: input.pointer, rows: rows, weights: packed, output: output.pointer,
                    workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count),
                    clamp: activation.clampRange, runner: .serial)
                for (index, value) in output.values.enumerated() {
                    let expected = activation.apply(0 + a[index / outputs])
                    let same = expected.isNaN ? value.isNaN : value.bitPattern == expected.bitPattern
                    #expect(same, "row \(index / outputs) of \(outputs) outputs, \(activation), \(instructionSet): \(value) for \(expected)")
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func everyRowRemainder(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Up to 70 rows: every remainder of the 6- and 8-row tiles, the mixes of 6- and 5-row
        // tiles and of 8- and 7-row tiles that cover rows exactly (49 = 4 × 6 + 5 × 5 = 7 × 7),
        // and blocks on both sides of the float16 panels' in-place limit.
        for rows in 0...70 {
            for outputs in [1, 2, 24, 40, 56] {
                let problem = Problem(rows: rows, depth: 19, outputs: outputs, precision: precision, rng: &rng)
                expectClose(
                    try problem.run(runner: .serial, instructionSet), problem.reference(),
                    "\(problem.description) \(instructionSet) seed \(seed)")
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func activationClampsAndMissingBias(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for clamp in activationClamps {
            for hasBias in [true, false] {
                for outputs in [2, 17, 45] {
                    let problem = Problem(
                        rows: 11, depth: 40, outputs: outputs, hasBias: hasBias, clamp: clamp,
                        precision: precision, rng: &rng)
                    expectClose(
                        try problem.run(runner: .serial, instructionSet), problem.reference(),
                        "\(problem.description) \(instructionSet) seed \(seed)")
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func bitIdenticalForAnyThreadCount(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Large enough that every thread count really splits the work, with
        // row and column remainders; the last two cases take an 8-wide panel and dot products.
        for (rows, depth, outputs) in [(301, 64, 72), (49, 288, 200), (5, 400, 600), (3000, 200, 2), (3000, 200, 1)] {
            let problem = Problem(
                rows: rows, depth: depth, outputs: outputs, clamp: (0, 6), precision: precision, rng: &rng)
            let context = "\(problem.description) \(instructionSet) seed \(seed)"
            expectClose(
                try problem.run(runner: ParallelRunner(threadCount: 3), instructionSet), problem.reference(),
                context)
            try expectSameForThreadCounts(context) { runner in
                try problem.run(runner: runner, instructionSet).values
            }
        }
    }

    @Test(
        .enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"),
        arguments: PackedGemmWeights.Precision.allCases)
    func bitIdenticalAcrossInstructionSets(_ precision: PackedGemmWeights.Precision) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (rows, depth, outputs) in [(37, 33, 24), (64, 144, 88), (9, 19, 65), (100, 24, 2)] {
            let problem = Problem(
                rows: rows, depth: depth, outputs: outputs, clamp: (0, 6), precision: precision, rng: &rng)
            try expectSameForInstructionSets("\(problem.description) seed \(seed)") { instructionSet in
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet).values
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func float16PanelsGiveTheBitsOfFloat32Panels(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Float16 weights packed both ways: every tile shape of both families (full panels,
        // panels of 16 and 8, partial ones), row remainders, and a depth past L1; blocks of at
        // most `maxRowsReadingFloat16Panels` rows read the float16 panels in place, longer ones
        // widen them first (one thread, so that a block is the whole call).
        for (rows, depth, outputs) in [
            (13, 19, 3), (37, 33, 24), (64, 144, 88), (9, 19, 65), (26, 7, 45), (61, 1152, 40), (7, 64, 56),
            (4, 288, 288), (49, 192, 72), (25, 40, 40), (maxRowsReadingFloat16Panels, 40, 40),
            (maxRowsReadingFloat16Panels + 1, 40, 40),
        ] {
            let problem = Problem(
                rows: rows, depth: depth, outputs: outputs, clamp: (-1, 1), precision: .float16, rng: &rng)
            let results = try PackedGemmWeights.Precision.allCases.map { precision in
                let packed = try PackedGemmWeights(
                    outputChannels: outputs, inputChannels: depth, weights: problem.w, bias: problem.bias,
                    instructionSet: instructionSet, panelPrecision: precision)
                #expect(packed.panelPrecision == precision)
                return try [ParallelRunner.serial, ParallelRunner(threadCount: 2)].map { runner in
                    try problem.run(packed, runner: runner).values.map(\.bitPattern)
                }
            }
            #expect(results[0] == results[1], "\(problem.description) \(instructionSet) seed \(seed)")
        }
    }

    /// The tiles `GemmRowTiles` cuts cover a block's rows once each, in order, a partial tile
    /// only last; AVX2's 6- and 5-row tiles cover every block of 20 rows or more exactly,
    /// AVX-512's 8- and 7-row tiles every block of 42 or more, and 8-row tiles with the 4-row
    /// one (AVX-512's float16 panels) are whole tiles and a last one of the rest.
    @Test func rowTilesCoverEveryRowOnce() {
        for (tall, short) in [(6, 5), (8, 7), (8, 8), (8, 4), (4, 4)] {
            for rows in 0...200 {
                let tiling = GemmRowTiles(rows: rows, tileRows: tall, shortTileRows: short)
                var next = 0, computed = 0, partialSeen = false
                tiling.forEachTile(
                    tall: { row, count in
                        #expect(row == next && !partialSeen && count >= 1 && count <= tall, "\(tall)/\(short), \(rows) rows")
                        partialSeen = count < tall
                        computed += tall
                        next += count
                    },
                    short: { row, count in
                        #expect(row == next && !partialSeen && count >= 1 && count <= short, "\(tall)/\(short), \(rows) rows")
                        partialSeen = count < short
                        computed += short
                        next += count
                    })
                #expect(next == rows, "\(tall)/\(short): tiles end at \(next) of \(rows) rows")
                #expect(computed == tiling.rowsComputed, "\(tall)/\(short), \(rows) rows")
                if (tall == 6 && short == 5 && rows >= 20) || (tall == 8 && short == 7 && rows >= 42) {
                    #expect(tiling.rowsComputed == rows, "\(rows) rows in \(tall)- and \(short)-row tiles")
                }
                if tall == 8 && short != 7 {
                    // Whole 8-row tiles and a last one of the rest, on the 4-row tile when it fits.
                    let rest = rows % 8
                    let expected = rows / 8 * 8 + (rest == 0 ? 0 : rest <= short ? short : 8)
                    #expect(tiling.rowsComputed == expected, "\(tall)/\(short), \(rows) rows")
                }
            }
        }
        let handLayer = GemmRowTiles(rows: 49, tileRows: 6, shortTileRows: 5)
        #expect(handLayer.tallTiles == 4 && handLayer.shortTiles == 5 && handLayer.partialRows == 0)
        let handLayerAVX512 = GemmRowTiles(rows: 49, tileRows: 8, shortTileRows: 7)
        #expect(handLayerAVX512.tallTiles == 0 && handLayerAVX512.shortTiles == 7 && handLayerAVX512.partialRows == 0)
    }

    /// Blocks of more than 8 rows widen their float16 panels (the widening tile for the first 4
    /// rows, then the float32 tiles) where that computes no more rows than the float16 tiles
    /// would, and none over `maxRowsReadingFloat16Panels` reads them in place. AVX2 (6- and
    /// 5-row float32 tiles, 4-row float16 ones): a 7 × 7 map's 49 rows widen (49 against 52;
    /// 16, 36 and 64 rows: as many); blocks of at most 8 rows read in place, as do a few under
    /// 24 (11, 12, 17, 18, 23). AVX-512 (8- and 7-row float32 tiles, 8- and 4-row float16 ones):
    /// 49 and 64 widen; at most 8 rows, 13–16, 21–24, 29–31, 37, 38 and 45 read in place.
    @Test func float16PanelsAreReadInPlaceUnlessWideningComputesFewerRows() {
        let baseline = KernelInstructionSet.baseline.microkernels
        for rows in [9, 10, 13, 16, 25, 36, 49, 64, maxRowsReadingFloat16Panels + 4] {
            #expect(!readsFloat16PanelsInPlace(rows: rows, baseline), "\(rows) rows")
        }
        for rows in [1, 4, 5, 8, 11, 12, 17, 18, 23] {
            #expect(readsFloat16PanelsInPlace(rows: rows, baseline), "\(rows) rows")
        }
        // AVX-512's rule on any CPU, from its tile rows; its table where the CPU runs it.
        let avx512Rows = (tall: GemmEightRows.count, short: GemmSevenRows.count, halfPanel: GemmEightRows.count)
        let inPlace = Set(Array(1...8) + Array(13...16) + Array(21...24) + [29, 30, 31, 37, 38, 45])
        for rows in 1...(maxRowsReadingFloat16Panels + 4) {
            let reads = readsFloat16PanelsInPlace(
                rows: rows, tileRows: avx512Rows.tall, shortTileRows: avx512Rows.short,
                halfPanelTileRows: avx512Rows.halfPanel)
            #expect(reads == inPlace.contains(rows), "\(rows) rows, AVX-512")
        }
        if KernelInstructionSet.avx512.isSupported {
            let avx512 = KernelInstructionSet.avx512.microkernels
            #expect(
                (avx512.gemmTileRows, avx512.gemmShortTileRows, avx512.gemmHalfPanelTileRows)
                    == (avx512Rows.tall, avx512Rows.short, avx512Rows.halfPanel))
        }
    }

    /// A row computed alone goes through the one-row tile (up to four whole panels at once), the
    /// same row among others through the 6- or 8-row tiles: the same bits, for whole panels in
    /// groups of one to four and more, the narrow and partial panels after them, and both
    /// precisions (float16 weights here keep the panels they were given).
    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func aRowAloneGivesTheBitsItHasAmongOthers(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (depth, outputs) in [
            (1, 16), (17, 32), (33, 48), (64, 64), (7, 80), (288, 195), (1152, 117), (19, 200), (5, 24), (3, 63),
        ] {
            let problem = Problem(
                rows: 7, depth: depth, outputs: outputs, clamp: (-1, 1), precision: precision, rng: &rng)
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: problem.w, bias: problem.bias,
                instructionSet: instructionSet,
                panelPrecision: expectedPanelPrecision(precision, outputs: outputs))
            let together = try problem.run(packed, runner: .serial).values.map(\.bitPattern)
            for row in [0, 3, 6] {
                let input = GuardedBuffer(Array(problem.a[row * depth ..< (row + 1) * depth]))
                let output = GuardedBuffer(count: outputs)
                let workspace = GuardedBuffer(count: try gemmF32WorkspaceSize(weights: packed, threadCount: 1))
                gemmF32(
                    input: input.pointer, rows: 1, weights: packed, output: output.pointer,
                    workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count),
                    clamp: problem.clamp, runner: .serial)
                #expect(
                    output.values.map(\.bitPattern) == Array(together[row * outputs ..< (row + 1) * outputs]),
                    "row \(row) of \(problem.description) \(instructionSet) seed \(seed)")
                #expect(output.guardIntact && workspace.guardIntact, "\(problem.description)")
            }
        }
    }

    /// Every output is its bias plus one fused multiply-add per k in ascending order, then the
    /// clamp (XNNPACK's order), bit for bit, whichever kernel computes it: the dot-product rows
    /// (one channel), the 8-wide panel (two channels), the half-width and full panels, in tiles
    /// of every row count, at one and two threads.
    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func everyOutputIsItsBiasThenOneMultiplyAddPerK(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (rows, depth, outputs) in [
            (49, 128, 1), (49, 128, 2), (17, 33, 2), (1, 300, 2), (23, 9, 3), (13, 70, 24), (9, 40, 65),
        ] {
            let problem = Problem(
                rows: rows, depth: depth, outputs: outputs, clamp: (-1, 6), precision: precision, rng: &rng)
            var expected: [UInt32] = []
            for p in 0..<rows {
                for n in 0..<outputs {
                    var sum = problem.bias?[n] ?? 0
                    for k in 0..<depth { sum = sum.addingProduct(problem.a[p * depth + k], problem.w[n * depth + k]) }
                    expected.append(min(max(sum, problem.clamp.lower), problem.clamp.upper).bitPattern)
                }
            }
            for runner in [ParallelRunner.serial, ParallelRunner(threadCount: 2)] {
                #expect(
                    try problem.run(runner: runner, instructionSet).values.map(\.bitPattern) == expected,
                    "\(problem.description) \(instructionSet) \(runner.threadCount) threads seed \(seed)")
            }
        }
    }

    /// Float16 weights of a layer with few weights (a stem) are packed as float32 panels; those
    /// of a layer of more weights stay float16 where this build packs float16 panels, whatever
    /// rows it multiplies per run (a FULLY_CONNECTED of batch 1 and a convolution with one
    /// output pixel read them in place).
    @Test func smallLayersKeepFloat32Panels() throws {
        func expectedPrecision(weights: Int) -> PackedGemmWeights.Precision {
            weights <= PackedGemmWeights.maxWeightsForFloat32Panels
                || !PackedGemmWeights.packsFloat16Panels ? .float32 : .float16
        }
        #expect(24 * 27 <= PackedGemmWeights.maxWeightsForFloat32Panels, "a 3×3 stem of 24 channels")
        #expect(128 * 40 > PackedGemmWeights.maxWeightsForFloat32Panels)
        var rng = SeededGenerator(seed: 1)
        let halves = rng.panelWeights(128 * 40, .float16).map { Float16($0).bitPattern }
        try halves.withUnsafeBytes { bytes in
            // 128 × 40 weights, more than maxWeightsForFloat32Panels, and 64 × 40, fewer.
            for outputs in [128, 64] {
                let weights = Operand(
                    shape: TensorShape(validated: [outputs, 40]),
                    constant: .float16(Float16Bytes(UnsafeRawBufferPointer(rebasing: bytes[..<(outputs * 40 * 2)]))))
                for batch in [1, 2, 5] {
                    let input = Operand(shape: TensorShape(validated: [batch, 40]))
                    let layer = try FullyConnected.prepare(inputs: [input, weights], options: .init())
                    #expect(
                        layer.packed.panelPrecision == expectedPrecision(weights: outputs * 40),
                        "\(outputs) outputs, batch \(batch)")
                }
            }
            let filter = Operand(
                shape: TensorShape(validated: [128, 2, 2, 10]), constant: .float16(Float16Bytes(bytes)))
            let stem = Operand(
                shape: TensorShape(validated: [24, 3, 3, 3]),
                constant: .float16(Float16Bytes(UnsafeRawBufferPointer(rebasing: bytes[..<(24 * 27 * 2)]))))
            for (filter, side, expectedRows) in [(filter, 2, 1), (filter, 3, 4), (stem, 3, 1), (stem, 8, 36)] {
                let depth = filter.shape.dimensions[3]
                let input = Operand(shape: TensorShape(validated: [1, side, side, depth]))
                let conv = try Conv2D.prepare(inputs: [input, filter], options: .init(padding: .valid))
                let outputs = filter.shape.dimensions[0]
                #expect(conv.outputShapes[0].elementCount == outputs * expectedRows)
                #expect(
                    conv.packed.panelPrecision
                        == expectedPrecision(weights: filter.shape.elementCount),
                    "\(outputs) outputs, \(side)×\(side) input")
            }
        }
    }

    /// Packing float16 weights from their halves stores what packing the same values widened
    /// stores, byte for byte (panels, padding and bias), for every panel layout of both
    /// families and the dot-product rows; and the halves' NaNs, infinities, subnormals and
    /// zeros of both signs read back as the widened values.
    @Test(arguments: KernelInstructionSet.supported)
    func float16WeightsPackAsTheirWidenedValues(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let specials: [UInt16] = [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x83FF, 0x7BFF]
        for (depth, outputs) in [(1, 1), (3, 2), (7, 3), (16, 24), (5, 33), (40, 57), (9, 65), (288, 96)] {
            var halves = rng.panelWeights(outputs * depth, .float16).map { Float16($0) }
            for special in specials {
                halves[Int.random(in: halves.indices, using: &rng)] = Float16(bitPattern: special)
            }
            let bias = rng.floats(outputs)
            let widened = halves.withUnsafeBytes { Dequantize.float16ToFloat32(Float16Bytes($0)) }
            let fromHalves = try halves.packed(outputs: outputs, depth: depth, bias: bias, instructionSet)
            let fromFloats = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: widened, bias: bias,
                instructionSet: instructionSet, panelPrecision: fromHalves.panelPrecision)
            let label = "\(outputs)×\(depth) \(fromHalves.panelPrecision) \(instructionSet), seed \(seed)"
            #expect(fromHalves.panelPrecision == expectedPanelPrecision(.float16, outputs: outputs), "\(label)")
            #expect(fromHalves.unpackedWeights().map(\.bitPattern) == widened.map(\.bitPattern), "\(label)")
            // A signalling NaN half is stored as it is, not as the float16 of its widened (quiet)
            // value: the storage is compared with its quiet bit set.
            let quieted = halves.map { $0.isSignalingNaN ? Float16(bitPattern: $0.bitPattern | 0x0200) : $0 }
            let fromQuieted = try quieted.packed(outputs: outputs, depth: depth, bias: bias, instructionSet)
            #expect(fromQuieted.storageBytes == fromFloats.storageBytes, "\(label)")
            // Widened as they are packed, for layers of one row: the float32 layout of the widened values.
            let float32FromHalves = try halves.withUnsafeBytes { bytes in
                try PackedGemmWeights(
                    outputChannels: outputs, inputChannels: depth, float16Weights: Float16Bytes(bytes), bias: bias,
                    instructionSet: instructionSet, float32Panels: true)
            }
            let float32FromFloats = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: widened, bias: bias,
                instructionSet: instructionSet, panelPrecision: .float32)
            #expect(float32FromHalves.panelPrecision == .float32, "\(label)")
            #expect(float32FromHalves.storageBytes == float32FromFloats.storageBytes, "float32 panels: \(label)")
        }
    }

    /// Counting non-zeros with a bound gives the exact count up to the bound and some count
    /// above it past the bound, for both precisions and filters larger than one stretch.
    @Test(arguments: PackedGemmWeights.Precision.allCases)
    func nonzeroWeightCountStopsPastItsBound(_ precision: PackedGemmWeights.Precision) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (depth, outputs, zeroShare) in [(40, 57, 0.5), (1152, 96, 0.75), (256, 640, 0.1)] {
            var weights = rng.panelWeights(outputs * depth, precision)
            for i in weights.indices where Double.random(in: 0..<1, using: &rng) < zeroShare { weights[i] = 0 }
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: weights, bias: nil,
                instructionSet: .baseline, panelPrecision: expectedPanelPrecision(precision, outputs: outputs))
            let exact = weights.filter { $0 != 0 }.count
            let label = "\(outputs)×\(depth) \(packed.panelPrecision), seed \(seed)"
            #expect(packed.nonzeroWeightCount() == exact, "\(label)")
            for bound in [exact, exact + 1, weights.count] {
                #expect(packed.nonzeroWeightCount(stoppingAbove: bound) == exact, "bound \(bound) \(label)")
            }
            for bound in [0, exact / 3, exact - 1] {
                #expect(packed.nonzeroWeightCount(stoppingAbove: bound) > bound, "bound \(bound) \(label)")
            }
        }
    }

    @Test func float16PanelsOnlyForWeightsFloat16Holds() {
        #expect(PackedGemmWeights.areFloat16Values([0, -0.0, 1, -2.5, 65504, -65504, 0x1p-24, .infinity, -.infinity]))
        #expect(PackedGemmWeights.areFloat16Values([Float(Float16(0.1)), .nan]))
        for value: Float in [0.1, 65520, 1 + 0x1p-11, 0x1p-25, 0x1p-126, .greatestFiniteMagnitude] {
            #expect(!PackedGemmWeights.areFloat16Values([1, value, 2]), "\(value)")
        }
        // A NaN payload float16 cannot hold.
        #expect(!PackedGemmWeights.areFloat16Values([Float(bitPattern: 0x7FC0_0001)]))
    }

    /// The non-zero count read from the packed storage (padding included) is the count of
    /// `!= 0` over the source weights, for both precisions, every panel layout (dot-product
    /// rows, full and partial panels) and zeros of both signs, NaNs and infinities.
    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func nonzeroWeightCountIsTheSourcesCount(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let specials: [Float] = [0, -0.0, .nan, .infinity, -.infinity, 1, -1]
        for (depth, outputs) in [(1, 1), (3, 2), (7, 9), (16, 24), (5, 33), (40, 57), (288, 288)] {
            var weights = rng.panelWeights(outputs * depth, precision)
            // About half zeros of either sign, and the special values at random places.
            for i in weights.indices where Bool.random(using: &rng) {
                weights[i] = Bool.random(using: &rng) ? 0 : -0.0
            }
            for special in specials { weights[Int.random(in: weights.indices, using: &rng)] = special }
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: weights, bias: nil,
                instructionSet: instructionSet, panelPrecision: expectedPanelPrecision(precision, outputs: outputs))
            let expected = weights.filter { $0 != 0 }.count
            #expect(
                packed.nonzeroWeightCount() == expected,
                "\(outputs)×\(depth) \(packed.panelPrecision) \(instructionSet), seed \(seed)")
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func tilesCoverTheOutputExactlyOnce(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for rows in [0, 1, 5, 6, 7, 8, 49, 144, 1000, 4096] {
            for (depth, outputs) in [(8, 2), (16, 24), (288, 288), (1152, 192)] {
                let weights = try PackedGemmWeights(
                    outputChannels: outputs, inputChannels: depth,
                    weights: rng.panelWeights(outputs * depth, precision), bias: nil, instructionSet: instructionSet)
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
                        "P=\(rows) K=\(depth) N=\(outputs) threads=\(threads) \(instructionSet) \(precision) weights")
                    // Blocks even to the row, or in whole tiles (the last partial) that differ by one at most.
                    let blockSizes = (0..<tiling.rowBlockCount).map {
                        tiling.tile($0 * tiling.panelGroupCount).rows.count
                    }
                    let tileCounts = blockSizes.map { ($0 + tiling.tileRows - 1) / tiling.tileRows }
                    let even = tiling.cutsRowsEvenly
                        ? (blockSizes.max() ?? 0) - (blockSizes.min() ?? 0) <= 1
                        : blockSizes.dropLast().allSatisfy { $0 % tiling.tileRows == 0 }
                            && (tileCounts.max() ?? 0) - (tileCounts.min() ?? 0) <= 1
                    #expect(
                        even,
                        "row blocks \(blockSizes) for P=\(rows) K=\(depth) N=\(outputs) threads=\(threads)")
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func aRememberedTilingIsTheOneChosen(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (rows, depth, outputs) in [(49, 1152, 192), (196, 672, 112), (3136, 64, 24), (7, 16, 40)] {
            let weights = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: rng.floats(outputs * depth), bias: nil,
                instructionSet: instructionSet)
            for threads in [2, 3, 8] {
                let chosen = GemmTiling(rows: rows, weights: weights, threadCount: threads)
                let remembered = GemmTiling(rows: rows, weights: weights, threadCount: threads)
                #expect(
                    (remembered.rowBlockCount, remembered.panelGroupCount)
                        == (chosen.rowBlockCount, chosen.panelGroupCount),
                    "P=\(rows) K=\(depth) N=\(outputs) threads=\(threads) \(instructionSet), seed \(seed)")
            }
        }
    }

    /// A float16 layer at two threads, as `GemmTiling` cuts it.
    struct TwoThreadTilingCase: Sendable, CustomTestStringConvertible {
        let layer: String
        let rows: Int
        let depth: Int
        let outputs: Int
        /// Row blocks wanted: exactly this many, or nil for any count of at least 2.
        let rowBlocks: Int?
        var testDescription: String { layer }
    }

    /// Layers where halving the rows beats splitting the panels at two threads, in both
    /// families: hand_landmark_full's 14 × 14 expansions (196 rows, 112 → 672), where halving
    /// the panels would balance as well as halving the rows; hand_landmark_lite's 7 × 7
    /// projections (49 rows, 672 → 112), where the AVX-512 family's 32-column panels would split
    /// 64 and 48 columns and rows split 24 and 25.
    static let twoThreadRowSplits = [
        TwoThreadTilingCase(layer: "14 × 14, 112 → 672", rows: 196, depth: 112, outputs: 672, rowBlocks: nil),
        TwoThreadTilingCase(layer: "7 × 7, 672 → 112", rows: 49, depth: 672, outputs: 112, rowBlocks: 2),
    ]

    @Test(arguments: KernelInstructionSet.supported, twoThreadRowSplits)
    func twoThreadsSplitRowsBeforePanels(
        _ instructionSet: KernelInstructionSet, _ layer: TwoThreadTilingCase
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let weights = try PackedGemmWeights(
            outputChannels: layer.outputs, inputChannels: layer.depth,
            weights: rng.panelWeights(layer.outputs * layer.depth, .float16),
            bias: nil, instructionSet: instructionSet,
            panelPrecision: expectedPanelPrecision(.float16, outputs: layer.outputs))
        let tiling = GemmTiling(rows: layer.rows, weights: weights, threadCount: 2)
        let blocksAsWanted = layer.rowBlocks.map { tiling.rowBlockCount == $0 } ?? (tiling.rowBlockCount >= 2)
        #expect(
            tiling.panelGroupCount == 1 && blocksAsWanted,
            "\(tiling.rowBlockCount) blocks × \(tiling.panelGroupCount) groups, \(instructionSet), seed \(seed)")
    }

    @Test func tilingCacheHoldsOneEntryThatFitsItsWord() {
        let cache = GemmTilingCache()
        #expect(cache.split(rows: 196, threads: 2) == nil)
        cache.store(rows: 196, threads: 2, blocks: 4, groups: 2)
        #expect(cache.split(rows: 196, threads: 2)! == (4, 2))
        #expect(cache.split(rows: 196, threads: 3) == nil)
        #expect(cache.split(rows: 195, threads: 2) == nil)
        cache.store(rows: 49, threads: 3, blocks: 1, groups: 255)
        #expect(cache.split(rows: 49, threads: 3)! == (1, 255))
        #expect(cache.split(rows: 196, threads: 2) == nil)
        // Values past the word's fields are not remembered: the entry stays as it was.
        cache.store(rows: 1 << 28, threads: 2, blocks: 1, groups: 1)
        cache.store(rows: 10, threads: 64, blocks: 1, groups: 1)
        cache.store(rows: 10, threads: 2, blocks: 256, groups: 1)
        cache.store(rows: 10, threads: 2, blocks: 1, groups: 0)
        #expect(cache.split(rows: 1 << 28, threads: 2) == nil)
        #expect(cache.split(rows: 10, threads: 2) == nil)
        #expect(cache.split(rows: 49, threads: 3)! == (1, 255))
    }

    /// `W[n, k]` naming its source (`k < 8`): `8·n + k`, a float16 value for `n < 256`, or for
    /// `.float32` that plus 1/3, which float16 cannot hold.
    static func namedWeight(_ n: Int, _ k: Int, _ precision: PackedGemmWeights.Precision) -> Float {
        Float(8 * n + k) + (precision == .float16 ? 0 : Float(1) / 3)
    }

    /// `W[N, K]` of `namedWeight`s.
    static func namedWeights(outputs: Int, depth: Int, _ precision: PackedGemmWeights.Precision) -> [Float] {
        (0..<outputs).flatMap { n in (0..<depth).map { k in namedWeight(n, k, precision) } }
    }

    @Test(arguments: PackedGemmWeights.Precision.allCases)
    func packedLayoutPutsChannelsInPanels(_ precision: PackedGemmWeights.Precision) throws {
        // Every packed value names its source. Float16 panels are laid out as float32 ones.
        let outputs = 27, depth = 3
        let w = Self.namedWeights(outputs: outputs, depth: depth, precision)
        let bias = (0..<outputs).map { Float(-$0) }
        let packed = try PackedGemmWeights(
            outputChannels: outputs, inputChannels: depth, weights: w, bias: bias,
            instructionSet: .baseline)
        let float16 = expectedPanelPrecision(precision, outputs: outputs) == .float16
        #expect(packed.panelPrecision == (float16 ? .float16 : .float32))
        let width = 16
        #expect((0..<packed.panelCount).map(packed.width(ofPanel:)) == [16, 16])
        for p in 0..<packed.panelCount {
            #expect(packed.column(ofPanel: p) == width * p)
            for k in 0..<depth {
                for j in 0..<width {
                    let n = width * p + j
                    #expect(packed.panel(p)[k * width + j] == (n < outputs ? Self.namedWeight(n, k, precision) : 0))
                }
            }
        }
        for n in 0..<32 { #expect(packed.bias[n] == (n < outputs ? Float(-n) : 0)) }

        let narrow = try PackedGemmWeights(
            outputChannels: 20, inputChannels: 1,
            weights: Self.namedWeights(outputs: 20, depth: 1, precision), bias: nil, instructionSet: .baseline)
        #expect((0..<narrow.panelCount).map(narrow.width(ofPanel:)) == [16, 8])
        #expect(narrow.hasPanelOf8 && narrow.column(ofPanel: narrow.panelCount - 1) == 16)
        for j in 0..<8 {
            #expect(narrow.panel(narrow.panelCount - 1)[j] == (j < 4 ? Self.namedWeight(16 + j, 0, precision) : 0))
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func packedWeightsGiveTheSourceBack(
        instructionSet: KernelInstructionSet, precision: PackedGemmWeights.Precision
    ) throws {
        // Every panel arrangement of both families (and the dot-product rows),
        // read back through `sourceRow` as the reference kernels read it.
        for outputs in [1, 2, 3, 5, 8, 9, 16, 20, 24, 27, 32, 40, 45, 52, 56, 64, 90] {
            let depth = 7
            let w = Self.namedWeights(outputs: outputs, depth: depth, precision)
            let bias = (0..<outputs).map { Float(-$0) }
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: w, bias: bias,
                instructionSet: instructionSet)
            let context = "N=\(outputs) \(instructionSet) \(precision)"
            #expect(packed.panelPrecision == expectedPanelPrecision(precision, outputs: outputs), "\(context)")
            #expect(packed.unpackedWeights() == w, "\(context)")
            #expect(packed.unpackedBias() == bias, "\(context)")
        }
    }

    @Test(
        .enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"),
        arguments: PackedGemmWeights.Precision.allCases)
    func avx512PackingUsesPanelsOf32ThenOf16And8(_ precision: PackedGemmWeights.Precision) throws {
        // Every packed value names its source.
        let cases: [(outputs: Int, widths: [Int])] = [
            (27, [32]), (45, [32, 16]), (40, [32, 8]), (64, [32, 32]), (3, [8]), (24, [16, 8]),
            (56, [32, 16, 8]), (52, [32, 16, 8]), (90, [32, 32, 32]),
        ]
        for (outputs, widths) in cases {
            let depth = 3
            let w = Self.namedWeights(outputs: outputs, depth: depth, precision)
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
                            packed.panel(p)[k * width + j] == (n < outputs ? Self.namedWeight(n, k, precision) : 0),
                            "N=\(outputs) panel \(p) k \(k) j \(j)")
                    }
                }
                column += width
            }
            for n in 0..<column { #expect(packed.bias[n] == (n < outputs ? Float(-n) : 0)) }
        }
    }
}

extension PackedGemmWeights {
    /// Every byte of the packed storage: panels or rows, padding and bias.
    var storageBytes: [UInt8] {
        Array(UnsafeRawBufferPointer(start: storage.baseAddress, count: storage.capacity * MemoryLayout<Float>.stride))
    }
}

extension [Float16] {
    /// These halves (`[outputs, depth]`, little-endian as this host stores them) packed from
    /// their bytes, as a model's float16 weights are.
    func packed(
        outputs: Int, depth: Int, bias: [Float], _ instructionSet: KernelInstructionSet
    ) throws -> PackedGemmWeights {
        try withUnsafeBytes { bytes in
            try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, float16Weights: Float16Bytes(bytes), bias: bias,
                instructionSet: instructionSet)
        }
    }
}
