import FlatBufferReader
import Kernels
import Tensor

/// A model made ready to run, without the memory it runs in: kernels
/// prepared (weights packed), operators fused, the constants that kernels read
/// through their inputs copied out, and the activation arena and scratch
/// memory sized. It keeps nothing of the model or its bytes, which can be
/// released as soon as it exists.
///
/// An `Interpreter` gives it an arena and a scratch buffer of its own
/// (`Interpreter.init(model:options:)`), or the same ones as other models that
/// never run at the same time (`Interpreter.sharingMemory(_:)`).
package struct PreparedModel {
    /// One operator that runs at invoke time, with its tensor indices.
    struct Node {
        let kernel: any PreparedKernel
        let inputs: [Int]
        let outputs: [Int]
    }

    let options: Interpreter.Options
    let nodes: [Node]
    /// Storage of the constants that kernels read through `KernelIO.inputs`
    /// (as floats; int32 values keep their bit patterns) and of constant
    /// graph outputs, by tensor index.
    let constants: [Int: AlignedBuffer]
    /// The offset in floats of every tensor that lives in the arena, by tensor index.
    let arenaOffsets: [Int: Int]
    /// Floats of activation memory (`MemoryPlan.arenaCount`).
    let arenaCount: Int
    /// Floats of scratch memory the fast kernels need (0 in reference mode).
    let workspaceCount: Int
    let inputs: [Interpreter.TensorDescription]
    let outputs: [Interpreter.TensorDescription]
    let summary: ModelSummary

    /// Prepares `model` as `Interpreter.init(model:options:)` does, throwing
    /// the same `InterpreterError`s.
    ///
    /// With `options.weightCache`, the packed weights are taken from the
    /// model's cache file where it has them, and the file is written anew when
    /// any had to be packed. The file is named by the model's source
    /// (`ModelBytes.sourceIdentity`: a file's identity, not its bytes), or by
    /// its bytes where the source has no identity.
    init(model: TFLiteModel, options: Interpreter.Options) throws {
        let fusesOperators = options.mode == .fast && options.fusesOperators
        let cached = options.weightCache.map { cache in
            (cache: cache, entry: WeightCache.Entry(
                fingerprint: model.bytes.sourceIdentity.map(ModelFingerprint.init(identity:))
                    ?? model.bytes.withUnsafeBytes(ModelFingerprint.init(of:)),
                modelByteCount: model.bytes.count, instructionSet: options.instructionSet,
                fusesOperators: fusesOperators, usesSparseKernels: options.usesSparseKernels,
                skippedOutputs: options.skippedOutputs))
        }
        let weightStore = cached.map { $0.cache.store(for: $0.entry) }
        // Nothing to map: every weight is about to be read, to be packed.
        if let weightStore, !weightStore.hasReusableBuffers { model.bytes.populatePages() }
        let plan = try LoadPlan(
            model: model, readsWeights: true, instructionSet: options.instructionSet,
            fusesOperators: fusesOperators, usesSparseKernels: options.usesSparseKernels,
            threadCount: options.threadCount, weightStore: weightStore,
            pointwiseDepthwiseRounding: options.pointwiseDepthwiseRounding, skippedOutputs: options.skippedOutputs)
        if let cached, let weightStore, weightStore.freshlyPackedCount > 0 {
            cached.cache.save(weightStore, for: cached.entry)
        }
        weightStore?.releasePagesOfUnusedBuffers()
        let nodes = plan.nodes.map { node in
            guard case .kernel(let kernel) = node.prepared else {
                preconditionFailure("a load that reads weights prepares a kernel for every operator")
            }
            return Node(kernel: kernel, inputs: node.inputs, outputs: node.outputs)
        }
        var arenaOffsets: [Int: Int] = [:]
        for (k, tensorIndex) in plan.plannedTensors.enumerated() {
            arenaOffsets[tensorIndex] = plan.memoryPlan.offsets[k]
        }

        // Constants the kernels read, and constant graph outputs, which still
        // need readable storage. Kernels that packed their constants at
        // prepare time read a placeholder instead (`Interpreter.init`).
        var constantInputs = Set<Int>()
        for node in nodes where node.kernel.readsConstantInputs {
            constantInputs.formUnion(node.inputs.filter { arenaOffsets[$0] == nil })
        }
        constantInputs.formUnion(plan.computedOutputs.filter { arenaOffsets[$0] == nil })
        var constants: [Int: AlignedBuffer] = [:]
        for tensorIndex in constantInputs {
            switch try plan.constants.value(of: tensorIndex)! {
            case .float32(let values): constants[tensorIndex] = AlignedBuffer(values)
            case .compressedRows(let rows): constants[tensorIndex] = AlignedBuffer(rows.densified())
            case .int32(let values):
                constants[tensorIndex] = AlignedBuffer(values.map { Float(bitPattern: UInt32(bitPattern: $0)) })
            case .unreadFloat32: preconditionFailure("a load that reads weights has no unread constants")
            case .float16: preconditionFailure("ConstantTensors.value(of:) widens float16 constants")
            }
        }

        // One scratch buffer serves every operator: they run one after another.
        var workspaceCount = 0
        if options.mode == .fast {
            let threads = max(1, options.threadCount)  // as the interpreter's `ParallelRunner` counts them
            for (index, node) in nodes.enumerated() {
                do {
                    workspaceCount = max(workspaceCount, try node.kernel.workspaceSize(threadCount: threads))
                } catch let error as KernelError {
                    throw InterpreterError.invalidOperator(index: index, error: error)
                }
            }
        }

        self.options = options
        self.nodes = nodes
        self.constants = constants
        self.arenaOffsets = arenaOffsets
        self.arenaCount = plan.memoryPlan.arenaCount
        self.workspaceCount = workspaceCount
        self.inputs = plan.subgraph.inputs.map(plan.describe)
        self.outputs = plan.subgraph.outputs.map(plan.describe)
        self.summary = plan.summary
    }
}
