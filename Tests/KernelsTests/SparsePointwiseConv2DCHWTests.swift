import Foundation
import Tensor
import TestSupport
import Testing

@testable import Kernels

/// The sparse 1×1 convolution on channel-major tensors, for every kernel
/// family this CPU runs: its fast kernel bit-identical to the dense NHWC
/// convolution's fast kernel of the same family (after transposing) and
/// across thread counts, and close to its own reference kernel, which is
/// bit-identical to the dense convolution's reference kernel.
@Suite struct SparsePointwiseConv2DCHWTests {
    /// The kernel families to test: every one this process can run.
    static let families = KernelInstructionSet.supported

    /// One sparse 1×1 convolution with random data, its tensors channel-major.
    struct Problem: CustomStringConvertible {
        let batch: Int, height: Int, width: Int, inputChannels: Int, outputChannels: Int
        let activation: FusedActivation
        /// nil: no fused ADD; otherwise whether the residual is the ADD's first operand.
        let residualFirst: Bool?
        let addActivation: FusedActivation
        /// `[Cout, Cin]`: row 0 all zeros (when Cout > 2), row 1 (when there
        /// is one) all non-zero, the others at a random density in 0.1...0.5.
        let filter: [Float]
        /// `[Cout]`: −0 for channel 2 (when Cout > 3), so that its sums start from −0.
        let bias: [Float]
        /// `[N][Cin][P]`.
        let input: [Float]
        /// `[N][Cout][P]`, empty without an ADD.
        let residual: [Float]
        let conv: Conv2D

        var pixels: Int { height * width }

        init(
            batch: Int, pixels: Int, inputChannels: Int, outputChannels: Int,
            activation: FusedActivation, residualFirst: Bool?, addActivation: FusedActivation = .none,
            instructionSet: KernelInstructionSet, rng: inout SeededGenerator
        ) throws {
            // H·W = P with H the largest divisor of P not above its square root.
            let height = (1...pixels).last { pixels % $0 == 0 && $0 * $0 <= pixels } ?? 1
            self.batch = batch
            self.height = height
            self.width = pixels / height
            self.inputChannels = inputChannels
            self.outputChannels = outputChannels
            self.activation = activation
            self.residualFirst = residualFirst
            self.addActivation = addActivation
            var filter = [Float](repeating: 0, count: outputChannels * inputChannels)
            for oc in 0..<outputChannels {
                let density = oc == 0 && outputChannels > 2 ? 0 : oc == 1 ? 1 : Double.random(in: 0.1...0.5, using: &rng)
                for ic in 0..<inputChannels where Double.random(in: 0..<1, using: &rng) < density {
                    filter[oc * inputChannels + ic] = Float.random(in: -1...1, using: &rng)
                }
            }
            self.filter = filter
            var bias = rng.floats(outputChannels)
            if outputChannels > 3 { bias[2] = -0.0 }
            self.bias = bias
            input = rng.floats(batch * inputChannels * pixels)
            residual = residualFirst == nil ? [] : rng.floats(batch * outputChannels * pixels)
            let outputShape = [batch, height, pixels / height, outputChannels]
            var conv = try Conv2D.prepare(
                inputs: [
                    ConvTestSupport.activation([batch, height, pixels / height, inputChannels]),
                    ConvTestSupport.constant([outputChannels, 1, 1, inputChannels], filter),
                    ConvTestSupport.constant([outputChannels], bias),
                ],
                options: .init(padding: .same, activation: activation), instructionSet: instructionSet)
            if let residualFirst {
                let add = try Add.prepare(
                    inputs: [ConvTestSupport.activation(outputShape), ConvTestSupport.activation(outputShape)],
                    options: .init(activation: addActivation))
                conv = try #require(conv.fusing(add: add, residualIsFirstOperand: residualFirst))
            }
            self.conv = conv
        }

        var description: String {
            "N \(batch) P \(pixels) (\(height)×\(width)) Cin \(inputChannels) Cout \(outputChannels) "
                + "act \(activation) add \(residualFirst.map { $0 ? "residual first" : "residual second" } ?? "none") "
                + "add act \(addActivation)"
        }

        /// Runs `kernel` (fast or reference) on channel-major `input` and
        /// the residual; returns the output and whether nothing was written
        /// past it or past the workspace.
        func run(
            _ kernel: SparsePointwiseConv2DCHW, fast: Bool, runner: ParallelRunner
        ) throws -> (output: [Float], guardsIntact: Bool) {
            let source = GuardedBuffer(input)
            let extra = GuardedBuffer(residual)
            let placeholder = GuardedBuffer(count: 0)
            let output = GuardedBuffer(count: batch * outputChannels * pixels)
            output.pointer.update(repeating: .nan, count: output.count)
            let workspace = GuardedBuffer(count: try kernel.workspaceSize(threadCount: runner.threadCount))
            var inputs = [UnsafePointer(source.pointer), UnsafePointer(placeholder.pointer), UnsafePointer(placeholder.pointer)]
            if residualFirst != nil { inputs.append(UnsafePointer(extra.pointer)) }
            let io = KernelIO(
                inputs: inputs, outputs: [output.pointer],
                workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count))
            if fast { kernel.run(io, runner: runner) } else { kernel.runReference(io) }
            return (output.values, output.guardIntact && workspace.guardIntact)
        }

        /// The dense NHWC convolution's reference output, transposed to `[N][Cout][P]`.
        func denseReference() -> [Float] {
            let nhwcInput = transpose(input, rows: inputChannels, columns: pixels)
            var operands = [nhwcInput, [], []]
            if residualFirst != nil { operands.append(transpose(residual, rows: outputChannels, columns: pixels)) }
            let nhwc = runReference(conv, operands)
            return transpose(nhwc, rows: pixels, columns: outputChannels)
        }

        /// The dense NHWC convolution's fast output with `runner`'s threads,
        /// transposed to `[N][Cout][P]`.
        func denseFast(runner: ParallelRunner) throws -> [Float] {
            let source = GuardedBuffer(transpose(input, rows: inputChannels, columns: pixels))
            let extra = GuardedBuffer(residualFirst == nil ? [] : transpose(residual, rows: outputChannels, columns: pixels))
            let placeholder = GuardedBuffer(count: 0)
            let output = GuardedBuffer(count: batch * outputChannels * pixels)
            let workspace = GuardedBuffer(count: try conv.workspaceSize(threadCount: runner.threadCount))
            var inputs = [UnsafePointer(source.pointer), UnsafePointer(placeholder.pointer), UnsafePointer(placeholder.pointer)]
            if residualFirst != nil { inputs.append(UnsafePointer(extra.pointer)) }
            conv.run(
                KernelIO(
                    inputs: inputs, outputs: [output.pointer],
                    workspace: UnsafeMutableBufferPointer(start: workspace.pointer, count: workspace.count)),
                runner: runner)
            return transpose(output.values, rows: pixels, columns: outputChannels)
        }

        /// Each image of `values`, `[N][rows][columns]`, as `[N][columns][rows]`.
        func transpose(_ values: [Float], rows: Int, columns: Int) -> [Float] {
            var result = [Float](repeating: 0, count: values.count)
            for n in 0..<batch {
                let base = n * rows * columns
                for r in 0..<rows {
                    for c in 0..<columns { result[base + c * rows + r] = values[base + r * columns + c] }
                }
            }
            return result
        }

        /// How far two correct results for output channel `oc` may differ:
        /// two Float sums of the non-zero products and the bias each err by
        /// at most (n + 1)·ε·(Σ|w| + |b|) (inputs are in [−1, 1]); the clamps
        /// do not widen that, and the ADD of a residual in [−1, 1] rounds
        /// once more.
        func tolerance(channel oc: Int) -> Double {
            let row = filter[(oc * inputChannels)..<((oc + 1) * inputChannels)]
            let terms = row.reduce(0) { $1 != 0 ? $0 + 1 : $0 }
            let magnitude = row.reduce(Double(abs(bias[oc]))) { $0 + Double(abs($1)) }
            let epsilon = Double(Float.ulpOfOne)
            return 2 * Double(terms + 2) * epsilon * magnitude + 4 * epsilon * (magnitude + 1)
        }

        /// The first element of `actual` further than the tolerance from
        /// `expected`, in words; nil if none.
        func firstMismatch(_ actual: [Float], _ expected: [Float]) -> String? {
            guard actual.count == expected.count else { return "\(actual.count) values, expected \(expected.count)" }
            for i in actual.indices {
                let oc = i / pixels % outputChannels
                let tolerance = self.tolerance(channel: oc)
                if !(abs(Double(actual[i]) - Double(expected[i])) <= tolerance) {
                    return "element \(i) (channel \(oc), pixel \(i % pixels)): got \(actual[i]), expected \(expected[i]) ± \(tolerance)"
                }
            }
            return nil
        }

        /// Checks the fast kernel (1, 2 and 3 threads) against the dense fast
        /// kernel (bit for bit) and the reference kernel (within rounding),
        /// the reference kernel against the dense one, and that nothing is
        /// written out of bounds.
        func check(_ kernel: SparsePointwiseConv2DCHW, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let context = "\(self) \(kernel.instructionSet) blocks \(kernel.blockCount) packs \(kernel.packsInput) seed \(seed)"
            let reference = try run(kernel, fast: false, runner: .serial)
            let dense = denseReference()
            let unlikeDense = zip(reference.output, dense).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(
                unlikeDense == 0 && reference.output.count == dense.count,
                "reference differs from the dense reference in \(unlikeDense) values: \(context)",
                sourceLocation: sourceLocation)
            let serial = try run(kernel, fast: true, runner: .serial)
            let serialInBounds = serial.guardsIntact
            #expect(serialInBounds, "wrote out of bounds: \(context)", sourceLocation: sourceLocation)
            let mismatch = firstMismatch(serial.output, reference.output)
            #expect(mismatch == nil, "\(mismatch ?? ""): \(context)", sourceLocation: sourceLocation)
            let denseFast = try denseFast(runner: .serial)
            let unlikeDenseFast = zip(serial.output, denseFast).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(
                unlikeDenseFast == 0,
                "\(unlikeDenseFast) values differ from the dense fast kernel: \(context)",
                sourceLocation: sourceLocation)
            for threads in [2, 3] {
                let parallel = try run(kernel, fast: true, runner: ParallelRunner(threadCount: threads))
                let inBounds = parallel.guardsIntact
                #expect(inBounds, "wrote out of bounds, \(threads) threads: \(context)", sourceLocation: sourceLocation)
                let differing = zip(parallel.output, serial.output).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(differing) values differ from 1 thread with \(threads): \(context)", sourceLocation: sourceLocation)
            }
        }
    }

    static let pixelCounts = [1, 7, 15, 16, 17, 31, 32, 33, 49, 196, 784]

    /// The most multiply-adds one case of the sweep may take: the reference and
    /// dense checks run each case six times per family, so the few largest products
    /// (784 or 196 pixels with 1152 inputs and 96 outputs, over 70 % of all the work)
    /// would be most of the suite's time, under the address sanitizer most of CI's.
    /// Every P, Cin and Cout still meet in a case below it.
    static let maxCaseMultiplyAdds = 8_000_000

    /// Every P with every Cin and Cout up to `maxCaseMultiplyAdds`; activation,
    /// batch and ADD drawn at random per case (the whole list of each is swept
    /// across the cases).
    @Test(arguments: pixelCounts)
    func sweepMatchesReferenceAndDense(pixels: Int) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed ^ UInt64(pixels))
        var index = 0
        for family in Self.families {
            for inputChannels in [1, 3, 16, 24, 40, 112, 1152] {
                for outputChannels in [1, 2, 17, 96]
                where pixels * inputChannels * outputChannels <= Self.maxCaseMultiplyAdds {
                    try sweepCase(
                        family: family, pixels: pixels, inputChannels: inputChannels,
                        outputChannels: outputChannels, index: &index, seed: seed, rng: &rng)
                }
            }
        }
    }

    /// One case of `sweepMatchesReferenceAndDense`, the `index`-th.
    func sweepCase(
        family: KernelInstructionSet, pixels: Int, inputChannels: Int, outputChannels: Int,
        index: inout Int, seed: UInt64, rng: inout SeededGenerator
    ) throws {
        let activations: [FusedActivation] = [.none, .relu, .relu6]
        index += 1
        // Keep the largest cases (the dense reference sums every tap) to one image.
        let large = pixels * inputChannels * outputChannels > 4_000_000
        let problem = try Problem(
            batch: large ? 1 : 1 + index % 2, pixels: pixels, inputChannels: inputChannels,
            outputChannels: outputChannels, activation: activations[index % 3],
            residualFirst: [nil, true, false][(index / 3) % 3],
            addActivation: activations[(index / 2) % 3], instructionSet: family, rng: &rng)
        let kernel = try #require(
            SparsePointwiseConv2DCHW(problem.conv, maxDensity: 1), "\(problem) seed \(seed)")
        try problem.check(kernel, seed: seed)
    }

    /// Small blocks of input channels (partial sums carried between blocks),
    /// with and without packing the input rows, on every tile shape.
    @Test(arguments: [7, 17, 33, 49, 64, 65, 100, 196])
    func blocksAndPacking(pixels: Int) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed ^ UInt64(pixels))
        for family in Self.families {
            try blocksAndPacking(family: family, pixels: pixels, seed: seed, rng: &rng)
        }
    }

    /// `blocksAndPacking` for one kernel family.
    func blocksAndPacking(
        family: KernelInstructionSet, pixels: Int, seed: UInt64, rng: inout SeededGenerator
    ) throws {
        for (inputChannels, blockChannels) in [(40, 8), (37, 16), (112, 40)] {
            for residualFirst in [nil, true, false] {
                let problem = try Problem(
                    batch: 2, pixels: pixels, inputChannels: inputChannels, outputChannels: 19,
                    activation: .relu6, residualFirst: residualFirst, addActivation: .relu,
                    instructionSet: family, rng: &rng)
                for packs in [false, true] {
                    let kernel = try #require(
                        SparsePointwiseConv2DCHW(problem.conv, maxDensity: 1, blockChannels: blockChannels, packsInput: packs),
                        "\(problem) seed \(seed)")
                    #expect(kernel.blockCount == (inputChannels + blockChannels - 1) / blockChannels)
                    try problem.check(kernel, seed: seed)
                }
            }
        }
    }

    /// The branch-free test that picks the weights to keep says what `!= 0` says, for
    /// zeros of both signs, NaNs, infinities, subnormals and ordinary values.
    @Test func nonzeroBitIsWeightNotEqualToZero() {
        let specials: [Float] = [
            0, -0, .nan, -.nan, .signalingNaN, .infinity, -.infinity, .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 1, -1, 0.5,
        ]
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let randomBits = (0..<10_000).map { _ in Float(bitPattern: UInt32.random(in: .min ... .max, using: &rng)) }
        for weight in specials + randomBits {
            #expect(
                SparsePointwiseLists.nonzeroBit(weight) == (weight != 0 ? 1 : 0),
                "\(weight) (bits \(String(weight.bitPattern, radix: 16))), seed \(seed)")
        }
    }

    /// A weight store's lists are taken when they are lists this kernel can run on: an intact
    /// copy runs as the built kernel does; a copy whose counts, starts or offsets disagree
    /// (which could make the kernel read outside its input) is built afresh instead.
    @Test func storedListsAreTakenOnlyWhenTheyFitTheLayout() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let problem = try Problem(
            batch: 1, pixels: 33, inputChannels: 40, outputChannels: 19, activation: .relu,
            residualFirst: nil, instructionSet: .baseline, rng: &rng)
        for packs in [false, true] {
            func kernel() throws -> SparsePointwiseConv2DCHW {
                try #require(SparsePointwiseConv2DCHW(problem.conv, maxDensity: 1, blockChannels: 16, packsInput: packs))
            }
            let built = try kernel()
            let (keptCount, startCount) = (built.lists.keptCount, built.blockCount * 19 + 1)
            let offsetsStart = 2 + startCount + keptCount + 1
            /// The kernel made under a store holding the built lists with `damage` done to
            /// their words, and whether it took them.
            func reloaded(_ damage: (UnsafeMutablePointer<Int32>) -> Void) throws -> (SparsePointwiseConv2DCHW, Bool) {
                let words = built.lists.storage
                let copy = AlignedBuffer(count: words.count)
                copy.baseAddress.update(from: words.baseAddress, count: words.count)
                copy.baseAddress.withMemoryRebound(to: Int32.self, capacity: words.count, damage)
                let store = PackedWeightStore(reusable: [.init(scope: 0, ordinal: 0): copy])
                let reloaded = try PackedWeightStore.withScope(of: store, id: 0) { try kernel() }
                #expect(store.buffers.count == 1, "the lists are kept either way, seed \(seed)")
                return (reloaded, store.reusedCount == 1 && reloaded.lists.storage === copy)
            }
            let (intact, tookIntact) = try reloaded { _ in }
            #expect(tookIntact, "packs \(packs) seed \(seed)")
            try problem.check(intact, seed: seed)
            let damages: [(String, (UnsafeMutablePointer<Int32>) -> Void)] = [
                ("kept count", { $0[0] += 1 }),
                ("non-zero count above the kept", { $0[1] = $0[0] + 1 }),
                ("a start that decreases", { $0[2 + startCount / 2] = $0[2 + startCount / 2 + 1] + 1 }),
                ("the last start", { $0[2 + startCount - 1] -= 1 }),
                ("an offset below its block", { $0[offsetsStart] = -1 }),
                ("an offset past its block", { $0[offsetsStart + keptCount - 1] = Int32.max }),
            ]
            for (name, damage) in damages {
                let (rebuilt, took) = try reloaded(damage)
                #expect(!took, "\(name): taken, packs \(packs) seed \(seed)")
                #expect(rebuilt.lists.copies.offsets == built.lists.copies.offsets, "\(name) seed \(seed)")
            }
        }
    }

    /// Operator name, shapes and cost are the dense convolution's; density is counted.
    @Test func describesItself() throws {
        var rng = SeededGenerator(seed: 1)
        let plain = try Problem(
            batch: 2, pixels: 12, inputChannels: 8, outputChannels: 4, activation: .relu,
            residualFirst: nil, instructionSet: .baseline, rng: &rng)
        let kernel = try #require(SparsePointwiseConv2DCHW(plain.conv, maxDensity: 1))
        #expect(kernel.opName == "CONV_2D(sparse CHW)")
        #expect(kernel.outputShapes == plain.conv.outputShapes)
        #expect(kernel.multiplyAccumulates == 2 * 12 * 8 * 4)
        #expect(!kernel.readsConstantInputs)
        let nonzeros = plain.filter.filter { $0 != 0 }.count
        #expect(kernel.density == Double(nonzeros) / 32)
        // Channel 2's bias is −0: it keeps its zero weights (one value per input channel).
        let kept = nonzeros + plain.filter[16..<24].filter { $0 == 0 }.count
        #expect(kernel.lists.keptCount == kept && kernel.lists.copies.values.count == kept + 1)
        let fused = try Problem(
            batch: 1, pixels: 12, inputChannels: 8, outputChannels: 4, activation: .relu,
            residualFirst: true, instructionSet: .baseline, rng: &rng)
        #expect(try #require(SparsePointwiseConv2DCHW(fused.conv, maxDensity: 1)).opName == "CONV_2D(sparse CHW)+ADD")
        // 12 pixels are not a multiple of 16, so tiles are packed: every thread needs scratch,
        // and a thread count whose scratch exceeds a tensor's size is refused.
        #expect(try kernel.workspaceSize(threadCount: 2) == 2 * kernel.workspaceSize(threadCount: 1))
        #expect(try kernel.workspaceSize(threadCount: 1) > 0)
        #expect(throws: KernelError.self) { try kernel.workspaceSize(threadCount: Int.max) }
    }

    /// A filter just above and at `maxDensity`.
    @Test func densityLimit() throws {
        var filter = [Float](repeating: 0, count: 4 * 10)
        for i in 0..<20 { filter[i * 2] = 1 }  // half of the values
        let conv = try Conv2D.prepare(
            inputs: [
                ConvTestSupport.activation([1, 3, 3, 10]), ConvTestSupport.constant([4, 1, 1, 10], filter),
            ],
            options: .init(padding: .valid), instructionSet: .baseline)
        #expect(SparsePointwiseConv2DCHW(conv) != nil)
        #expect(SparsePointwiseConv2DCHW(conv, maxDensity: 0.49) == nil)
        var denser = filter
        denser[1] = 1
        let dense = try Conv2D.prepare(
            inputs: [
                ConvTestSupport.activation([1, 3, 3, 10]), ConvTestSupport.constant([4, 1, 1, 10], denser),
            ],
            options: .init(padding: .valid), instructionSet: .baseline)
        #expect(SparsePointwiseConv2DCHW(dense) == nil)
    }

    /// Convolutions the kernel does not cover.
    @Test func rejectsWhatItCannotRun() throws {
        var rng = SeededGenerator(seed: 2)
        let sparse = (0..<(4 * 9 * 6)).map { $0 % 5 == 0 ? Float(1) : 0 }
        // 3×3.
        let wide = try Conv2D.prepare(
            inputs: [ConvTestSupport.activation([1, 5, 5, 6]), ConvTestSupport.constant([4, 3, 3, 6], sparse)],
            options: .init(padding: .same), instructionSet: .baseline)
        #expect(SparsePointwiseConv2DCHW(wide, maxDensity: 1) == nil)
        // 1×1 with stride 2.
        let strided = try Conv2D.prepare(
            inputs: [
                ConvTestSupport.activation([1, 6, 6, 6]),
                ConvTestSupport.constant([4, 1, 1, 6], Array(sparse.prefix(24))),
            ],
            options: .init(padding: .same, strideH: 2, strideW: 2), instructionSet: .baseline)
        #expect(SparsePointwiseConv2DCHW(strided, maxDensity: 1) == nil)
        // A fused PRELU.
        let problem = try Problem(
            batch: 1, pixels: 9, inputChannels: 6, outputChannels: 4, activation: .none,
            residualFirst: nil, instructionSet: .baseline, rng: &rng)
        let output = ConvTestSupport.activation([1, 3, 3, 4])
        let alpha = ConvTestSupport.constant([4], rng.floats(4))
        let prelu = try Prelu.prepare(inputs: [output, alpha])
        let withPrelu = try #require(problem.conv.fusing(prelu: prelu, alpha: alpha))
        #expect(SparsePointwiseConv2DCHW(problem.conv, maxDensity: 1) != nil)
        #expect(SparsePointwiseConv2DCHW(withPrelu, maxDensity: 1) == nil)
    }
}
