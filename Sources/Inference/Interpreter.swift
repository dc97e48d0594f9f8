import FlatBufferReader
import Kernels
import Tensor

/// Runs the first subgraph of a verified TFLite model.
///
/// Loading verifies the file, folds DEQUANTIZE/DENSIFY into constants,
/// prepares (validates and packs) every kernel and plans one arena for all
/// activations. `invoke` then allocates nothing.
///
/// Thread safety: not `Sendable`. An `Interpreter` holds mutable tensor memory
/// and must be used from one thread at a time; it may move from one thread to
/// another when the hand-over is synchronised (a lock or a serial queue, as the
/// landmarkers do). Create one per thread for parallel use: interpreters share
/// no mutable state. `invoke` spreads its work over the interpreter's own
/// worker threads and returns only when they are done.
public final class Interpreter {
    /// Which kernels `invoke` runs.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    public enum ExecutionMode: String, Sendable, CaseIterable {
        /// The fastest kernel of each op, spread over `threadCount` threads.
        case fast
        /// The plain reference kernels, on the calling thread.
        case reference
    }

    /// How the interpreter runs: threads and kernels.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    public struct Options: Sendable {
        /// Threads the fast kernels split their output over (at least 1).
        public var threadCount: Int
        public var mode: ExecutionMode
        /// The microkernel family of the fast convolution and fully connected
        /// kernels; by default the fastest this CPU supports
        /// (`KernelInstructionSet.detected`). With one this CPU does not
        /// support, loading throws `InterpreterError.invalidOperator` at the
        /// first such operator. Both families give identical results.
        public var instructionSet: KernelInstructionSet
        /// In fast mode, fold a zero PAD into the convolutions that read it
        /// and the ADD and PRELU that finish a CONV_2D into its kernel
        /// (`OperatorFusion`). The outputs are the same either way; folding
        /// saves passes over whole tensors.
        public var fusesOperators: Bool
        /// In fast mode with operators fused and the AVX-512 kernels, run the
        /// parts of the graph made of 1×1 convolutions whose filters are
        /// mostly zeros as sparse kernels on channel-major tensors
        /// (pose_detection; see `ChannelMajorRegions`). Their sums skip the
        /// zero weights, so outputs differ from the dense kernels' by float
        /// rounding only. Models without such filters are unaffected.
        public var usesSparseKernels: Bool

        public init(
            threadCount: Int = 1, mode: ExecutionMode = .fast,
            instructionSet: KernelInstructionSet = .detected, fusesOperators: Bool = true,
            usesSparseKernels: Bool = true
        ) {
            self.threadCount = threadCount
            self.mode = mode
            self.instructionSet = instructionSet
            self.fusesOperators = fusesOperators
            self.usesSparseKernels = usesSparseKernels
        }
    }

    /// A graph input or output.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    public struct TensorDescription: Sendable {
        /// The tensor's name in the file.
        public let name: String
        public let shape: TensorShape
        /// The tensor's index in the subgraph.
        public let tensorIndex: Int
    }

    /// One operator that runs at invoke time.
    private struct Node {
        let kernel: any PreparedKernel
        let io: KernelIO
    }

    public let inputs: [TensorDescription]
    public let outputs: [TensorDescription]
    public let summary: ModelSummary
    public let options: Options

    private let nodes: [Node]
    private let runner: ParallelRunner
    /// Activation memory; also owns graph inputs and outputs.
    private let arena: AlignedBuffer
    /// Storage of the constants the kernels read.
    private let constantStorage: [AlignedBuffer]
    /// Scratch memory shared by the operators' fast kernels.
    private let workspace: AlignedBuffer
    /// The model is kept alive for its memory-mapped bytes.
    private let model: TFLiteModel

    /// Loads and prepares a model from a file (memory-mapped).
    public convenience init(contentsOfFile path: String, options: Options = Options()) throws {
        let model: TFLiteModel
        do {
            model = try TFLiteModel(contentsOfFile: path)
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
        try self.init(model: model, options: options)
    }

    /// Loads and prepares a model from bytes in memory.
    public convenience init(bytes: [UInt8], options: Options = Options()) throws {
        let model: TFLiteModel
        do {
            model = try TFLiteModel(bytes: ModelBytes(bytes: bytes))
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
        try self.init(model: model, options: options)
    }

    /// Prepares an already-verified model.
    public init(model: TFLiteModel, options: Options = Options()) throws {
        let plan = try LoadPlan(
            model: model, readsWeights: true, instructionSet: options.instructionSet,
            fusesOperators: options.mode == .fast && options.fusesOperators,
            usesSparseKernels: options.usesSparseKernels)
        self.model = model
        self.options = options
        self.runner = ParallelRunner(threadCount: options.threadCount)
        let subgraph = plan.subgraph
        let constants = plan.constants
        let prepared = plan.nodes.map { node in
            guard case .kernel(let kernel) = node.prepared else {
                preconditionFailure("a load that reads weights prepares a kernel for every operator")
            }
            return (kernel: kernel, inputs: node.inputs, outputs: node.outputs)
        }
        self.inputs = subgraph.inputs.map(plan.describe)
        self.outputs = subgraph.outputs.map(plan.describe)

        let arena = AlignedBuffer(count: plan.memoryPlan.arenaCount)
        self.arena = arena
        var pointers: [Int: UnsafeMutablePointer<Float>] = [:]
        for (k, tensorIndex) in plan.plannedTensors.enumerated() {
            pointers[tensorIndex] = arena.baseAddress + plan.memoryPlan.offsets[k]
        }

        // Constants the kernels read, as float storage (int32 bit patterns kept).
        var storage: [AlignedBuffer] = []
        func constantPointer(_ tensorIndex: Int) -> UnsafeMutablePointer<Float> {
            if let pointer = pointers[tensorIndex] { return pointer }
            let buffer: AlignedBuffer
            switch constants.values[tensorIndex]! {
            case .float32(let values): buffer = AlignedBuffer(values)
            case .int32(let values): buffer = AlignedBuffer(values.map { Float(bitPattern: UInt32(bitPattern: $0)) })
            case .unreadFloat32: preconditionFailure("a load that reads weights has no unread constants")
            }
            storage.append(buffer)
            pointers[tensorIndex] = buffer.baseAddress
            return buffer.baseAddress
        }
        // One scratch buffer serves every operator: they run one after another.
        var workspaceCount = 0
        if options.mode == .fast {
            for (index, node) in prepared.enumerated() {
                do {
                    workspaceCount = max(workspaceCount, try node.kernel.workspaceSize(threadCount: runner.threadCount))
                } catch let error as KernelError {
                    throw InterpreterError.invalidOperator(index: index, error: error)
                }
            }
        }
        let workspace = AlignedBuffer(count: workspaceCount)
        self.workspace = workspace
        // Kernels that keep their own copy of their constants get a placeholder instead.
        let placeholder = AlignedBuffer(count: 0)
        self.nodes = prepared.map { node in
            Node(kernel: node.kernel, io: KernelIO(
                inputs: node.inputs.map { tensorIndex in
                    if !node.kernel.readsConstantInputs && constants.values[tensorIndex] != nil {
                        return UnsafePointer(placeholder.baseAddress)
                    }
                    return UnsafePointer(constantPointer(tensorIndex))
                },
                outputs: node.outputs.map { pointers[$0]! },
                workspace: workspace.buffer))
        }
        // A graph output that is itself a constant still needs readable storage.
        for tensorIndex in subgraph.outputs where pointers[tensorIndex] == nil {
            _ = constantPointer(tensorIndex)
        }
        storage.append(placeholder)
        self.constantStorage = storage
        self.tensorPointers = pointers
        self.summary = plan.summary
    }

    /// Checks that `model` would load as `init(model:options:)` loads it with
    /// `.reference` mode, and returns the summary that load would report,
    /// without building anything that only running needs: float weights are
    /// neither decoded nor packed (their byte counts, shapes and every
    /// operator's checks still apply, and the packed sizes are still checked),
    /// and the activation arena is planned but not allocated. Throws the
    /// `InterpreterError` such a load would throw. Meant for fuzzing and for
    /// checking many files quickly; a fast-mode load also sizes the fast
    /// kernels' scratch memory, which this does not check.
    public static func validate(model: TFLiteModel) throws -> ModelSummary {
        try LoadPlan(model: model, readsWeights: false, instructionSet: .detected, fusesOperators: false).summary
    }

    /// `validate(model:)` for model bytes in memory, verified first.
    public static func validate(bytes: [UInt8]) throws -> ModelSummary {
        let model: TFLiteModel
        do {
            model = try TFLiteModel(bytes: ModelBytes(bytes: bytes))
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
        return try validate(model: model)
    }

    private let tensorPointers: [Int: UnsafeMutablePointer<Float>]

    // MARK: - Inputs and outputs

    /// The position in `inputs` of the input named `name`.
    public func inputIndex(named name: String) throws -> Int {
        guard let index = inputs.firstIndex(where: { $0.name == name }) else {
            throw InterpreterError.noSuchTensor("input named '\(name)'")
        }
        return index
    }

    /// The position in `outputs` of the output named `name`.
    public func outputIndex(named name: String) throws -> Int {
        guard let index = outputs.firstIndex(where: { $0.name == name }) else {
            throw InterpreterError.noSuchTensor("output named '\(name)'")
        }
        return index
    }

    /// Copies `values` (row-major, the input's shape) into input `index`.
    public func setInput(_ values: [Float], at index: Int = 0) throws {
        try withInputBuffer(at: index) { buffer in
            guard values.count == buffer.count else {
                throw InterpreterError.inputSizeMismatch(
                    input: inputs[index].name, expected: buffer.count, got: values.count)
            }
            _ = buffer.update(fromContentsOf: values)
        }
    }

    /// Gives write access to input `index`'s memory (row-major, the input's shape).
    public func withInputBuffer<R>(
        at index: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R
    ) throws -> R {
        guard inputs.indices.contains(index) else { throw InterpreterError.noSuchTensor("input \(index)") }
        let description = inputs[index]
        return try body(UnsafeMutableBufferPointer(
            start: tensorPointers[description.tensorIndex]!, count: description.shape.elementCount))
    }

    /// Gives read access to output `index` as computed by the last `invoke`.
    public func withOutputBuffer<R>(
        at index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R
    ) throws -> R {
        guard outputs.indices.contains(index) else { throw InterpreterError.noSuchTensor("output \(index)") }
        let description = outputs[index]
        return try body(UnsafeBufferPointer(
            start: tensorPointers[description.tensorIndex]!, count: description.shape.elementCount))
    }

    /// A copy of output `index` (row-major, the output's shape).
    public func output(at index: Int) throws -> [Float] {
        try withOutputBuffer(at: index) { Array($0) }
    }

    // MARK: - Running

    /// Runs every operator once on the current inputs. Allocates nothing.
    public func invoke() {
        switch options.mode {
        case .fast:
            for node in nodes { node.kernel.run(node.io, runner: runner) }
        case .reference:
            for node in nodes { node.kernel.runReference(node.io) }
        }
    }

    /// Runs the operators one by one and reports each one's wall time, for
    /// profiling, in execution order. Allocates nothing besides what `body` does.
    public func invokeProfiled(_ body: (OperatorTiming) -> Void) {
        let clock = ContinuousClock()
        for (index, node) in nodes.enumerated() {
            let start = clock.now
            switch options.mode {
            case .fast: node.kernel.run(node.io, runner: runner)
            case .reference: node.kernel.runReference(node.io)
            }
            let elapsed = clock.now - start
            body(OperatorTiming(
                index: index, opName: node.kernel.opName, outputShape: node.kernel.outputShapes.first,
                multiplyAccumulates: node.kernel.multiplyAccumulates,
                seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18))
        }
    }
}
