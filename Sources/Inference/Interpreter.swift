import FlatBufferReader
import Kernels
import Tensor

/// Runs the first subgraph of a verified TFLite model.
///
/// Loading verifies the file, folds DEQUANTIZE/DENSIFY into constants,
/// prepares (validates and packs) every kernel and plans one arena for all
/// activations. The interpreter then holds the packed weights, the arena and
/// the kernels' scratch memory, and nothing of the model file. `invoke`
/// allocates nothing.
///
/// Thread safety: not `Sendable`. An `Interpreter` holds mutable tensor memory
/// and must be used from one thread at a time; it may move from one thread to
/// another when the hand-over is synchronised (a lock or a serial queue, as the
/// landmarkers do). Create one per thread for parallel use: interpreters share
/// no mutable state (except those made together by `sharingMemory(_:)`, which
/// are used as one). `invoke` spreads its work over the interpreter's own
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
        /// (pose_detection; see `ChannelMajorRegions`). The sparse 1×1
        /// kernel skips the zero weights but sums in the dense kernel's
        /// order, so it gives the dense output bit for bit for finite
        /// inputs. Models without such filters are unaffected.
        public var usesSparseKernels: Bool
        /// Where packed weights are saved for the next load of the same
        /// model, and looked for by this one (`WeightCache`); nil, the
        /// default, packs every load afresh and saves nothing. The outputs
        /// are the same either way.
        public var weightCache: WeightCache?
        /// How the fast kernel of a pointwise DEPTHWISE_CONV_2D (a 1×1 filter, stride 1,
        /// depth multiplier 1) rounds: `.fused`, the default, gives LiteRT 2.3.0's XNNPACK
        /// bit for bit; `.separate` gives MediaPipe 0.10.21's XNNPACK, which its holistic
        /// graph runs `hand_recrop` with (`PointwiseDepthwiseRounding`).
        public var pointwiseDepthwiseRounding: PointwiseDepthwiseRounding
        /// Graph outputs the caller will not read, by position in `outputs`: the operators
        /// that only they need are neither prepared nor run (pose_landmark_full's
        /// segmentation head when no mask is asked for), as operators that feed no output
        /// never are. The other outputs are computed as before, bit for bit; reading a
        /// skipped one throws `InterpreterError.outputNotComputed`. Loading throws
        /// `InterpreterError.noSuchTensor` for a position the model does not have.
        public var skippedOutputs: Set<Int>

        public init(
            threadCount: Int = 1, mode: ExecutionMode = .fast,
            instructionSet: KernelInstructionSet = .detected, fusesOperators: Bool = true,
            usesSparseKernels: Bool = true, weightCache: WeightCache? = nil,
            pointwiseDepthwiseRounding: PointwiseDepthwiseRounding = .fused, skippedOutputs: Set<Int> = []
        ) {
            self.pointwiseDepthwiseRounding = pointwiseDepthwiseRounding
            self.skippedOutputs = skippedOutputs
            self.threadCount = threadCount
            self.mode = mode
            self.instructionSet = instructionSet
            self.fusesOperators = fusesOperators
            self.usesSparseKernels = usesSparseKernels
            self.weightCache = weightCache
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
    /// Activation memory; also owns graph inputs and outputs. Shared with
    /// the other interpreters of `sharingMemory(_:)`.
    private let arena: AlignedBuffer
    /// Storage of the constants the kernels read.
    private let constantStorage: [AlignedBuffer]
    /// Scratch memory shared by the operators' fast kernels (and by the
    /// other interpreters of `sharingMemory(_:)`).
    private let workspace: AlignedBuffer
    /// Where each graph input and output lives.
    private let tensorPointers: [Int: UnsafeMutablePointer<Float>]

    /// Loads and prepares a model from a file, mapped into memory while it loads.
    public convenience init(contentsOfFile path: String, options: Options = Options()) throws {
        // The model (and its mapping) is released before the arena is allocated. With a
        // weight cache, the file's pages are read as needed: those of the weights that the
        // cache has packed already need not be read at all.
        let bytes = { try ModelBytes(contentsOfFile: path, populatesPages: options.weightCache == nil) }
        self.init(try PreparedModel(model: Self.verified { try TFLiteModel(bytes: bytes()) }, options: options))
    }

    /// Loads and prepares a model from bytes in memory.
    public convenience init(bytes: [UInt8], options: Options = Options()) throws {
        self.init(try PreparedModel(model: Self.verified { try TFLiteModel(bytes: ModelBytes(bytes: bytes)) }, options: options))
    }

    /// Prepares an already-verified model. The interpreter keeps no reference
    /// to `model`: the weights it runs with are packed copies, so the model's
    /// bytes can be released once it exists.
    public convenience init(model: TFLiteModel, options: Options = Options()) throws {
        self.init(try PreparedModel(model: model, options: options))
    }

    /// An interpreter running `prepared` with an arena, a scratch buffer and
    /// worker threads of its own.
    private convenience init(_ prepared: PreparedModel) {
        self.init(
            prepared, runner: ParallelRunner(threadCount: prepared.options.threadCount),
            arena: AlignedBuffer(count: prepared.arenaCount), workspace: AlignedBuffer(count: prepared.workspaceCount))
    }

    /// An interpreter running `prepared` with activations in `arena` and
    /// scratch memory in `workspace`, which must hold at least
    /// `prepared.arenaCount` and `prepared.workspaceCount` floats.
    private init(_ prepared: PreparedModel, runner: ParallelRunner, arena: AlignedBuffer, workspace: AlignedBuffer) {
        precondition(arena.count >= prepared.arenaCount && workspace.count >= prepared.workspaceCount,
                     "the arena or the scratch buffer is smaller than the model needs")
        self.options = prepared.options
        self.runner = runner
        self.inputs = prepared.inputs
        self.outputs = prepared.outputs
        self.summary = prepared.summary
        self.arena = arena
        self.workspace = workspace
        var pointers: [Int: UnsafeMutablePointer<Float>] = [:]
        for (tensorIndex, offset) in prepared.arenaOffsets {
            pointers[tensorIndex] = arena.baseAddress + offset
        }
        for (tensorIndex, buffer) in prepared.constants {
            pointers[tensorIndex] = buffer.baseAddress
        }
        // Kernels that keep their own copy of their constants get a placeholder instead.
        let placeholder = AlignedBuffer(count: 0)
        self.nodes = prepared.nodes.map { node in
            Node(kernel: node.kernel, io: KernelIO(
                inputs: node.inputs.map { tensorIndex in
                    UnsafePointer(pointers[tensorIndex] ?? placeholder.baseAddress)
                },
                outputs: node.outputs.map { pointers[$0]! },
                workspace: workspace.buffer))
        }
        self.constantStorage = Array(prepared.constants.values) + [placeholder]
        self.tensorPointers = pointers
    }

    /// Prepares the model in `bytes` as `init(model:options:)` does, reading
    /// the bytes only during the call: the result keeps nothing of them.
    /// `sourceIdentity` names the bytes for the weight cache without reading
    /// them (`ModelBytes.sourceIdentity`); nil to go by their content.
    /// Throws `InterpreterError` (`.invalidModel` when the bytes are not a
    /// valid model).
    package static func prepare(
        borrowing bytes: UnsafeRawBufferPointer, sourceIdentity: [UInt64]? = nil, options: Options
    ) throws -> PreparedModel {
        try PreparedModel(
            model: verified { try TFLiteModel(bytes: ModelBytes(borrowing: bytes, sourceIdentity: sourceIdentity)) },
            options: options)
    }

    /// The model `load` returns, with its `ModelError` reported as `InterpreterError.invalidModel`.
    private static func verified(_ load: () throws -> TFLiteModel) throws -> TFLiteModel {
        do {
            return try load()
        } catch let error as ModelError {
            throw InterpreterError.invalidModel(error)
        }
    }

    /// Interpreters for `models` that share one activation arena, one scratch
    /// buffer and one set of worker threads, each sized for the largest need
    /// (a landmarker's detector and landmark model, which run one after the
    /// other): memory for the largest model rather than for all of them.
    ///
    /// They must be used one at a time, as if they were one interpreter:
    /// never invoked concurrently, and an `invoke` of one overwrites the
    /// inputs and outputs of all the others, so set an interpreter's inputs
    /// and read its outputs around its own `invoke`, before another one runs.
    package static func sharingMemory(_ models: [PreparedModel]) -> [Interpreter] {
        let arena = AlignedBuffer(count: models.map(\.arenaCount).max() ?? 0)
        let workspace = AlignedBuffer(count: models.map(\.workspaceCount).max() ?? 0)
        let runner = ParallelRunner(threadCount: models.map(\.options.threadCount).max() ?? 1)
        return models.map { model in
            Interpreter(model, runner: runner.limited(to: model.options.threadCount), arena: arena, workspace: workspace)
        }
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
        try validate(model: model, skippedOutputs: [])
    }

    /// `validate(model:)` for a load that skips the outputs `skippedOutputs`
    /// (`Options.skippedOutputs`): the summary such a load would report.
    package static func validate(model: TFLiteModel, skippedOutputs: Set<Int>) throws -> ModelSummary {
        try LoadPlan(
            model: model, readsWeights: false, instructionSet: .detected, fusesOperators: false,
            skippedOutputs: skippedOutputs
        ).summary
    }

    /// What each graph output of the model file at `path` alone costs: the operators (as a
    /// `.reference` load counts them) and multiply-accumulates that a load skipping it leaves
    /// out, in output order. One validation of the graph per output, no weight read; nil for
    /// a model of more than `maxOutputs` outputs, whose validations could take minutes.
    package static func costOfEachOutput(
        contentsOfFile path: String, maxOutputs: Int
    ) throws -> [(operators: Int, multiplyAccumulates: Int)]? {
        let model = try verified { try TFLiteModel(bytes: ModelBytes(contentsOfFile: path, populatesPages: false)) }
        guard (model.subgraphs.first?.outputs.count ?? 0) <= maxOutputs else { return nil }
        let whole = try validate(model: model)
        return try model.subgraphs.first.map { subgraph in
            try subgraph.outputs.indices.map { k in
                let skipping = try validate(model: model, skippedOutputs: [k])
                return (whole.preparedOperatorCount - skipping.preparedOperatorCount,
                        whole.multiplyAccumulates - skipping.multiplyAccumulates)
            }
        } ?? []
    }

    /// `validate(model:)` for model bytes in memory, verified first.
    public static func validate(bytes: [UInt8]) throws -> ModelSummary {
        try validate(model: verified { try TFLiteModel(bytes: ModelBytes(bytes: bytes)) })
    }

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

    /// Gives read access to output `index` as computed by the last `invoke`. Throws
    /// `InterpreterError.outputNotComputed` for an output of `options.skippedOutputs`.
    public func withOutputBuffer<R>(
        at index: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R
    ) throws -> R {
        guard outputs.indices.contains(index) else { throw InterpreterError.noSuchTensor("output \(index)") }
        let description = outputs[index]
        guard let start = tensorPointers[description.tensorIndex], !options.skippedOutputs.contains(index) else {
            throw InterpreterError.outputNotComputed(output: description.name, index: index)
        }
        return try body(UnsafeBufferPointer(start: start, count: description.shape.elementCount))
    }

    /// A copy of output `index` (row-major, the output's shape).
    public func output(at index: Int) throws -> [Float] {
        try withOutputBuffer(at: index) { Array($0) }
    }

    // MARK: - Running

    /// The threads `invoke` spreads its work over (`options.threadCount` of them), for work
    /// that prepares the model's input, such as a landmarker's crop: idle between invocations.
    package var workers: ParallelRunner { runner }

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
