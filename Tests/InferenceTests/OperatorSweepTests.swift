import FlatBufferReader
import Kernels
import Tensor
import TestSupport
import Testing

@testable import Inference

/// One sweep over every operator the registry prepares, every kernel family this CPU runs
/// (`KernelInstructionSet.supported`, each channel-last and with its channel-major regions)
/// and the shapes the model benchmarks time: every operator of the models of `ModelGoldenTests`
/// (and of its models with custom operators), prepared as the
/// interpreter prepares it (fused, padding folded, weights packed), run alone on seeded random
/// activations (uniform in -1...1); the registry's declared ops that no model uses, at a map of
/// the models' size (`standaloneOperators`): a new op is swept with no line here.
///
/// For each operator the fast kernel, run into buffers of NaN sentinels with a guard zone after
/// them, writes every element and nothing past the end and gives the same bits with 1, 2, 3 and
/// 7 threads and in every family. The ops no model uses also stay within
/// `relativeTolerance × max(1, max |reference|)` of their reference kernels; the models' ops
/// meet their references at these shapes in ModelGoldenTests (every output of every model in
/// reference mode against LiteRT's reference kernels; the custom operators against their own
/// references in KernelsTests), which keeps this sweep to a few seconds
/// in a debug build. Each op's own sweep, in KernelsTests, covers its edge cases and its
/// exactness against XNNPACK.
@Suite struct OperatorSweepTests {
    static let threadCounts = [1, 2, 3, 7]
    /// Fast against reference, relative to the output's largest magnitude: the transcendental
    /// ops' fast forms (XNNPACK's) differ from the C library's in the last bits.
    static let relativeTolerance: Float = 1e-5

    /// The op of the registry that `kernel` runs: its name without a folded "PAD+", fused
    /// "+ADD"/"+PRELU" and a layout note such as "(CHW)".
    static func registryOp(of kernel: any PreparedKernel) -> String {
        var name = Substring(kernel.opName)
        if name.hasPrefix("PAD+") { name = name.dropFirst(4) }
        return String(name.prefix { $0 != "+" && $0 != "(" })
    }

    /// The models swept: those with goldens and those with custom operators.
    static let models = ModelGoldenTests.allModels

    /// The registry ops the nodes of those models run.
    static func opsInModels() throws -> Set<String> {
        try Set(models.flatMap { model in
            try PreparedModel(
                model: try TFLiteModel(contentsOfFile: try Fixtures.model(model)),
                options: .init(threadCount: 1, instructionSet: .baseline, usesSparseKernels: false)
            ).nodes.map { registryOp(of: $0.kernel) }
        })
    }

    /// The registry's declared ops (`OperatorRegistry.descriptors`) that no node of those
    /// models runs, each prepared with its options' schema defaults (no options table) on a
    /// 64×64 map of 24 channels, the size of palm_detection's and pose_landmark_full's early
    /// layers: as a one-input op, or else as an element-wise op of two maps. Returns the
    /// kernels, and the names of the ops that take neither form.
    static func standaloneOperators() throws -> (kernels: [any PreparedKernel], unprepared: [String]) {
        let inModels = try opsInModels()
        let map = Operand(shape: TensorShape(validated: [1, 64, 64, 24]))
        var kernels: [any PreparedKernel] = []
        var unprepared: [String] = []
        for descriptor in OperatorRegistry.descriptors where !inModels.contains(descriptor.name) {
            let noTable = OptionsTable.absent(location: "sweep")
            func kernel(_ inputs: [Operand]) -> (any PreparedKernel)? {
                guard case .kernel(let kernel)? = try? descriptor.prepare(inputs: inputs, optionsTable: noTable)
                else { return nil }
                return kernel
            }
            if let kernel = kernel([map]) ?? kernel([map, map]) {
                kernels.append(kernel)
            } else {
                unprepared.append(descriptor.name)
            }
        }
        return (kernels, unprepared)
    }

    /// Every op `OperatorRegistry.prepare` gives a kernel runs in this sweep: in a model, or
    /// on its own.
    @Test func everyRegistryOperatorIsSwept() throws {
        var swept = try Self.opsInModels()
        let standalone = try Self.standaloneOperators()
        #expect(standalone.unprepared.isEmpty,
                "declared ops that no model uses and that prepare neither on one map nor on two: \(standalone.unprepared)")
        swept.formUnion(standalone.kernels.map(Self.registryOp))
        let missing = OperatorRegistry.operators.filter { !swept.contains($0) }
        #expect(missing.isEmpty, "ops of the registry that no sweep runs: \(missing)")
    }

    @Test(arguments: models)
    func everyOperatorOfTheModelInEveryFamily(model: String) throws {
        let file = try TFLiteModel(contentsOfFile: try Fixtures.model(model))
        let seed = SeededGenerator.seed("\(#function) \(model)")
        // Per layout (channel-last, or with channel-major regions): the first family's operators and outputs.
        var firstFamily: [Bool: (names: [String], outputs: [[Float]])] = [:]
        for family in KernelInstructionSet.supported {
            var channelLastNames: [String] = []
            for regions in [false, true] {
                let prepared = try PreparedModel(
                    model: file, options: .init(threadCount: 1, instructionSet: family, usesSparseKernels: regions))
                let names = prepared.nodes.map(\.kernel.opName)
                if !regions { channelLastNames = names }
                if regions && names == channelLastNames { continue }  // no region forms in this model
                if let first = firstFamily[regions] {
                    try #require(first.names == names, "\(model): \(family) prepares other operators")
                }
                var rng = SeededGenerator(seed: seed)
                let arena = AlignedBuffer(rng.floats(prepared.arenaCount))
                var outputs: [[Float]] = []
                for (index, node) in prepared.nodes.enumerated() {
                    let inputs = node.inputs.map { tensorIndex -> UnsafePointer<Float> in
                        if let offset = prepared.arenaOffsets[tensorIndex] { return UnsafePointer(arena.baseAddress + offset) }
                        if let constant = prepared.constants[tensorIndex] { return UnsafePointer(constant.baseAddress) }
                        return UnsafePointer(arena.baseAddress)  // a constant the kernel packed and does not read
                    }
                    outputs.append(try Self.sweep(
                        node.kernel, inputs: inputs, expected: firstFamily[regions]?.outputs[index], checksReference: false,
                        "\(model) node \(index) \(node.kernel.opName), \(family)\(regions ? ", regions" : ""), seed \(seed)"))
                }
                withExtendedLifetime(arena) {}
                if firstFamily[regions] == nil { firstFamily[regions] = (names, outputs) }
            }
        }
    }

    @Test func operatorsNoModelUses() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for kernel in try Self.standaloneOperators().kernels {
            let map = kernel.outputShapes[0].elementCount
            let buffers = [AlignedBuffer(rng.floats(map).map { 4 * $0 }), AlignedBuffer(rng.floats(map).map { 4 * $0 })]
            var first: [Float]? = nil
            for family in KernelInstructionSet.supported {  // one kernel for all families; run once per family all the same
                first = try Self.sweep(
                    kernel, inputs: buffers.map { UnsafePointer($0.baseAddress) }, expected: first, checksReference: true,
                    "\(kernel.opName), \(family), seed \(seed)")
            }
            withExtendedLifetime(buffers) {}
        }
    }

    /// Runs `kernel`'s fast kernel with every one of `threadCounts` on `inputs` (and its reference
    /// once, when `checksReference`), expects what the suite promises, and returns the fast
    /// output (all outputs, one after another). `expected`: another family's output, which every
    /// run must equal bit for bit.
    static func sweep(
        _ kernel: any PreparedKernel, inputs: [UnsafePointer<Float>], expected: [Float]?, checksReference: Bool,
        _ context: String
    ) throws -> [Float] {
        let counts = kernel.outputShapes.map(\.elementCount)
        let starts = counts.indices.map { counts[..<$0].reduce(0, +) }
        let total = counts.reduce(0, +)
        let workspace = AlignedBuffer(count: try threadCounts.map { try kernel.workspaceSize(threadCount: $0) }.max()!)
        func run(threads: Int, into output: UnsafeMutablePointer<Float>) {
            let io = KernelIO(inputs: inputs, outputs: starts.map { output + $0 }, workspace: workspace.buffer)
            kernel.run(io, runner: ParallelRunner(threadCount: threads))
        }
        guard let expected else {
            // The first family: its one-thread output, into zeros, is what every run must give,
            // into buffers of NaN sentinels, so an element left unwritten differs.
            let first = GuardedBuffer(count: total)
            first.pointer.update(repeating: 0, count: total)
            run(threads: 1, into: first.pointer)
            #expect(first.guardIntact, "wrote past the end with 1 thread: \(context)")
            let output = first.values
            if checksReference {
                let reference = GuardedBuffer(count: total)
                kernel.runReference(KernelIO(inputs: inputs, outputs: starts.map { reference.pointer + $0 }))
                let scale = max(1, reference.values.lazy.filter(\.isFinite).map(abs).max() ?? 0)
                var worst: Float = 0
                for (fast, exact) in zip(output, reference.values) where fast != exact && !(fast.isNaN && exact.isNaN) {
                    worst = max(worst, fast.isNaN || exact.isNaN ? .infinity : abs(fast - exact))
                }
                #expect(worst <= relativeTolerance * scale,
                        "max |fast − reference| \(worst) > \(relativeTolerance) × \(scale): \(context)")
            }
            expectFastOutput(
                outputCount: total, equals: output, name: "1 thread", threadCounts: threadCounts, fast: run, context)
            return output
        }
        expectFastOutput(
            outputCount: total, equals: expected, name: "the first family", threadCounts: threadCounts, fast: run, context)
        return expected
    }
}
