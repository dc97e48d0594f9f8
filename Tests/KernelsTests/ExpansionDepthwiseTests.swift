import Tensor
import TestSupport
import Testing

@testable import Kernels

/// A 1×1 expansion and its depthwise layer joined (`ExpansionDepthwise`) against the two layers
/// run one after the other: the same bits at 1 thread (in bands) and at 2 and 3 (layer after
/// layer), fast and reference.
@Suite struct ExpansionDepthwiseTests {
    /// One expansion and one depthwise layer over random data.
    struct Pair {
        let expansion: Conv2D
        let depthwise: DepthwiseConv2D
        let input: [Float]
        let description: String

        /// With `float16Filters`, every expansion filter value is a float16 value, so that the
        /// GEMM packs float16 panels and widens them into the workspace as it goes; with `prelu`,
        /// the expansion has a PRELU fused.
        init(
            batch: Int = 1, size: (Int, Int), inputChannels: Int, channels: Int, kernel: Int, stride: Int,
            padding: Padding, float16Filters: Bool = false, prelu: Bool = false,
            instructionSet: KernelInstructionSet, rng: inout SeededGenerator
        ) throws {
            let inputShape = TensorShape(validated: [batch, size.0, size.1, inputChannels])
            let filterShape = TensorShape(validated: [channels, 1, 1, inputChannels])
            var expansion = try Conv2D.prepare(
                inputs: [
                    Operand(shape: inputShape),
                    Operand(
                        shape: filterShape,
                        constant: .float32(
                            rng.floats(filterShape.elementCount).map { float16Filters ? Float(Float16($0)) : $0 })),
                    Operand(shape: TensorShape(validated: [channels]), constant: .float32(rng.floats(channels))),
                ],
                options: .init(padding: .valid, activation: prelu ? .none : .relu6), instructionSet: instructionSet)
            if prelu {
                let alpha = Operand(
                    shape: TensorShape(validated: [1, 1, channels]), constant: .float32(rng.floats(channels)))
                let operator_ = try Prelu.prepare(inputs: [Operand(shape: expansion.outputShapes[0]), alpha])
                expansion = try #require(expansion.fusing(prelu: operator_, alpha: alpha))
            }
            let depthwiseFilter = TensorShape(validated: [1, kernel, kernel, channels])
            depthwise = try DepthwiseConv2D.prepare(
                inputs: [
                    Operand(shape: expansion.outputShapes[0]),
                    Operand(shape: depthwiseFilter, constant: .float32(rng.floats(depthwiseFilter.elementCount))),
                    Operand(shape: TensorShape(validated: [channels]), constant: .float32(rng.floats(channels))),
                ],
                options: .init(padding: padding, strideH: stride, strideW: stride, activation: .relu),
                instructionSet: instructionSet)
            self.expansion = expansion
            input = rng.floats(inputShape.elementCount)
            description = "\(batch)×\(size.0)×\(size.1)×\(inputChannels) → \(channels), \(kernel)×\(kernel) "
                + "stride \(stride) \(padding)\(float16Filters ? ", float16 filters" : "")"
                + "\(prelu ? ", PRELU" : "") \(instructionSet)"
        }

        /// `kernel` on the input (with the filter and bias placeholders a CONV_2D's operands
        /// have) and its output; checks that nothing was written past the output or the
        /// workspace.
        func run(_ kernel: any PreparedKernel, input: [Float], reference: Bool, runner: ParallelRunner) throws -> [Float] {
            let source = GuardedBuffer(input)
            let placeholder = GuardedBuffer(count: 0)
            let output = GuardedBuffer(count: kernel.outputShapes[0].elementCount)
            let workspace = GuardedBuffer(count: try kernel.workspaceSize(threadCount: runner.threadCount))
            let io = KernelIO(
                inputs: [UnsafePointer(source.pointer), UnsafePointer(placeholder.pointer), UnsafePointer(placeholder.pointer)],
                outputs: [output.pointer],
                workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count))
            if reference { kernel.runReference(io) } else { kernel.run(io, runner: runner) }
            #expect(output.guardIntact, "wrote past the output: \(description)")
            #expect(workspace.guardIntact, "wrote past the workspace: \(description)")
            return withExtendedLifetime((source, placeholder, workspace)) { output.values }
        }

        /// The two layers one after the other.
        func separate(reference: Bool, runner: ParallelRunner) throws -> [Float] {
            let expanded = try run(expansion, input: input, reference: reference, runner: runner)
            return try run(depthwise, input: expanded, reference: reference, runner: runner)
        }
    }

    /// Maps whose rows fall into bands and single rows at the top and bottom, with the padding
    /// of both filters at both strides, two images, float16 panels and a fused PRELU; every
    /// thread count, the layers in turn or in bands, against the separate layers at one thread.
    @Test(arguments: KernelInstructionSet.supported)
    func joinedLayersGiveTheSameBitsAsSeparateOnes(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (batch, size, channels) in [(1, (13, 11), 16), (2, (16, 9), 24), (1, (7, 20), 40), (1, (2, 5), 8)] {
            for (kernel, stride) in [(3, 1), (3, 2), (5, 1), (5, 2)] {
                for padding in [Padding.same, .valid] where padding == .same || size.0 >= kernel {
                    for (float16Filters, prelu) in [(false, false), (true, false), (false, true)] {
                        let pair = try Pair(
                            batch: batch, size: size, inputChannels: 5, channels: channels, kernel: kernel,
                            stride: stride, padding: padding, float16Filters: float16Filters, prelu: prelu,
                            instructionSet: instructionSet, rng: &rng)
                        let joined = try #require(
                            ExpansionDepthwise(
                                expansion: pair.expansion, depthwise: pair.depthwise, minimumExpandedFloats: 0),
                            "\(pair.description)")
                        // Bands at every thread count, one contiguous run of units a thread.
                        let inBands = try #require(
                            ExpansionDepthwise(
                                expansion: pair.expansion, depthwise: pair.depthwise, minimumExpandedFloats: 0,
                                minimumBandedFloatsAtThreads: 0),
                            "\(pair.description)")
                        let expected = try pair.separate(reference: false, runner: .serial).map(\.bitPattern)
                        for (kernel, name) in [(joined, "layers in turn"), (inBands, "bands")] {
                            for threads in 1...3 {
                                let got = try pair.run(
                                    kernel, input: pair.input, reference: false,
                                    runner: ParallelRunner(threadCount: threads))
                                let differing = zip(expected, got.map(\.bitPattern)).filter { $0 != $1 }.count
                                #expect(
                                    differing == 0,
                                    "\(differing) values differ at \(threads) threads (\(name)): \(pair.description), seed \(seed)")
                            }
                        }
                        let reference = try pair.run(joined, input: pair.input, reference: true, runner: .serial)
                        #expect(
                            reference.map(\.bitPattern)
                                == (try pair.separate(reference: true, runner: .serial)).map(\.bitPattern),
                            "reference kernels: \(pair.description), seed \(seed)")
                    }
                }
            }
        }
    }

    /// The workspace holds a band and a panel for each thread that walks bands, the whole map
    /// otherwise; a thread count whose bands exceed `TensorShape.maxElements` floats is a typed
    /// error, not an overflow.
    @Test func workspaceForEveryThreadOrATypedError() throws {
        var rng = SeededGenerator(seed: 1)
        let pair = try Pair(
            size: (16, 9), inputChannels: 5, channels: 24, kernel: 3, stride: 1, padding: .same,
            instructionSet: .baseline, rng: &rng)
        let inTurn = try #require(
            ExpansionDepthwise(expansion: pair.expansion, depthwise: pair.depthwise, minimumExpandedFloats: 0))
        let inBands = try #require(
            ExpansionDepthwise(
                expansion: pair.expansion, depthwise: pair.depthwise, minimumExpandedFloats: 0,
                minimumBandedFloatsAtThreads: 0))
        let expanded = 16 * 9 * 24
        for threads in 1...4 {
            #expect(try inTurn.workspaceSize(threadCount: threads) >= expanded)
            #expect(try inBands.workspaceSize(threadCount: threads) >= threads * inBands.bandWorkspaceFloats)
        }
        #expect(try inBands.workspaceSize(threadCount: 4) > inBands.workspaceSize(threadCount: 1))
        #expect(throws: KernelError.self) { try inBands.workspaceSize(threadCount: Int.max) }
    }

    @Test func joinsOnlyWhatTheBandsTake() throws {
        var rng = SeededGenerator(seed: 1)
        func pair(channels: Int = 16, kernel: Int = 3, stride: Int = 1, size: (Int, Int) = (9, 9)) throws -> Pair {
            try Pair(
                size: size, inputChannels: 4, channels: channels, kernel: kernel, stride: stride, padding: .same,
                instructionSet: .baseline, rng: &rng)
        }
        let joinable = try pair()
        #expect(ExpansionDepthwise(expansion: joinable.expansion, depthwise: joinable.depthwise, minimumExpandedFloats: 0) != nil)
        // Below the default size: 9 × 9 × 16 floats.
        #expect(ExpansionDepthwise(expansion: joinable.expansion, depthwise: joinable.depthwise) == nil)
        // A filter the band kernels do not take, a stride they do not take, too few channels.
        for other in [try pair(kernel: 7), try pair(stride: 3), try pair(channels: 4)] {
            #expect(ExpansionDepthwise(expansion: other.expansion, depthwise: other.depthwise, minimumExpandedFloats: 0) == nil)
        }
        // A depthwise layer that does not read the expansion's shape.
        let elsewhere = try pair(size: (9, 8))
        #expect(ExpansionDepthwise(expansion: joinable.expansion, depthwise: elsewhere.depthwise, minimumExpandedFloats: 0) == nil)
        // An expansion with a fused ADD.
        let output = Operand(shape: joinable.expansion.outputShapes[0])
        let add = try Add.prepare(inputs: [output, output], options: .init())
        let withAdd = try #require(joinable.expansion.fusing(add: add, residualIsFirstOperand: false))
        #expect(ExpansionDepthwise(expansion: withAdd, depthwise: joinable.depthwise, minimumExpandedFloats: 0) == nil)
    }
}
