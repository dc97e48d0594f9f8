import FlatBufferReader
import Kernels
import Tensor

/// Runs the first subgraph of a verified TFLite model.
///
/// Loading verifies the file, folds DEQUANTIZE/DENSIFY into constants,
/// prepares (validates and packs) every kernel and plans one arena for all
/// activations. `invoke` then allocates nothing.
///
/// Thread safety: an `Interpreter` holds mutable tensor memory and must be
/// used from one thread at a time; create one per thread for parallel use.
public final class Interpreter {
    /// Which kernels `invoke` runs.
    public enum ExecutionMode: String, Sendable, CaseIterable {
        /// The fastest kernel of each op, spread over `threadCount` threads.
        case fast
        /// The plain reference kernels, on the calling thread.
        case reference
    }

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

        public init(
            threadCount: Int = 1, mode: ExecutionMode = .fast,
            instructionSet: KernelInstructionSet = .detected, fusesOperators: Bool = true
        ) {
            self.threadCount = threadCount
            self.mode = mode
            self.instructionSet = instructionSet
            self.fusesOperators = fusesOperators
        }
    }

    /// A graph input or output.
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
        guard let subgraph = model.subgraphs.first else { throw InterpreterError.noSubgraph }
        self.model = model
        self.options = options
        self.runner = ParallelRunner(threadCount: options.threadCount)

        let shapes = try subgraph.tensors.map { tensor in
            do {
                return try TensorShape(tensor.shape.map(Int.init))
            } catch {
                throw InterpreterError.invalidShape(tensor: tensor.name, detail: "\(error)")
            }
        }
        var constants = try ConstantTensors(model: model, subgraph: subgraph, shapes: shapes)

        // Prepare every operator that is not folded into a constant.
        var prepared: [PreparedNode] = []
        var histogram: [String: Int] = [:]
        for (index, op) in subgraph.operators.enumerated() {
            let builtin = model.operatorCodes[op.opcodeIndex].builtin
            histogram[builtin.description, default: 0] += 1
            if try constants.fold(op, builtin: builtin, index: index) { continue }

            let inputIndices = op.inputs.filter { $0 >= 0 }
            var operands: [Operand] = []
            for tensorIndex in inputIndices {
                let tensor = subgraph.tensors[tensorIndex]
                if let value = constants.values[tensorIndex] {
                    operands.append(Operand(shape: shapes[tensorIndex], constant: value))
                } else if constants.isConstant(tensorIndex) {
                    throw InterpreterError.unsupportedOption(
                        index: index, op: builtin.description,
                        detail: "sparse input '\(tensor.name)' without a DENSIFY operator")
                } else {
                    guard tensor.type == .float32 else {
                        throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "\(tensor.type)")
                    }
                    operands.append(Operand(shape: shapes[tensorIndex]))
                }
            }
            let kernel = try OperatorRegistry.prepare(
                builtin: builtin, options: op.options, operands: operands, index: index,
                instructionSet: options.instructionSet)
            guard kernel.outputShapes.count == op.outputs.count else {
                throw InterpreterError.invalidOperator(index: index, error: KernelError(
                    op: builtin.description,
                    "has \(op.outputs.count) outputs, the kernel produces \(kernel.outputShapes.count)"))
            }
            for (k, tensorIndex) in op.outputs.enumerated() {
                let tensor = subgraph.tensors[tensorIndex]
                guard tensor.type == .float32 else {
                    throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "\(tensor.type)")
                }
                let computed = kernel.outputShapes[k]
                if computed.elementCount != shapes[tensorIndex].elementCount {
                    throw InterpreterError.outputShapeMismatch(
                        index: index, op: builtin.description, tensor: tensor.name,
                        declared: shapes[tensorIndex].dimensions, computed: computed.dimensions)
                }
            }
            prepared.append((kernel, inputIndices, op.outputs))
        }

        // Parameters count the constants of the operators in the file, fused or not.
        var parameters = 0
        for node in prepared {
            for tensorIndex in node.inputs {
                if case .float32(let values)? = constants.values[tensorIndex] { parameters += values.count }
            }
        }
        if options.mode == .fast && options.fusesOperators {
            prepared = OperatorFusion.fuse(
                prepared, constants: constants.values, isConstant: constants.isConstant, shapes: shapes,
                graphOutputs: subgraph.outputs)
        }

        // Graph inputs and outputs.
        func describe(_ tensorIndex: Int) -> TensorDescription {
            TensorDescription(
                name: subgraph.tensors[tensorIndex].name, shape: shapes[tensorIndex], tensorIndex: tensorIndex)
        }
        for tensorIndex in subgraph.inputs {
            let tensor = subgraph.tensors[tensorIndex]
            guard tensor.type == .float32 else {
                throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "\(tensor.type)")
            }
        }
        self.inputs = subgraph.inputs.map(describe)
        self.outputs = subgraph.outputs.map(describe)

        // Plan the activation arena: graph inputs and outputs live for the whole
        // invocation so they can be set before and read after it.
        let end = prepared.count
        var lifetimes: [Int: (first: Int, last: Int)] = [:]
        for tensorIndex in subgraph.inputs { lifetimes[tensorIndex] = (0, end) }
        for (nodeIndex, node) in prepared.enumerated() {
            for tensorIndex in node.inputs where constants.values[tensorIndex] == nil {
                let current = lifetimes[tensorIndex] ?? (nodeIndex, nodeIndex)
                lifetimes[tensorIndex] = (current.first, max(current.last, nodeIndex))
            }
            for tensorIndex in node.outputs where lifetimes[tensorIndex] == nil {
                lifetimes[tensorIndex] = (nodeIndex, nodeIndex)
            }
        }
        for tensorIndex in subgraph.outputs where constants.values[tensorIndex] == nil {
            let current = lifetimes[tensorIndex] ?? (0, end)
            lifetimes[tensorIndex] = (current.first, end)
        }
        let planned = lifetimes.keys.sorted()
        let plan = MemoryPlan(requests: planned.map { tensorIndex in
            MemoryPlan.Request(
                elementCount: shapes[tensorIndex].elementCount,
                firstUse: lifetimes[tensorIndex]!.first, lastUse: lifetimes[tensorIndex]!.last)
        })
        let arena = AlignedBuffer(count: plan.arenaCount)
        self.arena = arena
        var pointers: [Int: UnsafeMutablePointer<Float>] = [:]
        for (k, tensorIndex) in planned.enumerated() {
            pointers[tensorIndex] = arena.baseAddress + plan.offsets[k]
        }

        // Constants the kernels read, as float storage (int32 bit patterns kept).
        var storage: [AlignedBuffer] = []
        func constantPointer(_ tensorIndex: Int) -> UnsafeMutablePointer<Float> {
            if let pointer = pointers[tensorIndex] { return pointer }
            let buffer: AlignedBuffer
            switch constants.values[tensorIndex]! {
            case .float32(let values): buffer = AlignedBuffer(values)
            case .int32(let values): buffer = AlignedBuffer(values.map { Float(bitPattern: UInt32(bitPattern: $0)) })
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

        self.summary = ModelSummary(
            operatorHistogram: histogram,
            preparedOperatorCount: prepared.count,
            parameterCount: parameters,
            multiplyAccumulates: prepared.reduce(0) { $0 + $1.kernel.multiplyAccumulates },
            arenaBytes: plan.arenaCount * MemoryLayout<Float>.stride)
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
    /// profiling. `body` receives the node's op name and seconds.
    public func invokeProfiled(_ body: (_ op: String, _ seconds: Double) -> Void) {
        let clock = ContinuousClock()
        for node in nodes {
            let start = clock.now
            switch options.mode {
            case .fast: node.kernel.run(node.io, runner: runner)
            case .reference: node.kernel.runReference(node.io)
            }
            let elapsed = clock.now - start
            body(node.kernel.opName, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
    }
}
