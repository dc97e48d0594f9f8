import Glibc
import Tensor
import TestSupport
import Testing

@testable import Kernels

/// A CONV_2D with a fused ADD, PRELU and/or RELU against the four operators
/// run one after another: the fused kernel must give the same bits.
@Suite struct ConvolutionFusionTests {
    /// One convolution with its ADD, PRELU and RELU, random data.
    struct Chain {
        let conv: Conv2D, add: Add, prelu: Prelu, relu: Relu
        let alpha: Operand
        let input: [Float], residual: [Float], alphaValues: [Float]
        let description: String

        /// With `float16Filters`, every filter value is a float16 value, so that the GEMM packs
        /// float16 panels and widens them as it goes. With `nanInput`, one input value is NaN,
        /// which a RELU turns into +0 and a clamp keeps.
        init(
            size: (Int, Int), inputChannels: Int, outputChannels: Int, kernel: Int, stride: Int,
            activation: FusedActivation, addActivation: FusedActivation, float16Filters: Bool = false,
            nanInput: Bool = false, instructionSet: KernelInstructionSet, rng: inout SeededGenerator
        ) throws {
            let inputShape = TensorShape(validated: [1, size.0, size.1, inputChannels])
            let filterShape = TensorShape(validated: [outputChannels, kernel, kernel, inputChannels])
            conv = try Conv2D.prepare(
                inputs: [
                    Operand(shape: inputShape),
                    Operand(
                        shape: filterShape,
                        constant: .float32(
                            rng.floats(filterShape.elementCount).map { float16Filters ? Float(Float16($0)) : $0 })),
                    Operand(
                        shape: TensorShape(validated: [outputChannels]),
                        constant: .float32(rng.floats(outputChannels))),
                ],
                options: .init(padding: .same, strideH: stride, strideW: stride, activation: activation),
                instructionSet: instructionSet)
            let output = Operand(shape: conv.outputShapes[0])
            add = try Add.prepare(inputs: [output, output], options: .init(activation: addActivation))
            alphaValues = rng.floats(outputChannels)
            alpha = Operand(
                shape: TensorShape(validated: [1, 1, outputChannels]), constant: .float32(alphaValues))
            prelu = try Prelu.prepare(inputs: [output, alpha])
            relu = try Relu.prepare(inputs: [output], options: NoOptions())
            var input = rng.floats(inputShape.elementCount)
            if nanInput { input[input.count / 2] = .nan }
            self.input = input
            residual = rng.floats(conv.outputShapes[0].elementCount)
            description = "\(size.0)×\(size.1)×\(inputChannels) → \(outputChannels) k\(kernel) s\(stride) "
                + "\(activation) + ADD \(addActivation) \(float16Filters ? "float16 " : "")filters"
                + (nanInput ? " NaN input" : "") + " \(instructionSet)"
        }

        /// One kernel of a chain and the operand it reads besides the
        /// previous output (first or after it), if any.
        struct Stage {
            var kernel: any PreparedKernel
            var extra: [Float]? = nil
            var extraFirst = false
        }

        /// Runs `stages` one after another (each reading the previous
        /// one's output) and returns the last output. With `extrasAtPageEnd`, each stage's
        /// extra operand ends right before a page no one may read (`PageEndFloats`).
        func run(
            _ stages: [Stage], reference: Bool, runner: ParallelRunner, extrasAtPageEnd: Bool = false
        ) throws -> [Float] {
            let source = GuardedBuffer(input)
            let placeholder = GuardedBuffer(count: 0)
            var current = source
            var keep: [GuardedBuffer] = [source, placeholder]
            var pageEnds: [PageEndFloats] = []
            defer { withExtendedLifetime(pageEnds) {} }
            for stage in stages {
                let output = GuardedBuffer(count: stage.kernel.outputShapes[0].elementCount)
                var inputs = [UnsafePointer(current.pointer)]
                if stage.kernel is Conv2D {
                    inputs += [UnsafePointer(placeholder.pointer), UnsafePointer(placeholder.pointer)]
                }
                if let extra = stage.extra {
                    let pointer: UnsafeMutablePointer<Float>
                    if extrasAtPageEnd {
                        pageEnds.append(PageEndFloats(extra))
                        pointer = pageEnds.last!.pointer
                    } else {
                        keep.append(GuardedBuffer(extra))
                        pointer = keep.last!.pointer
                    }
                    inputs.insert(UnsafePointer(pointer), at: stage.extraFirst ? 0 : inputs.count)
                }
                let workspace = GuardedBuffer(
                    count: try stage.kernel.workspaceSize(threadCount: runner.threadCount))
                keep += [output, workspace]
                let io = KernelIO(
                    inputs: inputs, outputs: [output.pointer],
                    workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count))
                if reference { stage.kernel.runReference(io) } else { stage.kernel.run(io, runner: runner) }
                #expect(output.guardIntact, "wrote past the end: \(description)")
                current = output
            }
            return current.values
        }
    }

    func check(
        _ chain: Chain, fuseAdd: Bool, fusePrelu: Bool, fuseRelu: Bool, residualFirst: Bool, seed: UInt64
    ) throws {
        typealias Stage = Chain.Stage
        var stages = [Stage(kernel: chain.conv)]
        var fused = chain.conv
        if fuseAdd {
            stages.append(Stage(kernel: chain.add, extra: chain.residual, extraFirst: residualFirst))
            fused = try #require(fused.fusing(add: chain.add, residualIsFirstOperand: residualFirst))
        }
        if fusePrelu {
            stages.append(Stage(kernel: chain.prelu, extra: chain.alphaValues))
            fused = try #require(fused.fusing(prelu: chain.prelu, alpha: chain.alpha))
        }
        if fuseRelu {
            stages.append(Stage(kernel: chain.relu))
            fused = try #require(fused.fusing(relu: chain.relu))
        }
        let context = "\(chain.description) add=\(fuseAdd) first=\(residualFirst) prelu=\(fusePrelu) "
            + "relu=\(fuseRelu) seed \(seed)"
        #expect(
            fused.opName == "CONV_2D" + (fuseAdd ? "+ADD" : "") + (fusePrelu ? "+PRELU" : "") + (fuseRelu ? "+RELU" : ""))
        let fusedStages = [Stage(kernel: fused, extra: fuseAdd ? chain.residual : nil)]
        for runner in [ParallelRunner.serial, ParallelRunner(threadCount: 2)] {
            let separate = try chain.run(stages, reference: false, runner: runner).map(\.bitPattern)
            let together = try chain.run(fusedStages, reference: false, runner: runner).map(\.bitPattern)
            let differing = zip(separate, together).filter { $0 != $1 }.count
            #expect(differing == 0, "\(differing) elements differ, \(runner.threadCount) threads: \(context)")
        }
        let separate = try chain.run(stages, reference: true, runner: .serial).map(\.bitPattern)
        let together = try chain.run(fusedStages, reference: true, runner: .serial).map(\.bitPattern)
        #expect(separate == together, "reference kernels: \(context)")
    }

    @Test(arguments: KernelInstructionSet.supported)
    func fusedAddPreluAndReluGiveTheSameBitsAsSeparateOperators(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        // Output widths: dot products (1), the 8-wide panel, whole and partial 16- and 32-wide panels
        // (28: a two-vector panel whose second vector is partial, finished as the last whole vector
        // of its columns). Rows of 15 and 8 output pixels: whole tiles, which finish in registers,
        // and partial ones; one pixel: the one-row tile.
        for outputs in [1, 2, 5, 8, 17, 24, 28, 40, 64, 65] {
            for (size, (kernel, stride), float16Filters) in [
                ((7, 15), (1, 1), false), ((7, 15), (3, 1), false), ((7, 15), (3, 2), false),
                ((7, 15), (1, 1), true), ((7, 15), (3, 1), true), ((1, 1), (1, 1), true), ((1, 1), (3, 1), false),
            ] {
                let chain = try Chain(
                    size: size, inputChannels: 11, outputChannels: outputs, kernel: kernel, stride: stride,
                    activation: outputs % 2 == 0 ? .relu6 : .none,
                    addActivation: outputs % 3 == 0 ? .relu : .none, float16Filters: float16Filters,
                    nanInput: outputs % 5 == 0, instructionSet: instructionSet, rng: &rng)
                for (fuseAdd, fusePrelu, fuseRelu) in [
                    (true, true, false), (true, false, false), (false, true, false),
                    (false, false, true), (true, false, true), (true, true, true),
                ] {
                    for residualFirst in fuseAdd ? [false, true] : [false] {
                        try check(
                            chain, fuseAdd: fuseAdd, fusePrelu: fusePrelu, fuseRelu: fuseRelu,
                            residualFirst: residualFirst, seed: seed)
                    }
                }
            }
        }
    }

    /// A partial GEMM tile (its last rows, or columns past the output's last channel) applies
    /// its ADD in registers, reading whole vectors of the residual past its own rows and columns,
    /// only where those reads stay inside the residual. Here the residual ends right before a
    /// page no one may read: a read past it ends the run with a signal.
    @Test(arguments: KernelInstructionSet.supported)
    func partialTilesReadTheResidualOnlyInsideIt(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for outputs in [5, 17, 24, 28, 45, 65] {
            for size in [(7, 15), (3, 5), (1, 1)] {
                let chain = try Chain(
                    size: size, inputChannels: 11, outputChannels: outputs, kernel: 1, stride: 1,
                    activation: .none, addActivation: .none, instructionSet: instructionSet, rng: &rng)
                let fused = try #require(chain.conv.fusing(add: chain.add, residualIsFirstOperand: false))
                let separate = try chain.run(
                    [Chain.Stage(kernel: chain.conv), Chain.Stage(kernel: chain.add, extra: chain.residual)],
                    reference: false, runner: .serial)
                let together = try chain.run(
                    [Chain.Stage(kernel: fused, extra: chain.residual)], reference: false, runner: .serial,
                    extrasAtPageEnd: true)
                #expect(
                    separate.map(\.bitPattern) == together.map(\.bitPattern),
                    "\(chain.description), seed \(seed)")
            }
        }
    }

    @Test func fusionRefusesWhatItCannotFold() throws {
        var rng = SeededGenerator(seed: 1)
        let chain = try Chain(
            size: (4, 4), inputChannels: 3, outputChannels: 6, kernel: 1, stride: 1, activation: .none,
            addActivation: .none, instructionSet: .baseline, rng: &rng)
        let output = Operand(shape: chain.conv.outputShapes[0])
        // An ADD that broadcasts its other operand.
        let broadcasting = try Add.prepare(
            inputs: [output, Operand(shape: TensorShape(validated: [6]))], options: .init())
        #expect(chain.conv.fusing(add: broadcasting, residualIsFirstOperand: false) == nil)
        // An alpha that is not one value per channel, or not a constant.
        let wide = Operand(shape: TensorShape(validated: [4, 6]), constant: .float32(rng.floats(24)))
        #expect(chain.conv.fusing(prelu: try Prelu.prepare(inputs: [output, wide]), alpha: wide) == nil)
        let variable = Operand(shape: TensorShape(validated: [6]))
        #expect(chain.conv.fusing(prelu: try Prelu.prepare(inputs: [output, variable]), alpha: variable) == nil)
        // Only one ADD and one PRELU.
        let withAdd = try #require(chain.conv.fusing(add: chain.add, residualIsFirstOperand: true))
        #expect(withAdd.fusing(add: chain.add, residualIsFirstOperand: true) == nil)
        let withPrelu = try #require(withAdd.fusing(prelu: chain.prelu, alpha: chain.alpha))
        #expect(withPrelu.fusing(prelu: chain.prelu, alpha: chain.alpha) == nil)
        #expect(withPrelu.fusing(add: chain.add, residualIsFirstOperand: true) == nil)
        // One RELU, last: nothing is fused after it.
        let withRelu = try #require(chain.conv.fusing(relu: chain.relu))
        #expect(withRelu.fusing(relu: chain.relu) == nil)
        #expect(withRelu.fusing(prelu: chain.prelu, alpha: chain.alpha) == nil)
        #expect(withRelu.fusing(add: chain.add, residualIsFirstOperand: true) == nil)
        // A RELU of another shape.
        let other = try Relu.prepare(inputs: [Operand(shape: TensorShape(validated: [1, 4, 4, 5]))], options: NoOptions())
        #expect(chain.conv.fusing(relu: other) == nil)
    }
}

/// A zero PAD folded into the convolution that reads it, against the PAD
/// and the convolution run one after the other.
@Suite struct PaddingFoldingTests {
    /// Runs `kernel` on `input` (its first operand) and returns output 0.
    static func run(_ kernel: any PreparedKernel, _ input: [Float], extra: [Float]? = nil) throws -> [Float] {
        let source = GuardedBuffer(input)
        let placeholder = GuardedBuffer(count: 0)
        let second = extra.map { GuardedBuffer($0) }
        let output = GuardedBuffer(count: kernel.outputShapes[0].elementCount)
        let workspace = GuardedBuffer(count: try kernel.workspaceSize(threadCount: 2))
        var inputs = [UnsafePointer(source.pointer)]
        inputs.append(UnsafePointer(second?.pointer ?? placeholder.pointer))
        inputs.append(UnsafePointer(placeholder.pointer))
        let io = KernelIO(
            inputs: inputs, outputs: [output.pointer],
            workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count))
        kernel.run(io, runner: ParallelRunner(threadCount: 2))
        #expect(output.guardIntact)
        return withExtendedLifetime((source, placeholder, second, workspace)) { output.values }
    }

    static func pad(_ shape: [Int], _ paddings: [Int32]) throws -> Pad {
        try Pad.prepare(inputs: [
            Operand(shape: TensorShape(validated: shape)),
            Operand(shape: TensorShape(validated: [4, 2]), constant: .int32(paddings)),
        ])
    }

    @Test(arguments: KernelInstructionSet.supported)
    func foldedPaddingGivesTheSameOutputs(_ instructionSet: KernelInstructionSet) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (size, channels, kernel, stride, pads) in [
            (9, 24, 3, 2, [1, 1, 1, 1]), (12, 40, 5, 1, [2, 2, 2, 2]), (10, 17, 5, 2, [2, 1, 0, 2]),
            (7, 3, 3, 2, [1, 1, 1, 1]),
        ] {
            let shape = [1, size, size + 1, channels]
            let pad = try Self.pad(shape, [0, 0, Int32(pads[0]), Int32(pads[1]), Int32(pads[2]), Int32(pads[3]), 0, 0])
            let padded = Operand(shape: pad.outputShapes[0])
            let input = rng.floats(shape.reduce(1, *))
            let paddedInput = try Self.run(pad, input)
            let context = "\(shape) pad \(pads) k\(kernel) s\(stride) \(instructionSet) seed \(seed)"

            let depthwise = try DepthwiseConv2D.prepare(
                inputs: [
                    padded,
                    Operand(
                        shape: TensorShape(validated: [1, kernel, kernel, channels]),
                        constant: .float32(rng.floats(kernel * kernel * channels))),
                    Operand(shape: TensorShape(validated: [channels]), constant: .float32(rng.floats(channels))),
                ],
                options: .init(padding: .valid, strideH: stride, strideW: stride, activation: .relu6),
                instructionSet: instructionSet)
            let foldedDepthwise = try #require(depthwise.foldingPadding(of: pad))
            #expect(foldedDepthwise.opName == "PAD+DEPTHWISE_CONV_2D")
            #expect(try Self.run(foldedDepthwise, input) == Self.run(depthwise, paddedInput), "depthwise \(context)")

            let outputs = channels + 5
            let conv = try Conv2D.prepare(
                inputs: [
                    padded,
                    Operand(
                        shape: TensorShape(validated: [outputs, kernel, kernel, channels]),
                        constant: .float32(rng.floats(outputs * kernel * kernel * channels))),
                    Operand(shape: TensorShape(validated: [outputs]), constant: .float32(rng.floats(outputs))),
                ],
                options: .init(padding: .same, strideH: stride, strideW: stride), instructionSet: instructionSet)
            let foldedConv = try #require(conv.foldingPadding(of: pad))
            #expect(foldedConv.opName == "PAD+CONV_2D")
            #expect(try Self.run(foldedConv, input) == Self.run(conv, paddedInput), "conv \(context)")
        }
    }

    @Test func onlyRowAndColumnPaddingOfTheConvolutionsInputFolds() throws {
        let shape = [1, 6, 6, 4]
        func depthwise(input: [Int]) throws -> DepthwiseConv2D {
            try DepthwiseConv2D.prepare(
                inputs: [
                    Operand(shape: TensorShape(validated: input)),
                    Operand(
                        shape: TensorShape(validated: [1, 3, 3, 4]),
                        constant: .float32(.init(repeating: 1, count: 36))),
                ],
                options: .init(padding: .valid))
        }
        let spatial = try Self.pad(shape, [0, 0, 1, 1, 1, 1, 0, 0])
        #expect(try depthwise(input: [1, 8, 8, 4]).foldingPadding(of: spatial) != nil)
        // Padding channels or the batch, or a PAD whose output is not the convolution's input.
        let channelPad = try Self.pad([1, 6, 6, 2], [0, 0, 0, 0, 0, 0, 1, 1])
        #expect(try depthwise(input: [1, 6, 6, 4]).foldingPadding(of: channelPad) == nil)
        let batchPad = try Self.pad([1, 8, 8, 4], [1, 0, 0, 0, 0, 0, 0, 0])
        #expect(try depthwise(input: [2, 8, 8, 4]).foldingPadding(of: batchPad) == nil)
        #expect(try depthwise(input: [1, 9, 8, 4]).foldingPadding(of: spatial) == nil)
        // Folded once only.
        let folded = try #require(try depthwise(input: [1, 8, 8, 4]).foldingPadding(of: spatial))
        #expect(folded.foldingPadding(of: spatial) == nil)
    }
}

/// Floats that end right before a page the process may not read: a kernel that reads past their
/// end stops the run with a signal, where a read past a heap buffer would go unnoticed.
final class PageEndFloats {
    let pointer: UnsafeMutablePointer<Float>
    private let base: UnsafeMutableRawPointer
    private let length: Int

    init(_ values: [Float]) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let bytes = (values.count * MemoryLayout<Float>.size + page - 1) / page * page
        length = bytes + page
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            mapped != MAP_FAILED, mprotect(mapped + bytes, page, PROT_NONE) == 0
        else { fatalError("cannot map \(length) bytes with an unreadable last page") }
        base = mapped
        pointer = (mapped + bytes - values.count * MemoryLayout<Float>.size).bindMemory(to: Float.self, capacity: values.count)
        pointer.update(from: values, count: values.count)
    }

    deinit { munmap(base, length) }
}
