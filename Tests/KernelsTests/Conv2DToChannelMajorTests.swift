import Foundation
import Tensor
import TestSupport
import Testing

@testable import Kernels

/// The channel-last-in, channel-major-out convolution against the `Conv2D`
/// it is made from: its fast kernel bit for bit against `Conv2D`'s fast
/// kernel, its reference bit for bit against `Conv2D`'s reference (both
/// transposed to channel-major), the fast kernel against the reference within
/// the rounding of two summation orders, and across thread counts, in every
/// kernel family this CPU runs.
@Suite struct Conv2DToChannelMajorTests {
    /// One convolution with random data.
    struct Problem: CustomStringConvertible {
        let batch: Int, height: Int, width: Int, inputChannels: Int, outputChannels: Int
        let kernel: (height: Int, width: Int), stride: (h: Int, w: Int), dilation: (h: Int, w: Int)
        let padding: Padding
        let activation: FusedActivation
        /// `[N, H, W, Cin]`.
        var input: [Float]
        var conv: Conv2D

        init(
            batch: Int, height: Int, width: Int, inputChannels: Int, outputChannels: Int,
            kernel: (height: Int, width: Int), stride: (h: Int, w: Int), dilation: (h: Int, w: Int) = (1, 1),
            padding: Padding, activation: FusedActivation, instructionSet: KernelInstructionSet = .detected,
            rng: inout SeededGenerator
        ) throws {
            self.batch = batch
            self.height = height
            self.width = width
            self.inputChannels = inputChannels
            self.outputChannels = outputChannels
            self.kernel = kernel
            self.stride = stride
            self.dilation = dilation
            self.padding = padding
            self.activation = activation
            input = rng.floats(batch * height * width * inputChannels)
            let filterCount = outputChannels * kernel.height * kernel.width * inputChannels
            conv = try Conv2D.prepare(
                inputs: [
                    ConvTestSupport.activation([batch, height, width, inputChannels]),
                    ConvTestSupport.constant([outputChannels, kernel.height, kernel.width, inputChannels], rng.floats(filterCount)),
                    ConvTestSupport.constant([outputChannels], rng.floats(outputChannels)),
                ],
                options: .init(
                    padding: padding, strideH: stride.h, strideW: stride.w, dilationH: dilation.h,
                    dilationW: dilation.w, activation: activation),
                instructionSet: instructionSet)
        }

        var description: String {
            "N \(batch) \(height)×\(width)×\(inputChannels) → Cout \(outputChannels) k \(kernel.height)×\(kernel.width) "
                + "s \(stride.h),\(stride.w) d \(dilation.h),\(dilation.w) \(padding) act \(activation)"
        }
    }

    /// Runs `kernel` (fast or reference) on channel-last `input`; returns the
    /// output and whether nothing was written past it or past the workspace.
    static func run(
        _ kernel: any PreparedKernel, input: [Float], fast: Bool, runner: ParallelRunner
    ) throws -> (output: [Float], guardsIntact: Bool) {
        let source = GuardedBuffer(input)
        let placeholder = GuardedBuffer(count: 0)
        let output = GuardedBuffer(count: kernel.outputShapes[0].elementCount)
        output.pointer.update(repeating: .nan, count: output.count)
        let workspace = GuardedBuffer(count: try kernel.workspaceSize(threadCount: runner.threadCount))
        workspace.pointer.update(repeating: .nan, count: workspace.count)
        let io = KernelIO(
            inputs: [UnsafePointer(source.pointer), UnsafePointer(placeholder.pointer), UnsafePointer(placeholder.pointer)],
            outputs: [output.pointer],
            workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count))
        if fast { kernel.run(io, runner: runner) } else { kernel.runReference(io) }
        return withExtendedLifetime((source, placeholder)) { (output.values, output.guardIntact && workspace.guardIntact) }
    }

    /// Each image of `values`, `[N][P][C]`, as `[N][C][P]`.
    static func channelMajor(_ values: [Float], batch: Int, pixels: Int, channels: Int) -> [Float] {
        var result = [Float](repeating: 0, count: values.count)
        for n in 0..<batch {
            let base = n * pixels * channels
            for p in 0..<pixels {
                for c in 0..<channels { result[base + c * pixels + p] = values[base + p * channels + c] }
            }
        }
        return result
    }

    /// Number of positions whose bit patterns differ (all of them when the counts differ).
    static func differing(_ a: [Float], _ b: [Float]) -> Int {
        a.count != b.count ? max(a.count, b.count) : zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count
    }

    /// Checks `kernel` made from `problem.conv` against the channel-last convolution.
    static func check(_ problem: Problem, _ kernel: Conv2DToChannelMajor, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = "\(problem) seed \(seed)"
        let shape = problem.conv.outputShapes[0]
        let pixels = shape[1] * shape[2]
        func transposed(_ values: [Float]) -> [Float] {
            channelMajor(values, batch: problem.batch, pixels: pixels, channels: problem.outputChannels)
        }
        let lastFast = try run(problem.conv, input: problem.input, fast: true, runner: .serial)
        let lastReference = try run(problem.conv, input: problem.input, fast: false, runner: .serial)
        let reference = try run(kernel, input: problem.input, fast: false, runner: .serial)
        #expect(
            differing(reference.output, transposed(lastReference.output)) == 0,
            "reference differs from Conv2D's reference: \(context)", sourceLocation: sourceLocation)
        for threads in [1, 2, 3] {
            let fast = try run(kernel, input: problem.input, fast: true, runner: threads == 1 ? .serial : ParallelRunner(threadCount: threads))
            #expect(fast.guardsIntact, "wrote out of bounds, \(threads) threads: \(context)", sourceLocation: sourceLocation)
            let unlike = differing(fast.output, transposed(lastFast.output))
            #expect(unlike == 0, "\(unlike) values differ from Conv2D's fast kernel, \(threads) threads: \(context)", sourceLocation: sourceLocation)
        }
        // The two summation orders (bias first with fused multiply-adds; bias last with
        // separate ones) of K products of values in [−1, 1] differ by at most (K + 2)·2ε·(K + 1).
        let taps = problem.kernel.height * problem.kernel.width * problem.inputChannels
        let tolerance = Double(taps + 2) * 2 * Double(Float.ulpOfOne) * Double(taps + 1)
        let fast = try run(kernel, input: problem.input, fast: true, runner: .serial).output
        let worst = zip(fast, reference.output).map { abs(Double($0) - Double($1)) }.max() ?? 0
        #expect(worst <= tolerance, "fast kernel \(worst) from the reference (tolerance \(tolerance)): \(context)", sourceLocation: sourceLocation)
    }

    /// Stems and other small-channel convolutions: every kernel size, stride,
    /// dilation and padding, outputs of fewer and more than one 64-pixel
    /// tile, one output channel (which `Conv2D` sums as dot products or with
    /// pixels across the lanes) and two (an 8-wide panel), and in and past
    /// groups of six.
    @Test(arguments: [1, 2, 3, 4], KernelInstructionSet.supported)
    func sweepMatchesTheChannelLastConvolution(inputChannels: Int, instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed ^ UInt64(inputChannels))
        let activations: [FusedActivation] = [.none, .relu, .relu6]
        var index = 0
        for (kernelHeight, kernelWidth) in [(1, 1), (3, 3), (2, 3), (5, 5)] {
            for stride in 1...3 {
                for outputChannels in [1, 2, 3, 6, 7, 24] {
                    index += 1
                    let problem = try Problem(
                        batch: 1 + index % 2, height: 5 + index % 13, width: 3 + (index * 7) % 29,
                        inputChannels: inputChannels, outputChannels: outputChannels,
                        kernel: (kernelHeight, kernelWidth), stride: (stride, 1 + (stride + index) % 3),
                        dilation: index % 4 == 0 ? (2, 2) : (1, 1), padding: index % 3 == 0 ? .valid : .same,
                        activation: activations[index % 3], instructionSet: instructionSet, rng: &rng)
                    guard kernelHeight * kernelWidth * inputChannels <= Conv2DToChannelMajor.maximumTaps else {
                        #expect(Conv2DToChannelMajor(problem.conv) == nil, "more taps than allowed: \(problem)")
                        continue
                    }
                    guard let kernel = Conv2DToChannelMajor(problem.conv) else {
                        Issue.record("not built: \(problem), \(instructionSet), seed \(seed)")
                        continue
                    }
                    try Self.check(problem, kernel, seed: seed)
                }
            }
        }
    }

    /// pose_detection's stem: 224×224×3, 3×3 at stride 2, 24 channels, with
    /// its PAD (one row and column after the image) folded in.
    @Test(arguments: KernelInstructionSet.supported)
    func poseDetectionStemWithFoldedPadding(instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let pad = try Pad.prepare(inputs: [
            ConvTestSupport.activation([1, 224, 224, 3]),
            ConvTestSupport.intConstant([4, 2], [0, 0, 0, 1, 0, 1, 0, 0]),
        ])
        let problem = try Problem(
            batch: 1, height: 225, width: 225, inputChannels: 3, outputChannels: 24, kernel: (3, 3), stride: (2, 2),
            padding: .valid, activation: .relu, instructionSet: instructionSet, rng: &rng)
        let folded = try #require(problem.conv.foldingPadding(of: pad))
        let kernel = try #require(Conv2DToChannelMajor(folded))
        #expect(kernel.opName == "PAD+CONV_2D(to CHW)")
        #expect(kernel.outputShapes == [ConvTestSupport.shape([1, 112, 112, 24])])
        let input = rng.floats(224 * 224 * 3)
        let expected = Self.channelMajor(
            try Self.run(folded, input: input, fast: true, runner: .serial).output, batch: 1, pixels: 112 * 112, channels: 24)
        for threads in [1, 2] {
            let result = try Self.run(kernel, input: input, fast: true, runner: threads == 1 ? .serial : ParallelRunner(threadCount: threads))
            #expect(result.guardsIntact, "\(instructionSet), seed \(seed)")
            #expect(Self.differing(result.output, expected) == 0, "\(instructionSet), \(threads) threads, seed \(seed)")
        }
    }

    /// Name, shape, cost and workspace; the convolutions it refuses.
    @Test func describesItselfAndRefusesWhatItCannotRun() throws {
        var rng = SeededGenerator(seed: 5)
        let stem = try Problem(
            batch: 1, height: 16, width: 16, inputChannels: 3, outputChannels: 8, kernel: (3, 3), stride: (2, 2),
            padding: .same, activation: .relu6, rng: &rng)
        let kernel = try #require(Conv2DToChannelMajor(stem.conv))
        #expect(kernel.opName == "CONV_2D(to CHW)")
        #expect(kernel.outputShapes == stem.conv.outputShapes)
        #expect(kernel.multiplyAccumulates == stem.conv.multiplyAccumulates)
        #expect(!kernel.readsConstantInputs)
        #expect(try kernel.workspaceSize(threadCount: 3) > kernel.workspaceSize(threadCount: 1))
        #expect(throws: KernelError.self) { try kernel.workspaceSize(threadCount: Int.max) }

        let wide = try Problem(
            batch: 1, height: 8, width: 8, inputChannels: 5, outputChannels: 8, kernel: (1, 1), stride: (1, 1),
            padding: .same, activation: .none, rng: &rng)
        #expect(Conv2DToChannelMajor(wide.conv) == nil, "more than four input channels")
        let large = try Problem(
            batch: 1, height: 12, width: 12, inputChannels: 3, outputChannels: 8, kernel: (5, 5), stride: (1, 1),
            padding: .same, activation: .none, rng: &rng)
        #expect(Conv2DToChannelMajor(large.conv) == nil, "75 taps")
        let residual = try Add.prepare(
            inputs: [ConvTestSupport.activation([1, 8, 8, 8]), ConvTestSupport.activation([1, 8, 8, 8])], options: .init())
        let square = try Problem(
            batch: 1, height: 8, width: 8, inputChannels: 3, outputChannels: 8, kernel: (3, 3), stride: (1, 1),
            padding: .same, activation: .none, rng: &rng)
        let fused = try #require(square.conv.fusing(add: residual, residualIsFirstOperand: false))
        #expect(Conv2DToChannelMajor(fused) == nil, "a fused ADD")
    }

    /// `Conv2D` gathers its border pixels' taps with zeros for the padding and adds `0 · w`
    /// for them, as this kernel does: a `−0` sum (a `−0` bias) becomes `+0` in both, so unlike
    /// the channel-major depthwise convolution this kernel needs no guard for a `−0` bias. A
    /// zero image, a `−0` bias, negative weights but for the tap (0, 0) that pixel (0, 0)
    /// reads only in the padding.
    @Test(arguments: KernelInstructionSet.supported)
    func aNegativeZeroBiasGivesTheChannelLastBits(instructionSet: KernelInstructionSet) throws {
        var rng = SeededGenerator(seed: 6)
        var problem = try Problem(
            batch: 1, height: 6, width: 6, inputChannels: 1, outputChannels: 8, kernel: (3, 3), stride: (1, 1),
            padding: .same, activation: .none, instructionSet: instructionSet, rng: &rng)
        let filter = (0..<72).map { $0 % 9 == 0 ? Float(1) : -1 }
        let conv = try Conv2D.prepare(
            inputs: [
                ConvTestSupport.activation([1, 6, 6, 1]), ConvTestSupport.constant([8, 3, 3, 1], filter),
                ConvTestSupport.constant([8], [Float](repeating: -0.0, count: 8)),
            ],
            options: .init(padding: .same), instructionSet: instructionSet)
        problem.conv = conv
        problem.input = [Float](repeating: 0, count: 36)
        let kernel = try #require(Conv2DToChannelMajor(conv), "\(instructionSet)")
        try Self.check(problem, kernel, seed: 6)
        let output = try Self.run(kernel, input: problem.input, fast: true, runner: .serial).output
        #expect(output[0] == 0 && output[0].sign == .plus, "\(instructionSet): \(output[0])")
    }
}
