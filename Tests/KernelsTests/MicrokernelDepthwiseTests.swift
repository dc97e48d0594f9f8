import KernelTemplates
import TestSupport
import Testing

@testable import Kernels

/// Sweeps `depthwiseConvolutionF32` against plain double-accumulated loops.
@Suite struct MicrokernelDepthwiseTests {
    /// One depthwise problem with random data.
    struct Problem {
        let batch: Int, channels: Int
        let geometry: ConvolutionGeometry
        let input: [Float], filter: [Float], bias: [Float]?
        let clamp: (lower: Float, upper: Float)

        init(
            batch: Int = 1, channels: Int, geometry: ConvolutionGeometry, hasBias: Bool = true,
            clamp: (lower: Float, upper: Float) = (-.infinity, .infinity),
            rng: inout SeededGenerator
        ) {
            self.batch = batch
            self.channels = channels
            self.geometry = geometry
            input = rng.floats(batch * geometry.inputHeight * geometry.inputWidth * channels)
            filter = rng.floats(geometry.kernelHeight * geometry.kernelWidth * channels)
            bias = hasBias ? rng.floats(channels) : nil
            self.clamp = clamp
        }

        /// `out[n, oy, ox, c] = clamp(bias[c] + Σ in[n, iy, ix, c] · w[ky, kx, c])`.
        func reference() -> [Expected] {
            let g = geometry
            var expected: [Expected] = []
            for n in 0..<batch {
                for oy in 0..<g.outputHeight {
                    for ox in 0..<g.outputWidth {
                        for c in 0..<channels {
                            let b = Double(bias?[c] ?? 0)
                            var sum = b, magnitude = abs(b)
                            for ky in 0..<g.kernelHeight {
                                for kx in 0..<g.kernelWidth {
                                    let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                                    let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                    guard (0..<g.inputHeight).contains(iy),
                                          (0..<g.inputWidth).contains(ix)
                                    else { continue }
                                    let x = input[((n * g.inputHeight + iy) * g.inputWidth + ix) * channels + c]
                                    let term = Double(x) * Double(filter[(ky * g.kernelWidth + kx) * channels + c])
                                    sum += term
                                    magnitude += abs(term)
                                }
                            }
                            expected.append(Expected(value: clamped(sum, clamp), magnitude: magnitude))
                        }
                    }
                }
            }
            return expected
        }

        /// The float sums in XNNPACK's tap order, the order every depthwise kernel keeps: from
        /// the bias (+0 without one), one fused multiply-add per tap inside the input, filter
        /// columns outer and rows inner; then the clamp.
        func exactReference() -> [Float] {
            let g = geometry
            var expected: [Float] = []
            for n in 0..<batch {
                for oy in 0..<g.outputHeight {
                    for ox in 0..<g.outputWidth {
                        for c in 0..<channels {
                            var sum = bias?[c] ?? 0
                            for kx in 0..<g.kernelWidth {
                                for ky in 0..<g.kernelHeight {
                                    let iy = oy * g.strideHeight - g.padTop + ky * g.dilationHeight
                                    let ix = ox * g.strideWidth - g.padLeft + kx * g.dilationWidth
                                    guard (0..<g.inputHeight).contains(iy),
                                          (0..<g.inputWidth).contains(ix)
                                    else { continue }
                                    let x = input[((n * g.inputHeight + iy) * g.inputWidth + ix) * channels + c]
                                    sum = sum.addingProduct(x, filter[(ky * g.kernelWidth + kx) * channels + c])
                                }
                            }
                            expected.append(sum < clamp.lower ? clamp.lower : (sum > clamp.upper ? clamp.upper : sum))
                        }
                    }
                }
            }
            return expected
        }

        func run(runner: ParallelRunner, _ instructionSet: KernelInstructionSet) throws -> GuardedBuffer {
            let g = geometry
            let packed = try PackedDepthwiseWeights(
                channels: channels, kernelHeight: g.kernelHeight, kernelWidth: g.kernelWidth,
                weights: filter, bias: bias, instructionSet: instructionSet)
            let source = GuardedBuffer(input)
            let output = GuardedBuffer(count: batch * g.outputHeight * g.outputWidth * channels)
            depthwiseConvolutionF32(
                input: source.pointer, output: output.pointer, batch: batch, geometry: g,
                weights: packed, clamp: clamp, runner: runner)
            return output
        }

        var description: String {
            let g = geometry
            return "N=\(batch) C=\(channels) in \(g.inputHeight)×\(g.inputWidth) "
                + "k \(g.kernelHeight)×\(g.kernelWidth) s \(g.strideHeight),\(g.strideWidth) "
                + "d \(g.dilationHeight),\(g.dilationWidth) pad \(g.padTop),\(g.padLeft) "
                + "out \(g.outputHeight)×\(g.outputWidth) bias=\(bias != nil) clamp=\(clamp)"
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

    /// Expects `problem`'s outputs at 1, 2 and 3 threads to be `exactReference()` bit for bit,
    /// with the guard bytes past the output intact.
    func expectExactSums(_ problem: Problem, _ instructionSet: KernelInstructionSet, seed: UInt64) throws {
        let expected = problem.exactReference().map(\.bitPattern)
        for runner in [ParallelRunner.serial, ParallelRunner(threadCount: 2), ParallelRunner(threadCount: 3)] {
            let actual = try problem.run(runner: runner, instructionSet)
            let values = actual.values.map(\.bitPattern)
            let differing = zip(values, expected).filter { $0 != $1 }.count
            #expect(
                actual.guardIntact && values.count == expected.count && differing == 0,
                "\(differing) differ, \(runner.threadCount) threads: \(problem.description) \(instructionSet) seed \(seed)")
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func channelCountsAroundTheVectorSizes(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Past 255 channels, border pixels take their channels in chunks (the last chunk
        // longer, with the tail past the last vector).
        for channels in [1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 47, 48, 56, 63, 64, 65, 88, 256, 300, 389] {
            for kernel in [3, 5] {
                let g = try #require(Self.geometry(7, 9, kernel: (kernel, kernel)))
                try check(Problem(channels: channels, geometry: g, rng: &rng), instructionSet, seed: seed)
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func sizesStridesAndPaddings(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // At stride 1 with same padding the widths leave every count of interior pixels after
        // the blocks of 4: 1 (7 under 3 × 3, 13 under 5 × 5), 2 (4 under 3 × 3, 6 under 5 × 5),
        // 3 (13 under 3 × 3, 7 under 5 × 5) and none (6 under 3 × 3).
        for (height, width) in [(1, 1), (2, 3), (5, 4), (6, 6), (9, 13), (12, 7)] {
            for kernel in [3, 5] {
                for stride in [1, 2] {
                    for padding in [Padding.same, .valid] {
                        guard let g = Self.geometry(
                            height, width, kernel: (kernel, kernel), stride: stride, padding: padding)
                        else { continue }
                        try check(Problem(channels: 17, geometry: g, rng: &rng), instructionSet, seed: seed)
                    }
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func otherKernelShapesAndDilations(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for kernel in [(1, 1), (2, 2), (3, 1), (1, 4), (7, 7)] {
            for dilation in [1, 2] {
                for stride in [1, 3] {
                    guard let g = Self.geometry(
                        10, 11, kernel: kernel, stride: stride, dilation: dilation)
                    else { continue }
                    try check(Problem(channels: 19, geometry: g, rng: &rng), instructionSet, seed: seed)
                }
            }
        }
        let dilated = try #require(Self.geometry(9, 9, kernel: (3, 3), dilation: 2))
        try check(Problem(channels: 40, geometry: dilated, rng: &rng), instructionSet, seed: seed)
    }

    @Test(arguments: KernelInstructionSet.supported)
    func paddingWiderThanTheFilterLeavesOnlyTheBias(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // 4 zero rows/columns before a 3×3 filter: the first outputs see no input.
        let g = ConvolutionGeometry(
            inputHeight: 3, inputWidth: 4, outputHeight: 8, outputWidth: 9,
            kernelHeight: 3, kernelWidth: 3, strideHeight: 1, strideWidth: 1,
            dilationHeight: 1, dilationWidth: 1, padTop: 4, padLeft: 4)
        try check(Problem(channels: 20, geometry: g, clamp: (-1, 1), rng: &rng), instructionSet, seed: seed)
    }

    @Test(arguments: KernelInstructionSet.supported)
    func activationClampsBatchesAndMissingBias(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let g = try #require(Self.geometry(6, 5, kernel: (3, 3), stride: 2))
        for clamp in activationClamps {
            for hasBias in [true, false] {
                try check(
                    Problem(batch: 2, channels: 24, geometry: g, hasBias: hasBias, clamp: clamp, rng: &rng),
                    instructionSet, seed: seed)
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func bitIdenticalForAnyThreadCount(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (size, channels, kernel, stride) in [(24, 72, 5, 1), (33, 40, 3, 2), (20, 200, 3, 1)] {
            let g = try #require(Self.geometry(size, size, kernel: (kernel, kernel), stride: stride))
            let problem = Problem(batch: 2, channels: channels, geometry: g, clamp: (0, 6), rng: &rng)
            let context = "\(problem.description) \(instructionSet) seed \(seed)"
            expectClose(
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet), problem.reference(),
                context)
            try expectSameForThreadCounts(context) { runner in
                try problem.run(runner: runner, instructionSet).values
            }
        }
    }

    /// Every kernel path (bands of 2...4 full rows split across threads' chunks, the bands and
    /// single rows at the top and bottom, border columns, the channels past the last group)
    /// gives the sums of a plain fused multiply-add loop in XNNPACK's tap order, bit for bit.
    @Test(arguments: KernelInstructionSet.supported)
    func sumsInTheTapOrderBitForBit(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (height, width) in [(2, 3), (5, 4), (7, 7), (9, 13), (14, 14)] {
            for kernel in [3, 5] {
                for stride in [1, 2] {
                    for padding in [Padding.same, .valid] {
                        guard let g = Self.geometry(
                            height, width, kernel: (kernel, kernel), stride: stride, padding: padding)
                        else { continue }
                        for channels in [8, 13, 40, 72] {
                            let problem = Problem(
                                batch: 2, channels: channels, geometry: g, clamp: (-2, 2), rng: &rng)
                            try expectExactSums(problem, instructionSet, seed: seed)
                        }
                    }
                }
            }
        }
    }

    /// Paddings other than same and valid, bit for bit as above: 2 rows of padding under a 3 × 3
    /// filter (bands with 2 rows of padding above and below, as a 5 × 5 filter's same padding
    /// gives), 3 under a 5 × 5 one (more than the band kernels take: single rows), and 1 above
    /// and 3 below.
    @Test(arguments: KernelInstructionSet.supported)
    func otherPaddingsBitForBit(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (kernel, stride, padTop, padBottom) in [(3, 1, 2, 2), (5, 1, 3, 3), (5, 1, 1, 3), (3, 2, 2, 2), (5, 2, 2, 2)] {
            let (height, width) = (9, 8)
            let g = ConvolutionGeometry(
                inputHeight: height, inputWidth: width,
                outputHeight: (height + padTop + padBottom - kernel) / stride + 1,
                outputWidth: (width + padTop + padBottom - kernel) / stride + 1,
                kernelHeight: kernel, kernelWidth: kernel, strideHeight: stride, strideWidth: stride,
                dilationHeight: 1, dilationWidth: 1, padTop: padTop, padLeft: padTop)
            let problem = Problem(channels: 40, geometry: g, clamp: (-2, 2), rng: &rng)
            try expectExactSums(problem, instructionSet, seed: seed)
        }
    }

    /// Small maps whose channels the threads split (`DepthwiseChannelGroups`: 2 or 3 groups,
    /// some of them ending off a multiple of 16, with the bands, the single rows and the border
    /// pixels of each), bit for bit as above.
    @Test(arguments: KernelInstructionSet.supported)
    func channelGroupsBitForBit(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (height, width) in [(7, 7), (5, 6), (4, 9)] {
            for kernel in [3, 5] {
                for stride in [1, 2] {
                    let g = try #require(Self.geometry(height, width, kernel: (kernel, kernel), stride: stride))
                    for channels in [64, 104, 200] {
                        let problem = Problem(channels: channels, geometry: g, clamp: (-2, 2), rng: &rng)
                        try expectExactSums(problem, instructionSet, seed: seed)
                    }
                }
            }
        }
    }

    /// Channel groups cover the channels once, in order, each from a multiple of 16 and at
    /// least 16 wide; a map of fewer than 4 input rows a thread takes one a thread (at most one
    /// per 32 channels), a larger one a single group.
    @Test func channelGroupsCoverEveryChannelOnce() {
        for channels in [1, 16, 31, 32, 63, 64, 70, 95, 104, 200, 672, 1152] {
            for threads in 1...5 {
                for inputRows in [1, 7, 4 * threads - 1, 4 * threads, 14] {
                    let groups = DepthwiseChannelGroups(channels: channels, inputRows: inputRows, threads: threads)
                    let expected = inputRows < 4 * threads ? max(1, min(threads, channels / 32)) : 1
                    var next = 0, wellFormed = groups.count == expected
                    for group in 0..<groups.count {
                        let range = groups.channels(ofGroup: group)
                        wellFormed = wellFormed && range.lowerBound == next && range.lowerBound % 16 == 0
                            && (groups.count == 1 || range.count >= 16)
                        next = range.upperBound
                    }
                    #expect(
                        wellFormed && next == channels,
                        "\(channels) channels, \(inputRows) rows, \(threads) threads: \(groups.count) groups")
                }
            }
        }
    }

    /// The band kernels take bands with no padding rows or 2 on one side, and nothing else.
    @Test func bandKernelsTakeEdgesOfTwoRows() {
        for above in 0...4 {
            for below in 0...4 {
                #expect(
                    depthwiseBandTakesEdge(above: above, below: below)
                        == ([(0, 0), (2, 0), (0, 2)] as [(Int, Int)]).contains { $0 == (above, below) },
                    "above \(above), below \(below)")
            }
        }
    }

    /// The units cover an image's rows once each, in order; a unit lies within one region (the
    /// rows above the interior rows, the interior rows, the rows below), holds at most 4 rows in a
    /// region the band kernels take and 1 in any other, and only a region's last unit holds fewer.
    @Test func rowUnitsCoverEveryRowOnce() {
        for height in 0...13 {
            for first in 0...height {
                for end in first...height {
                    let regions = [0..<first, first..<end, end..<height]
                    // Every choice of the regions that the band kernels take.
                    for choice in 0..<8 {
                        let banded = regions.indices.filter { choice >> $0 & 1 == 1 }.map { regions[$0] }
                        let units = DepthwiseRowUnits(
                            outputHeight: height, interiorRows: first..<end, bands: { banded.contains($0) })
                        var next = 0, wellFormed = true
                        for unit in 0..<units.perImage {
                            let (row, count) = units.rows(ofUnit: unit)
                            guard let region = regions.first(where: { $0.contains(row) }) else {
                                wellFormed = false
                                break
                            }
                            let maximum = banded.contains(region) ? 4 : 1
                            wellFormed = wellFormed && row == next && (1...maximum).contains(count)
                                && row + count <= region.upperBound
                                && (count == maximum || row + count == region.upperBound)
                            next = row + count
                        }
                        #expect(
                            wellFormed && next == height,
                            "height \(height), interior rows \(first)..<\(end), banded regions \(banded)")
                    }
                }
            }
        }
    }

    /// Cut into one part a thread, the units still cover an image's rows once each, in order, a
    /// unit within one region and at most 4 rows; a part's empty units (0 rows) come after its
    /// others, and a part holds at most `ParallelRunner.chunksPerThread` units, so that
    /// `WorkerPool`'s even segments hand each thread its own part. A 14 × 14 map's 3 × 3 filter
    /// at two threads: 7 rows a thread.
    @Test func rowPartsCoverEveryRowOnceAThread() {
        var cut = 0
        for height in 0...30 {
            for first in 0...min(height, 3) {
                for end in max(first, height - 3)...height {
                    let regions = [0..<first, first..<end, end..<height]
                    for threads in 2...4 {
                        for choice in [0b010, 0b111] {
                            let banded = regions.indices.filter { choice >> $0 & 1 == 1 }.map { regions[$0] }
                            let units = DepthwiseRowUnits(
                                outputHeight: height, interiorRows: first..<end, threads: threads,
                                bands: { banded.contains($0) })
                            guard units.parts > 1 else { continue }
                            cut += 1
                            let perPart = units.perImage / units.parts
                            var next = 0, wellFormed = units.parts == threads
                                && units.perImage == threads * perPart
                                && perPart <= ParallelRunner.chunksPerThread
                            for unit in 0..<units.perImage {
                                let (row, count) = units.rows(ofUnit: unit)
                                let lastOfPart = unit % perPart == perPart - 1
                                if count == 0 {
                                    // Empty units end a part: the next one, if any, is empty too.
                                    let nextCount = lastOfPart ? 0 : units.rows(ofUnit: unit + 1).count
                                    wellFormed = wellFormed && nextCount == 0
                                    continue
                                }
                                let region = regions.first { $0.contains(row) }
                                let maximum = region.map { banded.contains($0) ? 4 : 1 } ?? 0
                                wellFormed = wellFormed && row == next && count <= maximum
                                    && row + count <= (region?.upperBound ?? 0)
                                next = row + count
                            }
                            #expect(
                                wellFormed && next == height,
                                "height \(height), interior rows \(first)..<\(end), \(threads) threads, banded \(banded)")
                        }
                    }
                }
            }
        }
        #expect(cut > 0, "no layout was cut into parts")
        let map = DepthwiseRowUnits(outputHeight: 14, interiorRows: 1..<13, threads: 2, bands: { _ in true })
        let rows = (0..<map.perImage).map { map.rows(ofUnit: $0).count }
        #expect(rows == [1, 3, 3, 3, 3, 1], "\(rows)")
    }

    /// Maps whose rows the threads cut into one part each (`DepthwiseRowUnits.parts`), with
    /// every part's bands and empty units, bit for bit as above.
    @Test(arguments: KernelInstructionSet.supported)
    func rowPartsBitForBit(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        var cut = 0
        for (height, width) in [(14, 14), (16, 9), (11, 12), (28, 5)] {
            for kernel in [3, 5] {
                for stride in [1, 2] {
                    for padding in [Padding.same, .valid] {
                        let g = try #require(Self.geometry(
                            height, width, kernel: (kernel, kernel), stride: stride, padding: padding))
                        if DepthwiseRowUnits(geometry: g, channels: 40, threads: 2).parts == 2 { cut += 1 }
                        let problem = Problem(channels: 40, geometry: g, clamp: (-2, 2), rng: &rng)
                        try expectExactSums(problem, instructionSet, seed: seed)
                    }
                }
            }
        }
        // Of the 32 maps, those whose output has at least 2 interior rows.
        #expect(cut >= 24, "only \(cut) maps were cut into parts at two threads")
    }

    @Test(.enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"))
    func bitIdenticalAcrossInstructionSets() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (size, channels, kernel, stride) in [(13, 88, 5, 1), (15, 56, 3, 2), (9, 19, 3, 1), (11, 40, 5, 2)] {
            let g = try #require(Self.geometry(size, size, kernel: (kernel, kernel), stride: stride))
            let problem = Problem(channels: channels, geometry: g, clamp: (0, 6), rng: &rng)
            try expectSameForInstructionSets("\(problem.description) seed \(seed)") { instructionSet in
                try problem.run(runner: ParallelRunner(threadCount: 2), instructionSet).values
            }
        }
    }

    @Test func packedLayoutIsTapMajorWithPaddedChannels() throws {
        // w[ky, kx, c] = 100·(ky·3 + kx) + c names its source.
        let channels = 5
        let filter = (0..<9).flatMap { t in (0..<channels).map { Float(100 * t + $0) } }
        let packed = try PackedDepthwiseWeights(
            channels: channels, kernelHeight: 3, kernelWidth: 3, weights: filter, bias: [1, 2, 3, 4, 5])
        #expect(packed.channelStride == 16)
        for ky in 0..<3 {
            for kx in 0..<3 {
                for c in 0..<16 {
                    let t = ky * 3 + kx
                    #expect(packed.taps(row: ky, column: kx)[c] == (c < channels ? Float(100 * t + c) : 0))
                }
            }
        }
        #expect((0..<16).map { packed.bias[$0] } == [1, 2, 3, 4, 5] + [Float](repeating: 0, count: 11))
    }

    @Test(arguments: KernelInstructionSet.supported)
    func differentStridesAndDilationsAcrossRowsAndColumns(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (strides, dilations) in [((1, 2), (1, 1)), ((2, 1), (1, 1)), ((1, 1), (2, 1)), ((1, 1), (1, 2))] {
            for kernel in [3, 5] {
                for padding in [Padding.same, .valid] {
                    let g = try #require(ConvolutionGeometry(
                        inputHeight: 11, inputWidth: 10, kernelHeight: kernel, kernelWidth: kernel,
                        strideHeight: strides.0, strideWidth: strides.1,
                        dilationHeight: dilations.0, dilationWidth: dilations.1, padding: padding))
                    try check(Problem(channels: 20, geometry: g, rng: &rng), instructionSet, seed: seed)
                }
            }
        }
    }
}
