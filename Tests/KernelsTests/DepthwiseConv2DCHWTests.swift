import Tensor
import TestSupport
import Testing

@testable import Kernels

/// `DepthwiseConv2DCHW` against its own reference, against the channels-last
/// `DepthwiseConv2D` (reference and fast kernel) after a layout transpose,
/// and across thread counts, in every kernel family this CPU runs.
@Suite struct DepthwiseConv2DCHWTests {
    typealias S = ConvTestSupport

    /// One convolution with random data: the channels-last op and its input.
    struct Problem {
        let depthwise: DepthwiseConv2D
        let input: [Float]        // [N, H, W, C] of `depthwise`'s input (after any folded PAD)
        let inputDims: [Int]
        let description: String

        var outputDims: [Int] { depthwise.outputShapes[0].dimensions }
    }

    static func makeDepthwise(
        inputDims: [Int], kernel: Int, options: DepthwiseConv2D.Options, hasBias: Bool = true,
        instructionSet: KernelInstructionSet = .detected, filter: [Float]? = nil, bias: [Float]? = nil,
        rng: inout SeededGenerator
    ) throws -> DepthwiseConv2D {
        let channels = inputDims[3]
        var operands = [
            S.activation(inputDims),
            S.constant([1, kernel, kernel, channels], filter ?? rng.floats(kernel * kernel * channels)),
        ]
        if hasBias { operands.append(S.constant([channels], bias ?? rng.floats(channels))) }
        return try DepthwiseConv2D.prepare(inputs: operands, options: options, instructionSet: instructionSet)
    }

    // MARK: Layouts

    /// `[N, H, W, C]` → `[N][C][H·W]`.
    static func channelMajor(_ x: [Float], _ dims: [Int]) -> [Float] {
        let (n, h, w, c) = (dims[0], dims[1], dims[2], dims[3])
        var out = [Float](repeating: .nan, count: x.count)
        for b in 0..<n {
            for p in 0..<(h * w) {
                for ch in 0..<c { out[(b * c + ch) * h * w + p] = x[(b * h * w + p) * c + ch] }
            }
        }
        return out
    }

    /// `[N][C][H·W]` → `[N, H, W, C]`.
    static func channelsLast(_ x: [Float], _ dims: [Int]) -> [Float] {
        let (n, h, w, c) = (dims[0], dims[1], dims[2], dims[3])
        var out = [Float](repeating: .nan, count: x.count)
        for b in 0..<n {
            for p in 0..<(h * w) {
                for ch in 0..<c { out[(b * h * w + p) * c + ch] = x[(b * c + ch) * h * w + p] }
            }
        }
        return out
    }

    /// How many values differ in their bits (a count mismatch counts as all).
    static func differences(_ a: [Float], _ b: [Float]) -> Int {
        guard a.count == b.count else { return max(a.count, b.count) }
        return zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count
    }

    // MARK: Running

    /// `kernel.run` on a channel-major input; the output in a guarded buffer
    /// pre-filled with NaN, the workspace also NaN.
    static func runFast(
        _ kernel: DepthwiseConv2DCHW, channelMajorInput: [Float], runner: ParallelRunner
    ) throws -> GuardedBuffer {
        let input = GuardedBuffer(channelMajorInput)
        let output = GuardedBuffer(count: kernel.outputShapes[0].elementCount)
        output.storage.buffer.update(repeating: .nan)
        for i in output.count..<(output.count + GuardedBuffer.guardCount) {
            output.pointer[i] = GuardedBuffer.sentinel
        }
        let workspace = AlignedBuffer(count: try kernel.workspaceSize(threadCount: runner.threadCount))
        // Scratch starts as NaN, so that padding the kernel leaves unwritten
        // reaches the outputs.
        workspace.buffer.update(repeating: .nan)
        kernel.run(
            KernelIO(inputs: [input.pointer], outputs: [output.pointer], workspace: workspace.buffer),
            runner: runner)
        return output
    }

    /// The channels-last fast kernel's output (channels-last).
    static func runChannelsLast(_ kernel: DepthwiseConv2D, input: [Float]) -> [Float] {
        let source = AlignedBuffer(input)
        let output = AlignedBuffer(count: kernel.outputShapes[0].elementCount)
        kernel.run(KernelIO(inputs: [UnsafePointer(source.baseAddress)], outputs: [output.baseAddress]), runner: .serial)
        return output.toArray()
    }

    /// Runs every comparison on one problem: the channel-major reference
    /// equals the channels-last one bit for bit; the fast kernel is within
    /// the summation tolerance of the reference, bit-identical to the
    /// channels-last fast kernel, and the same for 1, 2 and 3 threads;
    /// nothing is written past the output.
    static func check(_ problem: Problem, runners: [ParallelRunner], seed: UInt64) throws {
        let context = "\(problem.description) seed \(seed)"
        let kernel = try #require(DepthwiseConv2DCHW(problem.depthwise), "\(context)")
        let input = channelMajor(problem.input, problem.inputDims)
        let outputDims = problem.outputDims

        let reference = runReference(kernel, [input])
        let channelsLastReference = runReference(problem.depthwise, [problem.input])
        let referenceDifferences = differences(channelsLast(reference, outputDims), channelsLastReference)
        #expect(
            referenceDifferences == 0,
            "reference differs from DepthwiseConv2D.runReference in \(referenceDifferences) values: \(context)")

        let serial = try runFast(kernel, channelMajorInput: input, runner: runners[0])
        #expect(serial.guardIntact, "wrote past the output: \(context)")
        let taps = problem.depthwise.window.filterHeight * problem.depthwise.window.filterWidth
        if let mismatch = S.firstMismatch(
            serial.values, reference.map(Double.init), tolerance: S.summationTolerance(terms: taps))
        {
            Issue.record("fast vs reference: \(mismatch): \(context)")
        }
        let channelsLastFast = runChannelsLast(problem.depthwise, input: problem.input)
        let fastDifferences = differences(channelsLast(serial.values, outputDims), channelsLastFast)
        #expect(
            fastDifferences == 0, "fast kernel differs from DepthwiseConv2D.run in \(fastDifferences) values: \(context)")
        for runner in runners.dropFirst() {
            let parallel = try runFast(kernel, channelMajorInput: input, runner: runner)
            let threadDifferences = differences(parallel.values, serial.values)
            #expect(
                threadDifferences == 0 && parallel.guardIntact,
                "\(runner.threadCount) threads differ from 1 in \(threadDifferences) values: \(context)")
        }
    }

    /// Runners of 1, 2 and 3 threads. Each test makes its own: a runner
    /// serves one caller at a time, and tests run concurrently.
    static func makeRunners() -> [ParallelRunner] {
        [.serial, ParallelRunner(threadCount: 2), ParallelRunner(threadCount: 3)]
    }

    // MARK: Sweeps

    @Test(arguments: KernelInstructionSet.supported)
    func sizesStridesPaddingsAndChannels(instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let runners = Self.makeRunners()
        let sizes = [1, 2, 5, 7, 14, 15, 16, 17, 33]
        let channelCounts = [1, 3, 16, 17]
        let activations: [FusedActivation] = [.none, .relu, .relu6]
        var index = 0
        for (i, height) in sizes.enumerated() {
            for shift in 0..<3 {
                let width = sizes[(i + 3 * shift + 1) % sizes.count]
                for kernel in [3, 5] {
                    for (sh, sw) in [(1, 1), (2, 2)] {
                        for padding in [Padding.same, .valid] {
                            index += 1
                            let dims = [1 + index % 2, height, width, channelCounts[index % 4]]
                            let activation = activations[index % 3]
                            let options = DepthwiseConv2D.Options(
                                padding: padding, strideH: sh, strideW: sw, activation: activation)
                            let depthwise: DepthwiseConv2D
                            do {
                                depthwise = try Self.makeDepthwise(
                                    inputDims: dims, kernel: kernel, options: options,
                                    hasBias: index % 5 != 0, instructionSet: instructionSet, rng: &rng)
                            } catch {
                                continue  // VALID with an input smaller than the filter
                            }
                            let problem = Problem(
                                depthwise: depthwise, input: rng.floats(dims.reduce(1, *)), inputDims: dims,
                                description: "\(dims) k\(kernel) s\(sh),\(sw) \(padding) \(activation) \(instructionSet)")
                            try Self.check(problem, runners: runners, seed: seed)
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func foldedAsymmetricPadsMatchThePaddedInput(instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let runners = Self.makeRunners()
        // (H, W, C, kernel, stride, [top, bottom, left, right], padding)
        let cases: [(Int, Int, Int, Int, Int, [Int], Padding)] = [
            (16, 16, 17, 3, 2, [0, 2, 0, 2], .valid), (14, 14, 16, 3, 2, [1, 1, 1, 1], .valid),
            (7, 9, 3, 5, 2, [0, 2, 0, 2], .valid), (7, 7, 17, 5, 2, [1, 2, 1, 2], .valid),
            (15, 5, 1, 3, 1, [2, 0, 3, 1], .valid), (5, 17, 16, 5, 1, [0, 3, 2, 0], .same),
            (33, 14, 3, 5, 2, [2, 2, 2, 2], .valid), (2, 1, 17, 3, 1, [1, 1, 1, 1], .same),
        ]
        for (h, w, c, kernel, stride, p, padding) in cases {
            let paddedDims = [2, h + p[0] + p[1], w + p[2] + p[3], c]
            let pad = try Pad.prepare(inputs: [
                S.activation([2, h, w, c]),
                S.intConstant([4, 2], [0, 0, Int32(p[0]), Int32(p[1]), Int32(p[2]), Int32(p[3]), 0, 0]),
            ])
            let depthwise = try Self.makeDepthwise(
                inputDims: paddedDims, kernel: kernel,
                options: .init(padding: padding, strideH: stride, strideW: stride, activation: .relu6),
                instructionSet: instructionSet, rng: &rng)
            let folded = try #require(depthwise.foldingPadding(of: pad))
            let input = rng.floats(2 * h * w * c)
            let description = "[2, \(h), \(w), \(c)] pad \(p) k\(kernel) s\(stride) \(padding) \(instructionSet)"
            try Self.check(
                Problem(depthwise: folded, input: input, inputDims: [2, h, w, c], description: description),
                runners: runners, seed: seed)

            // The folded kernel equals the unfolded one run on the padded input.
            let channelMajorKernel = try #require(DepthwiseConv2DCHW(folded))
            #expect(channelMajorKernel.opName == "PAD+DEPTHWISE_CONV_2D(CHW)")
            let paddedInput = runReference(pad, [input])
            let expected = runReference(depthwise, [paddedInput])
            let fast = try Self.runFast(
                channelMajorKernel, channelMajorInput: Self.channelMajor(input, [2, h, w, c]), runner: .serial)
            let paddedDifferences = Self.differences(
                Self.channelsLast(fast.values, folded.outputShapes[0].dimensions),
                Self.runChannelsLast(depthwise, input: paddedInput))
            #expect(
                paddedDifferences == 0,
                "folded fast kernel differs from the channels-last kernel on the padded input in \(paddedDifferences) values: \(description) seed \(seed)")
            if let mismatch = S.firstMismatch(
                Self.channelsLast(fast.values, folded.outputShapes[0].dimensions), expected.map(Double.init),
                tolerance: S.summationTolerance(terms: kernel * kernel))
            {
                Issue.record("folded vs padded reference: \(mismatch): \(description) seed \(seed)")
            }
        }
    }

    @Test(arguments: KernelInstructionSet.supported)
    func manyChannelsAndRowBandsAreBitIdenticalAcrossThreadCounts(instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let runners = Self.makeRunners() + [ParallelRunner(threadCount: 7)]
        // Planes of the target model: few channels of large planes are cut
        // into row bands, many channels of small planes are not.
        for (size, channels, kernel, stride) in [(112, 2, 3, 1), (114, 3, 3, 2), (9, 70, 5, 1), (18, 40, 5, 2)] {
            let dims = [1, size, size, channels]
            let depthwise = try Self.makeDepthwise(
                inputDims: dims, kernel: kernel,
                options: .init(padding: .same, strideH: stride, strideW: stride, activation: .relu),
                instructionSet: instructionSet, rng: &rng)
            try Self.check(
                Problem(
                    depthwise: depthwise, input: rng.floats(dims.reduce(1, *)), inputDims: dims,
                    description: "\(dims) k\(kernel) s\(stride) \(instructionSet)"),
                runners: runners, seed: seed)
        }
    }

    /// Planes of at least `minimumRowsPerThreadBand` output rows a thread are
    /// split between threads by rows (items band by band): two images, row
    /// counts that do not divide evenly, both filter sizes and strides; the
    /// same bits for 1, 2, 3 and 7 threads (7 splits these planes by planes).
    @Test(arguments: KernelInstructionSet.supported)
    func largePlanesSplitByRowsBitForBit(instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let runners = Self.makeRunners() + [ParallelRunner(threadCount: 7)]
        var splitsByRows = 0
        for (height, width, channels, kernel, stride) in [(61, 20, 3, 5, 1), (57, 24, 2, 3, 1), (121, 30, 2, 3, 2)] {
            let dims = [2, height, width, channels]
            let depthwise = try Self.makeDepthwise(
                inputDims: dims, kernel: kernel,
                options: .init(padding: .same, strideH: stride, strideW: stride, activation: .relu6),
                instructionSet: instructionSet, rng: &rng)
            let planes = try #require(DepthwiseConv2DCHW(depthwise))
            let outputHeight = depthwise.window.outputHeight
            for threads in [1, 2, 3, 7] {
                let split = DepthwiseConv2DCHW.ThreadSplit(kernel: planes, threads: threads)
                let expectsRows = threads > 1 && !planes.flatPlanes
                    && outputHeight / threads >= DepthwiseConv2DCHW.minimumRowsPerThreadBand
                #expect(split.bandMajor == expectsRows, "\(dims) k\(kernel) s\(stride), \(threads) threads")
                #expect(split.bandRows * split.bandsPerPlane >= outputHeight)
                #expect((split.bandsPerPlane - 1) * split.bandRows < outputHeight)
                if expectsRows {
                    #expect(split.bandsPerPlane >= threads)
                    splitsByRows += 1
                }
            }
            try Self.check(
                Problem(
                    depthwise: depthwise, input: rng.floats(dims.reduce(1, *)), inputDims: dims,
                    description: "\(dims) k\(kernel) s\(stride) \(instructionSet)"),
                runners: runners, seed: seed)
        }
        #expect(splitsByRows >= 3, "the cases should include planes split by rows")
    }

    /// Planes of at most `channelLastTileMaximumPixels` output pixels with a 5 × 5 filter and a
    /// channel count that is a multiple of 8 go through channel-last tiles of 16 channels (the
    /// last of 8 where the count leaves 8), other planes through the plane kernels; either way
    /// the channel-last kernel's bits, at 1, 2, 3 and 7 threads, over one and two images, both
    /// strides, plane sizes that are not multiples of 8 pixels.
    @Test(arguments: KernelInstructionSet.supported)
    func smallPlanesGoThroughChannelLastTiles(instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let runners = Self.makeRunners() + [ParallelRunner(threadCount: 7)]
        // (N, H, W, C, kernel, stride, padding, tiles expected)
        let cases: [(Int, Int, Int, Int, Int, Int, Padding, Bool)] = [
            (1, 14, 14, 24, 5, 1, .same, true), (2, 7, 7, 48, 5, 1, .same, true),
            (1, 14, 14, 40, 5, 2, .same, true), (2, 16, 16, 8, 5, 1, .valid, true),
            (1, 17, 15, 16, 5, 1, .same, true), (1, 29, 9, 32, 5, 2, .valid, true),
            (1, 16, 17, 16, 5, 1, .same, false), (1, 14, 14, 24, 3, 1, .same, false),
            (1, 14, 14, 20, 5, 1, .same, false), (2, 5, 6, 4, 5, 1, .same, false),
        ]
        for (n, h, w, c, kernel, stride, padding, expectsTiles) in cases {
            let dims = [n, h, w, c]
            let depthwise = try Self.makeDepthwise(
                inputDims: dims, kernel: kernel,
                options: .init(padding: padding, strideH: stride, strideW: stride, activation: .relu6),
                instructionSet: instructionSet, rng: &rng)
            let description = "\(dims) k\(kernel) s\(stride) \(padding) \(instructionSet)"
            let planes = try #require(DepthwiseConv2DCHW(depthwise), "\(description)")
            #expect((planes.channelLastWeights != nil) == expectsTiles, "\(description)")
            try Self.check(
                Problem(depthwise: depthwise, input: rng.floats(dims.reduce(1, *)), inputDims: dims,
                        description: description),
                runners: runners, seed: seed)
        }
    }

    // MARK: Properties

    @Test func propertiesFollowTheWrappedOp() throws {
        var rng = SeededGenerator(seed: 1)
        let depthwise = try Self.makeDepthwise(
            inputDims: [2, 9, 8, 5], kernel: 5, options: .init(padding: .same, strideH: 2, strideW: 2), rng: &rng)
        let kernel = try #require(DepthwiseConv2DCHW(depthwise))
        #expect(kernel.opName == "DEPTHWISE_CONV_2D(CHW)")
        #expect(kernel.outputShapes == depthwise.outputShapes)
        #expect(kernel.outputShapes == [S.shape([2, 5, 4, 5])])
        #expect(kernel.multiplyAccumulates == depthwise.multiplyAccumulates)
        #expect(!kernel.readsConstantInputs)
        #expect(try kernel.workspaceSize(threadCount: 2) == 2 * kernel.workspaceSize(threadCount: 1))
        #expect(try kernel.workspaceSize(threadCount: 1) > 0)
        #expect(throws: KernelError.self) { try kernel.workspaceSize(threadCount: Int.max) }
    }

    @Test func unsupportedShapesGiveNil() throws {
        var rng = SeededGenerator(seed: 2)
        let dims = [1, 12, 12, 4]
        for instructionSet in KernelInstructionSet.supported {
            let supported = try Self.makeDepthwise(
                inputDims: dims, kernel: 3, options: .init(padding: .same), instructionSet: instructionSet, rng: &rng)
            #expect(DepthwiseConv2DCHW(supported) != nil, "\(instructionSet)")
        }

        let multiplier = try DepthwiseConv2D.prepare(
            inputs: [S.activation(dims), S.constant([1, 3, 3, 8], rng.floats(72))],
            options: .init(padding: .same, depthMultiplier: 2))
        #expect(DepthwiseConv2DCHW(multiplier) == nil, "depth multiplier 2")
        let dilated = try Self.makeDepthwise(
            inputDims: dims, kernel: 3, options: .init(padding: .same, dilationH: 2, dilationW: 2), rng: &rng)
        #expect(DepthwiseConv2DCHW(dilated) == nil, "dilation 2")
        let wide = try Self.makeDepthwise(inputDims: dims, kernel: 7, options: .init(padding: .same), rng: &rng)
        #expect(DepthwiseConv2DCHW(wide) == nil, "7×7 filter")
        let strided = try Self.makeDepthwise(
            inputDims: dims, kernel: 3, options: .init(padding: .same, strideH: 3, strideW: 1), rng: &rng)
        #expect(DepthwiseConv2DCHW(strided) == nil, "stride 3")
        for (strideH, strideW) in [(1, 2), (2, 1)] {
            let uneven = try Self.makeDepthwise(
                inputDims: dims, kernel: 5, options: .init(padding: .same, strideH: strideH, strideW: strideW),
                rng: &rng)
            #expect(DepthwiseConv2DCHW(uneven) == nil, "strides \(strideH),\(strideW)")
        }
        let oblong = try DepthwiseConv2D.prepare(
            inputs: [S.activation(dims), S.constant([1, 3, 5, 4], rng.floats(60))], options: .init(padding: .same))
        #expect(DepthwiseConv2DCHW(oblong) == nil, "3×5 filter")
    }

    /// A padding tap adds `0 · w` here where `DepthwiseConv2D` skips it, which turns a `−0`
    /// sum (from a `−0` bias) into `+0`: on a zero input with a `−0` bias and negative weights
    /// but for tap (0, 0), which pixel (0, 0) reads only in the padding. So such a filter is
    /// refused (and stays channel-last in a model), as is one with a weight that is not
    /// finite (`0 · ∞` is NaN); with a `+0` bias the same filter runs, bit for bit.
    @Test(arguments: KernelInstructionSet.supported)
    func refusesFiltersWhosePaddingTapsWouldChangeTheBits(instructionSet: KernelInstructionSet) throws {
        var rng = SeededGenerator(seed: 4)
        let dims = [1, 6, 6, 3]
        let filter = (0..<27).map { $0 < 3 ? Float(1) : -1 }
        let negativeZero = try Self.makeDepthwise(
            inputDims: dims, kernel: 3, options: .init(padding: .same), instructionSet: instructionSet,
            filter: filter, bias: [-0.0, -0.0, -0.0], rng: &rng)
        let zeros = [Float](repeating: 0, count: 108)
        let channelsLast = Self.runChannelsLast(negativeZero, input: zeros)
        #expect(channelsLast[0] == 0 && channelsLast[0].sign == .minus, "the channel-last kernel keeps the −0")
        #expect(DepthwiseConv2DCHW(negativeZero) == nil, "a −0 bias, \(instructionSet)")

        let positiveZero = try Self.makeDepthwise(
            inputDims: dims, kernel: 3, options: .init(padding: .same), instructionSet: instructionSet,
            filter: filter, bias: [0, 0, 0], rng: &rng)
        try Self.check(
            Problem(depthwise: positiveZero, input: zeros, inputDims: dims, description: "+0 bias \(instructionSet)"),
            runners: [.serial], seed: 4)

        let infinite = try Self.makeDepthwise(
            inputDims: dims, kernel: 3, options: .init(padding: .same), instructionSet: instructionSet,
            filter: filter.enumerated().map { $0.offset == 13 ? .infinity : $0.element }, rng: &rng)
        #expect(DepthwiseConv2DCHW(infinite) == nil, "an infinite weight, \(instructionSet)")
    }
}
