import TestSupport
import Testing

@testable import Kernels

/// Sweeps `singleChannelConvolutionF32` (one output channel, pixels across
/// the vector lanes) against `convolutionF32`'s dot products, whose bits it
/// must give, and against plain double-accumulated loops.
@Suite struct SingleChannelConvolutionTests {
    typealias Problem = MicrokernelConvolutionTests.Problem

    /// The kernel's outputs for `problem`, with a guarded workspace.
    static func run(_ problem: Problem, runner: ParallelRunner, _ instructionSet: KernelInstructionSet) throws -> GuardedBuffer {
        let g = problem.geometry
        let packed = try PackedGemmWeights(
            outputChannels: 1, inputChannels: g.kernelHeight * g.kernelWidth * problem.inputChannels,
            weights: problem.filter, bias: problem.bias, instructionSet: instructionSet)
        #expect(singleChannelConvolutionApplies(geometry: g, inputChannels: problem.inputChannels, weights: packed))
        let workspace = GuardedBuffer(
            count: try singleChannelConvolutionWorkspaceSize(
                geometry: g, inputChannels: problem.inputChannels, threadCount: runner.threadCount))
        let source = GuardedBuffer(problem.input)
        let output = GuardedBuffer(count: problem.batch * g.outputHeight * g.outputWidth)
        singleChannelConvolutionF32(
            input: source.pointer, output: output.pointer, batch: problem.batch, geometry: g,
            inputChannels: problem.inputChannels, weights: packed,
            workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count),
            clamp: problem.clamp, runner: runner)
        #expect(workspace.guardIntact, "wrote past the workspace: \(problem.description)")
        #expect(output.guardIntact, "wrote past the output: \(problem.description)")
        return output
    }

    /// Widths around the groups of 8 and 32 pixels, every filter size the
    /// kernel takes up to 5, strides 1 and 2 down the rows, SAME and VALID,
    /// channel counts that are and are not multiples of 8 (the transposed
    /// and the scalar copies), two images, one to three threads.
    @Test(arguments: KernelInstructionSet.supported)
    func givesTheBitsOfTheDotProducts(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let cases: [(height: Int, width: Int, kernel: (Int, Int), strideHeight: Int, padding: Padding, channels: Int)] = [
            (6, 1, (3, 3), 1, .same, 8), (5, 7, (3, 3), 1, .same, 8), (4, 8, (1, 3), 1, .same, 3),
            (7, 9, (3, 1), 2, .same, 16), (9, 31, (3, 3), 1, .same, 8), (3, 32, (2, 2), 1, .valid, 5),
            (8, 33, (5, 5), 2, .same, 8), (5, 40, (3, 3), 1, .valid, 12), (6, 67, (4, 3), 1, .same, 1),
            (12, 70, (3, 3), 2, .valid, 24),
        ]
        for c in cases {
            let g = try #require(ConvolutionGeometry(
                inputHeight: c.height, inputWidth: c.width, kernelHeight: c.kernel.0, kernelWidth: c.kernel.1,
                strideHeight: c.strideHeight, strideWidth: 1, dilationHeight: 1, dilationWidth: 1,
                padding: c.padding))
            let problem = Problem(
                batch: 2, inputChannels: c.channels, outputChannels: 1, geometry: g, clamp: (-1, 1),
                precision: .float32, rng: &rng)
            let context = "\(problem.description) \(instructionSet) seed \(seed)"
            let dotProducts = try problem.run(runner: .serial, instructionSet).values.map(\.bitPattern)
            for threads in 1...3 {
                let runner = threads == 1 ? ParallelRunner.serial : ParallelRunner(threadCount: threads)
                let result = try Self.run(problem, runner: runner, instructionSet)
                #expect(result.values.map(\.bitPattern) == dotProducts, "\(threads) threads: \(context)")
                if threads == 1 { expectClose(result, problem.reference(), context) }
            }
        }
    }

    /// One output channel at horizontal stride 1, undilated, up to 16 filter
    /// rows, in the dot-product layout: nothing else.
    @Test func appliesOnlyToWhatItComputes() throws {
        var rng = SeededGenerator(seed: 11)
        func applies(
            outputs: Int, kernel: (Int, Int), stride: (Int, Int) = (1, 1), dilation: (Int, Int) = (1, 1),
            channels: Int = 8
        ) throws -> Bool {
            let g = try #require(ConvolutionGeometry(
                inputHeight: 20, inputWidth: 20, kernelHeight: kernel.0, kernelWidth: kernel.1,
                strideHeight: stride.0, strideWidth: stride.1, dilationHeight: dilation.0,
                dilationWidth: dilation.1, padding: .same))
            let depth = kernel.0 * kernel.1 * channels
            let packed = try PackedGemmWeights(
                outputChannels: outputs, inputChannels: depth, weights: rng.floats(outputs * depth),
                bias: nil, instructionSet: .baseline)
            return singleChannelConvolutionApplies(geometry: g, inputChannels: channels, weights: packed)
        }
        #expect(try applies(outputs: 1, kernel: (3, 3)))
        #expect(try applies(outputs: 1, kernel: (16, 1), stride: (2, 1)))
        #expect(try !applies(outputs: 2, kernel: (3, 3)), "two output channels")
        #expect(try !applies(outputs: 1, kernel: (3, 3), stride: (1, 2)), "horizontal stride 2")
        #expect(try !applies(outputs: 1, kernel: (3, 3), dilation: (2, 1)), "dilated rows")
        #expect(try !applies(outputs: 1, kernel: (3, 3), dilation: (1, 2)), "dilated columns")
        #expect(try !applies(outputs: 1, kernel: (17, 1)), "17 filter rows")
        #expect(throws: KernelError.self) {
            try singleChannelConvolutionWorkspaceSize(
                geometry: #require(ConvolutionGeometry(
                    inputHeight: 8, inputWidth: 8, kernelHeight: 3, kernelWidth: 3, strideHeight: 1,
                    strideWidth: 1, dilationHeight: 1, dilationWidth: 1, padding: .same)),
                inputChannels: 8, threadCount: Int.max)
        }
    }

    /// `Conv2D` takes this kernel for a convolution with one output channel
    /// and nothing fused after it, and gives its reference kernel's values.
    @Test(arguments: KernelInstructionSet.supported)
    func conv2DRunsOnPixelLanes(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let single = try Conv2DToChannelMajorTests.Problem(
            batch: 1, height: 12, width: 40, inputChannels: 8, outputChannels: 1, kernel: (3, 3), stride: (1, 1),
            padding: .same, activation: .none, instructionSet: instructionSet, rng: &rng)
        #expect(single.conv.runsOnPixelLanes)
        let fast = try Conv2DToChannelMajorTests.run(single.conv, input: single.input, fast: true, runner: .serial)
        let reference = try Conv2DToChannelMajorTests.run(single.conv, input: single.input, fast: false, runner: .serial)
        #expect(fast.guardsIntact, "seed \(seed)")
        // Bias first with fused multiply-adds against bias last with separate ones: K = 72
        // products of values in [−1, 1] differ by at most (K + 2)·2ε·(K + 1).
        let tolerance = Double(72 + 2) * 2 * Double(Float.ulpOfOne) * Double(72 + 1)
        let worst = zip(fast.output, reference.output).map { abs(Double($0) - Double($1)) }.max() ?? .infinity
        #expect(worst <= tolerance, "fast kernel \(worst) from the reference (tolerance \(tolerance)), seed \(seed)")
        let two = try Conv2DToChannelMajorTests.Problem(
            batch: 1, height: 12, width: 40, inputChannels: 8, outputChannels: 2, kernel: (3, 3), stride: (1, 1),
            padding: .same, activation: .none, instructionSet: instructionSet, rng: &rng)
        #expect(!two.conv.runsOnPixelLanes, "two output channels")
        let pointwise = try Conv2DToChannelMajorTests.Problem(
            batch: 1, height: 12, width: 40, inputChannels: 8, outputChannels: 1, kernel: (1, 1), stride: (1, 1),
            padding: .same, activation: .none, instructionSet: instructionSet, rng: &rng)
        #expect(!pointwise.conv.runsOnPixelLanes, "1×1: a GEMM over all pixels")
    }
}
