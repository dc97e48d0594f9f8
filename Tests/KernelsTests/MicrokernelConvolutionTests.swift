import TestSupport
import Testing

@testable import Kernels

/// Sweeps `convolutionF32` against plain double-accumulated loops, with float16
/// and float32 panels.
@Suite struct MicrokernelConvolutionTests {
    /// One convolution problem with random data.
    struct Problem {
        let batch: Int, inputChannels: Int, outputChannels: Int
        let geometry: ConvolutionGeometry
        let input: [Float], filter: [Float], bias: [Float]?
        let clamp: (lower: Float, upper: Float)
        /// The panel precision the filter is made for (`SeededGenerator.panelWeights`).
        let precision: PackedGemmWeights.Precision

        init(
            batch: Int = 1, inputChannels: Int, outputChannels: Int, geometry: ConvolutionGeometry,
            hasBias: Bool = true, clamp: (lower: Float, upper: Float) = (-.infinity, .infinity),
            precision: PackedGemmWeights.Precision, rng: inout SeededGenerator
        ) {
            self.batch = batch
            self.inputChannels = inputChannels
            self.outputChannels = outputChannels
            self.geometry = geometry
            self.precision = precision
            input = rng.floats(batch * geometry.inputHeight * geometry.inputWidth * inputChannels)
            filter = rng.panelWeights(
                outputChannels * geometry.kernelHeight * geometry.kernelWidth * inputChannels, precision)
            bias = hasBias ? rng.floats(outputChannels) : nil
            self.clamp = clamp
        }

        /// `out[n, oy, ox, o] = clamp(bias[o] + Σ in[n, iy, ix, i] · w[o, ky, kx, i])`.
        func reference() -> [Expected] {
            let g = geometry, cin = inputChannels
            var expected: [Expected] = []
            for n in 0..<batch {
                for oy in 0..<g.outputHeight {
                    for ox in 0..<g.outputWidth {
                        for o in 0..<outputChannels {
                            let b = Double(bias?[o] ?? 0)
                            var sum = b, magnitude = abs(b)
                            for ky in 0..<g.kernelHeight {
                                for kx in 0..<g.kernelWidth {
                                    let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                                    let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                    guard (0..<g.inputHeight).contains(iy),
                                          (0..<g.inputWidth).contains(ix)
                                    else { continue }
                                    for i in 0..<cin {
                                        let x = input[((n * g.inputHeight + iy) * g.inputWidth + ix) * cin + i]
                                        let wIndex = ((o * g.kernelHeight + ky) * g.kernelWidth + kx) * cin + i
                                        let term = Double(x) * Double(filter[wIndex])
                                        sum += term
                                        magnitude += abs(term)
                                    }
                                }
                            }
                            expected.append(Expected(value: clamped(sum, clamp), magnitude: magnitude))
                        }
                    }
                }
            }
            return expected
        }

        func run(runner: ParallelRunner, _ instructionSet: KernelInstructionSet) throws -> GuardedBuffer {
            let g = geometry
            let packed = try PackedGemmWeights(
                outputChannels: outputChannels,
                inputChannels: g.kernelHeight * g.kernelWidth * inputChannels,
                weights: filter, bias: bias, instructionSet: instructionSet)
            #expect(
                packed.panelPrecision == expectedPanelPrecision(precision, outputs: outputChannels),
                "\(description)")
            return try run(packed, runner: runner)
        }

        /// `convolutionF32` with the filter already packed from `filter` and `bias`.
        func run(_ packed: PackedGemmWeights, runner: ParallelRunner) throws -> GuardedBuffer {
            let g = geometry
            let workspace = GuardedBuffer(
                count: try convolutionF32WorkspaceSize(weights: packed, threadCount: runner.threadCount))
            let source = GuardedBuffer(input)
            let output = GuardedBuffer(count: batch * g.outputHeight * g.outputWidth * outputChannels)
            convolutionF32(
                input: source.pointer, output: output.pointer, batch: batch, geometry: g,
                inputChannels: inputChannels, weights: packed,
                workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count),
                clamp: clamp, runner: runner)
            #expect(workspace.guardIntact, "wrote past the workspace: \(description)")
            return output
        }

        var description: String {
            let g = geometry
            return "N=\(batch) Cin=\(inputChannels) Cout=\(outputChannels) "
                + "in \(g.inputHeight)×\(g.inputWidth) k \(g.kernelHeight)×\(g.kernelWidth) "
                + "s \(g.strideHeight),\(g.strideWidth) d \(g.dilationHeight),\(g.dilationWidth) "
                + "pad \(g.padTop),\(g.padLeft) out \(g.outputHeight)×\(g.outputWidth) "
                + "bias=\(bias != nil) clamp=\(clamp) \(precision) weights"
        }
    }

    static func geometry(
        _ height: Int, _ width: Int, kernel: (Int, Int), stride: Int = 1, dilation: Int = 1,
        padding: Padding = .same
    ) -> ConvolutionGeometry? {
        ConvolutionGeometry(
            inputHeight: height, inputWidth: width, kernelHeight: kernel.0, kernelWidth: kernel.1,
            strideHeight: stride, strideWidth: stride, dilationHeight: dilation,
            dilationWidth: dilation, padding: padding)
    }

    func check(_ problem: Problem, _ instructionSet: KernelInstructionSet, seed: UInt64) throws {
        expectClose(
            try problem.run(runner: .serial, instructionSet), problem.reference(),
            "\(problem.description) \(instructionSet) seed \(seed)")
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func firstLayerShapes(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // The models' stems: 3×3 and 5×5 at stride 2 on RGB, SAME and VALID.
        for (kernel, outputs, padding) in [(3, 24, Padding.same), (5, 32, .same), (3, 24, .valid)] {
            let g = try #require(Self.geometry(17, 14, kernel: (kernel, kernel), stride: 2, padding: padding))
            try check(
                Problem(
                    inputChannels: 3, outputChannels: outputs, geometry: g, clamp: (0, 6), precision: precision,
                    rng: &rng),
                instructionSet, seed: seed)
        }
    }

    /// A row whose padded band does not fit the scratch of one gathered tile
    /// (`convolutionTilePixels`) is gathered instead: the first and last rows
    /// here, gathered whole, are wider than a tile (24 pixels for K = 216) and
    /// are gathered a tile at a time for each panel; the rows between read
    /// their borders from bands.
    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func rowsWiderThanOneGatheredTile(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let inputs = 24, width = 80
        let tilePixels = convolutionTilePixels(kernelDepth: 9 * inputs)
        #expect(tilePixels < width)
        let g = try #require(Self.geometry(6, width, kernel: (3, 3)))
        #expect(PaddedBand(geometry: g, channels: inputs, columns: 0..<width).floats > tilePixels * 9 * inputs)
        try check(
            Problem(inputChannels: inputs, outputChannels: 40, geometry: g, clamp: (-1, 1), precision: precision,
                    rng: &rng),
            instructionSet, seed: seed)
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func channelCountsAroundTheVectorSizes(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let g = try #require(Self.geometry(5, 6, kernel: (3, 3)))
        for inputs in [1, 3, 8, 9, 17] {
            for outputs in [1, 2, 3, 7, 8, 9, 16, 17, 24, 32, 33, 40, 65] {
                try check(
                    Problem(
                        inputChannels: inputs, outputChannels: outputs, geometry: g, precision: precision,
                        rng: &rng),
                    instructionSet, seed: seed)
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func kernelShapesStridesDilationsAndPaddings(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for kernel in [(1, 1), (2, 2), (3, 3), (3, 1), (5, 5)] {
            for stride in [1, 2] {
                for dilation in [1, 2] {
                    for padding in [Padding.same, .valid] {
                        for (height, width) in [(1, 1), (7, 6), (10, 9)] {
                            guard let g = Self.geometry(
                                height, width, kernel: kernel, stride: stride, dilation: dilation,
                                padding: padding)
                            else { continue }
                            try check(
                                Problem(inputChannels: 5, outputChannels: 10, geometry: g, precision: precision, rng: &rng),
                                instructionSet, seed: seed)
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func activationClampsBatchesAndMissingBias(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // 2×2 VALID on a 2×2 input: one output pixel per image, as in the models' heads.
        let head = try #require(Self.geometry(2, 2, kernel: (2, 2), padding: .valid))
        let g = try #require(Self.geometry(6, 7, kernel: (3, 3), stride: 2))
        for clamp in activationClamps {
            for hasBias in [true, false] {
                for geometry in [g, head] {
                    try check(
                        Problem(
                            batch: 2, inputChannels: 12, outputChannels: 13, geometry: geometry,
                            hasBias: hasBias, clamp: clamp, precision: precision, rng: &rng),
                        instructionSet, seed: seed)
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
        for (size, inputs, outputs, kernel) in [(40, 3, 24, 3), (64, 8, 1, 3), (12, 16, 40, 5)] {
            let g = try #require(Self.geometry(size, size, kernel: (kernel, kernel), stride: 1))
            let problem = Problem(
                batch: 2, inputChannels: inputs, outputChannels: outputs, geometry: g, clamp: (0, 6),
                precision: precision, rng: &rng)
            let context = "\(problem.description) \(instructionSet) seed \(seed)"
            expectClose(
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet), problem.reference(),
                context)
            try expectSameForThreadCounts(context) { runner in
                try problem.run(runner: runner, instructionSet).values
            }
        }
    }

    /// Layers with fewer rows than the threads share evenly cut each row's
    /// panels into groups: a 7×7 map, a 1×1 map with many outputs (a
    /// model's head), a 5×5 map with borders, one with a last
    /// panel of 8 and one in the dot-product layout.
    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func panelGroupsGiveTheBitsOfWholeRows(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (size, inputs, outputs, kernel) in [(7, 32, 72, 1), (1, 512, 195, 1), (5, 24, 40, 3), (5, 200, 1, 3)] {
            let g = try #require(Self.geometry(size, size, kernel: (kernel, kernel), stride: 1))
            let problem = Problem(
                inputChannels: inputs, outputChannels: outputs, geometry: g, clamp: (-1, 1), precision: precision,
                rng: &rng)
            let context = "\(problem.description) \(instructionSet) seed \(seed)"
            // Every problem has at least 2 column blocks, and work enough for 2 threads.
            let threads = usefulThreadCount(
                2, multiplyAdds: size * size, kernel * kernel * inputs, outputs)
            #expect(
                threads == 2 && convolutionPanelGroups(rows: size, columnBlocks: 2, threadCount: threads) > 1,
                "no panel groups at 2 threads: \(context)")
            expectClose(
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet), problem.reference(),
                context)
            try expectSameForThreadCounts(context) { runner in
                try problem.run(runner: runner, instructionSet).values
            }
        }
    }

    @Test func panelGroupsOnlyWhereRowsAreTooFewToShare() {
        #expect(convolutionPanelGroups(rows: 1, columnBlocks: 13, threadCount: 1) == 1)
        #expect(convolutionPanelGroups(rows: 8, columnBlocks: 13, threadCount: 2) == 1)
        #expect(convolutionPanelGroups(rows: 7, columnBlocks: 13, threadCount: 2) == 2)
        #expect(convolutionPanelGroups(rows: 1, columnBlocks: 13, threadCount: 2) == 8)
        #expect(convolutionPanelGroups(rows: 1, columnBlocks: 5, threadCount: 16) == 5)
        #expect(convolutionPanelGroups(rows: 14, columnBlocks: 42, threadCount: 8) == 3)
    }

    @Test(
        .enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"),
        arguments: PackedGemmWeights.Precision.allCases)
    func bitIdenticalAcrossInstructionSets(_ precision: PackedGemmWeights.Precision) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (size, inputs, outputs, kernel, stride) in [(21, 3, 24, 3, 2), (12, 16, 40, 5, 1), (9, 8, 65, 3, 1)] {
            let g = try #require(Self.geometry(size, size, kernel: (kernel, kernel), stride: stride))
            let problem = Problem(
                inputChannels: inputs, outputChannels: outputs, geometry: g, clamp: (0, 6), precision: precision,
                rng: &rng)
            try expectSameForInstructionSets("\(problem.description) seed \(seed)") { instructionSet in
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet).values
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func float16PanelsGiveTheBitsOfFloat32Panels(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Several panels (each widened once per output row), borders and padded rows.
        for (size, inputs, outputs, kernel, stride) in [(21, 3, 24, 3, 2), (12, 16, 40, 5, 1), (9, 8, 65, 3, 1)] {
            let g = try #require(Self.geometry(size, size, kernel: (kernel, kernel), stride: stride))
            let problem = Problem(
                inputChannels: inputs, outputChannels: outputs, geometry: g, clamp: (-1, 1), precision: .float16,
                rng: &rng)
            let results = try PackedGemmWeights.Precision.allCases.map { precision in
                let packed = try PackedGemmWeights(
                    outputChannels: outputs, inputChannels: kernel * kernel * inputs, weights: problem.filter,
                    bias: problem.bias, instructionSet: instructionSet, panelPrecision: precision)
                return try problem.run(packed, runner: ParallelRunner(threadCount: 2)).values.map(\.bitPattern)
            }
            #expect(results[0] == results[1], "\(problem.description) \(instructionSet) seed \(seed)")
        }
    }

    @Test func workspaceSizeIsOneTilePerThreadAndRejectsOverflow() throws {
        let weights = try PackedGemmWeights(
            outputChannels: 4, inputChannels: 27, weights: [Float](repeating: 1, count: 108), bias: nil)
        let one = try convolutionF32WorkspaceSize(weights: weights, threadCount: 1)
        #expect(one >= 24 * 27)
        #expect(try convolutionF32WorkspaceSize(weights: weights, threadCount: 3) == 3 * one)
        #expect(throws: KernelError.self) {
            try convolutionF32WorkspaceSize(weights: weights, threadCount: Int.max / 2)
        }
    }

    @Test(arguments: KernelInstructionSet.supported, PackedGemmWeights.Precision.allCases)
    func differentStridesAndDilationsAcrossRowsAndColumns(
        _ instructionSet: KernelInstructionSet, _ precision: PackedGemmWeights.Precision
    ) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (strides, dilations) in [((1, 2), (1, 1)), ((2, 1), (1, 1)), ((1, 1), (2, 1)), ((1, 1), (1, 2))] {
            for kernel in [3, 5] {
                for padding in [Padding.same, .valid] {
                    let g = try #require(ConvolutionGeometry(
                        inputHeight: 11, inputWidth: 10, kernelHeight: kernel, kernelWidth: kernel,
                        strideHeight: strides.0, strideWidth: strides.1,
                        dilationHeight: dilations.0, dilationWidth: dilations.1, padding: padding))
                    try check(
                        Problem(inputChannels: 4, outputChannels: 9, geometry: g, precision: precision, rng: &rng),
                        instructionSet, seed: seed)
                }
            }
        }
    }
}
