import Tensor
import Testing

@testable import Kernels

/// A CONV_2D with a fused ADD and/or PRELU against the three operators run
/// one after another: the fused kernel must give the same bits.
@Suite struct ConvolutionFusionTests {
    /// One convolution with its ADD and PRELU, random data.
    struct Chain {
        let conv: Conv2D, add: Add, prelu: Prelu
        let alpha: Operand
        let input: [Float], residual: [Float], alphaValues: [Float]
        let description: String

        init(
            size: (Int, Int), inputChannels: Int, outputChannels: Int, kernel: Int, stride: Int,
            activation: FusedActivation, addActivation: FusedActivation,
            instructionSet: KernelInstructionSet, rng: inout SeededGenerator
        ) throws {
            let inputShape = TensorShape(validated: [1, size.0, size.1, inputChannels])
            let filterShape = TensorShape(validated: [outputChannels, kernel, kernel, inputChannels])
            conv = try Conv2D.prepare(
                inputs: [
                    Operand(shape: inputShape),
                    Operand(shape: filterShape, constant: .float32(rng.floats(filterShape.elementCount))),
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
            input = rng.floats(inputShape.elementCount)
            residual = rng.floats(conv.outputShapes[0].elementCount)
            description = "\(size.0)×\(size.1)×\(inputChannels) → \(outputChannels) k\(kernel) s\(stride) "
                + "\(activation) + ADD \(addActivation) \(instructionSet)"
        }

        /// One kernel of a chain and the operand it reads besides the
        /// previous output (first or after it), if any.
        struct Stage {
            var kernel: any PreparedKernel
            var extra: [Float]? = nil
            var extraFirst = false
        }

        /// Runs `stages` one after another (each reading the previous
        /// one's output) and returns the last output.
        func run(_ stages: [Stage], reference: Bool, runner: ParallelRunner) throws -> [Float] {
            let source = GuardedBuffer(input)
            let placeholder = GuardedBuffer(count: 0)
            var current = source
            var keep: [GuardedBuffer] = [source, placeholder]
            for stage in stages {
                let output = GuardedBuffer(count: stage.kernel.outputShapes[0].elementCount)
                var inputs = [UnsafePointer(current.pointer)]
                if stage.kernel is Conv2D {
                    inputs += [UnsafePointer(placeholder.pointer), UnsafePointer(placeholder.pointer)]
                }
                if let extra = stage.extra {
                    let buffer = GuardedBuffer(extra)
                    keep.append(buffer)
                    inputs.insert(UnsafePointer(buffer.pointer), at: stage.extraFirst ? 0 : inputs.count)
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

    func check(_ chain: Chain, fuseAdd: Bool, fusePrelu: Bool, residualFirst: Bool, seed: UInt64) throws {
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
        let context = "\(chain.description) add=\(fuseAdd) first=\(residualFirst) prelu=\(fusePrelu) seed \(seed)"
        #expect(fused.opName == "CONV_2D" + (fuseAdd ? "+ADD" : "") + (fusePrelu ? "+PRELU" : ""))
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
    func fusedAddAndPreluGiveTheSameBitsAsSeparateOperators(_ instructionSet: KernelInstructionSet) throws {
        let seed = sweepSeed()
        var rng = SeededGenerator(seed: seed)
        // Output widths: dot products (2), the 8-wide panel, whole and partial 16- and 32-wide panels.
        for outputs in [2, 5, 8, 17, 24, 40, 64, 65] {
            for (kernel, stride) in [(1, 1), (3, 2)] {
                let chain = try Chain(
                    size: (7, 9), inputChannels: 11, outputChannels: outputs, kernel: kernel, stride: stride,
                    activation: outputs % 2 == 0 ? .relu6 : .none,
                    addActivation: outputs % 3 == 0 ? .relu : .none,
                    instructionSet: instructionSet, rng: &rng)
                for (fuseAdd, fusePrelu) in [(true, true), (true, false), (false, true)] {
                    for residualFirst in fuseAdd ? [false, true] : [false] {
                        try check(
                            chain, fuseAdd: fuseAdd, fusePrelu: fusePrelu, residualFirst: residualFirst, seed: seed)
                    }
                }
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
    }
}
