import FlatBufferReader
import Kernels
import Tensor

/// The load-time work that `Interpreter.init` and `Interpreter.validate`
/// share, in order: tensor shapes, constants with DEQUANTIZE/DENSIFY folded,
/// one prepared operator per node that runs at invoke time (output counts,
/// types and shapes checked against the file; the operators prepared on up to
/// `threadCount` threads, the same kernels and the same first error for any
/// count), graph input types, and the activation memory plan for operators
/// that run on `threadCount` threads (`MemoryPlan`). Nothing here
/// allocates tensor memory; float constants are decoded operator by operator,
/// each held only while its kernel is prepared (see `ConstantTensors`).
///
/// With `readsWeights` false, float constants are not decoded and the
/// weighted ops are validated instead of prepared (see `ConstantTensors` and
/// `PrepareContext.readsWeights`); every check that can reject a model still runs.
/// With `fusesOperators` (and weights read), the ADD and PRELU that finish a
/// CONV_2D are folded into it (`OperatorFusion`) before memory is planned; the
/// summary still counts the operators, parameters and multiply-accumulates
/// of the file. With `usesSparseKernels` as well, the regions of sparse 1×1
/// convolutions then run channel-major (`ChannelMajorRegions`, in every
/// kernel family),
/// which adds tensors past the file's for the copies that cross a region's
/// border. Only the operators that the graph outputs need are prepared
/// (`operatorsNeeded`): none that feeds no output, and none that only the
/// outputs at the positions `skippedOutputs` names need; no memory is planned
/// for those outputs.
struct LoadPlan {
    /// One operator that runs at invoke time, with its tensor indices
    /// (absent optional inputs dropped).
    struct Node {
        let prepared: PreparedOperator
        let inputs: [Int]
        let outputs: [Int]
    }

    let subgraph: SubGraph
    /// The graph outputs that are computed: `subgraph.outputs` less the skipped positions, as
    /// tensor indices.
    let computedOutputs: [Int]
    /// The validated shape of every tensor, by tensor index: the file's
    /// tensors, then any added by `ChannelMajorRegions`.
    let shapes: [TensorShape]
    let constants: ConstantTensors
    let nodes: [Node]
    /// Operators in the file by name (a custom operator by its custom code), folded ones included.
    let histogram: [String: Int]
    /// The tensors that live in the arena, in `memoryPlan`'s request order.
    let plannedTensors: [Int]
    let memoryPlan: MemoryPlan
    /// Parameters and multiply-accumulates of the prepared operators before fusion.
    private let fileParameterCount: Int
    private let fileMultiplyAccumulates: Int

    /// Packed weights come from `weightStore` (`PackedWeightStore`) when
    /// one is given: each operator's prepare is a scope of its own, by the
    /// operator's index; then, numbered past every operator's, each
    /// channel-major kernel's weights (`ChannelMajorRegions`) by the index of
    /// its node after fusion, and past those, each deferred filter's packing
    /// by its node's index once the channel-major regions are in place.
    init(
        model: TFLiteModel, readsWeights: Bool, instructionSet: KernelInstructionSet, fusesOperators: Bool,
        usesSparseKernels: Bool = false, threadCount: Int = 1, weightStore: PackedWeightStore? = nil,
        pointwiseDepthwiseRounding: PointwiseDepthwiseRounding = .fused, skippedOutputs: Set<Int> = []
    ) throws {
        guard let subgraph = model.subgraphs.first else { throw InterpreterError.noSubgraph }
        self.subgraph = subgraph
        if let missing = skippedOutputs.sorted().first(where: { !subgraph.outputs.indices.contains($0) }) {
            throw InterpreterError.noSuchTensor("output \(missing) (to skip): the model has \(subgraph.outputs.count)")
        }
        let computedOutputs = subgraph.outputs.indices.filter { !skippedOutputs.contains($0) }.map { subgraph.outputs[$0] }
        self.computedOutputs = computedOutputs
        let needed = Self.operatorsNeeded(by: computedOutputs, in: subgraph)

        var shapes = try subgraph.tensors.map { tensor in
            do {
                return try TensorShape(tensor.shape.map(Int.init))
            } catch {
                throw InterpreterError.invalidShape(tensor: tensor.name, detail: "\(error)")
            }
        }
        var constants = try ConstantTensors(model: model, subgraph: subgraph, shapes: shapes)

        // Fold the load-time-only operators into constants, in order, and list the others.
        var remaining: [(index: Int, op: OperatorInfo, builtin: BuiltinOperator)] = []
        var histogram: [String: Int] = [:]
        for (index, op) in subgraph.operators.enumerated() {
            let builtin = model.operatorCodes[op.opcodeIndex].builtin
            histogram[model.operatorCodes[op.opcodeIndex].name, default: 0] += 1
            if try constants.fold(op, builtin: builtin, index: index) { continue }
            if needed.contains(index) { remaining.append((index, op, builtin)) }
        }

        // Prepare the others, on up to `threadCount` threads: each decodes and packs its own
        // weights, and the first error in operator order is the one thrown, whatever the
        // thread count. (The validator checked that every operator's inputs are written by
        // earlier ones, so the folds above are all an operator could have seen.)
        // Where sparse kernels may run, a 1×1 filter stored as compressed rows stays so
        // until the channel-major regions are known: packed only if no sparse kernel
        // takes its convolution's place.
        let context = PrepareContext(
            instructionSet: instructionSet, defersCompressedRows: readsWeights && fusesOperators && usesSparseKernels,
            readsWeights: readsWeights, pointwiseDepthwiseRounding: pointwiseDepthwiseRounding)
        let (folded, fileShapes) = (constants, shapes)
        let outcomes = concurrentMap(remaining, threadCount: threadCount) { entry in
            try PackedWeightStore.withScope(of: weightStore, id: entry.index) {
                try Self.prepare(
                    entry.op, index: entry.index, builtin: entry.builtin, model: model, subgraph: subgraph,
                    constants: folded, shapes: fileShapes, context: context)
            }
        }
        var nodes: [Node] = []
        for (entry, outcome) in zip(remaining, outcomes) {
            let (index, op, _) = entry
            let prepared = try outcome.get()
            let outputShapes = prepared.outputShapes
            let name = model.operatorCodes[op.opcodeIndex].name
            guard outputShapes.count == op.outputs.count else {
                throw InterpreterError.invalidOperator(index: index, error: KernelError(
                    op: name,
                    "has \(op.outputs.count) outputs, the kernel produces \(outputShapes.count)"))
            }
            for (k, tensorIndex) in op.outputs.enumerated() {
                let tensor = subgraph.tensors[tensorIndex]
                guard tensor.type == .float32 else {
                    throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "\(tensor.type)")
                }
                let computed = outputShapes[k]
                if computed.elementCount != shapes[tensorIndex].elementCount {
                    throw InterpreterError.outputShapeMismatch(
                        index: index, op: name, tensor: tensor.name,
                        declared: shapes[tensorIndex].dimensions, computed: computed.dimensions)
                }
            }
            nodes.append(Node(prepared: prepared, inputs: op.inputs.filter { $0 >= 0 }, outputs: op.outputs))
        }
        self.fileParameterCount = Self.parameterCount(of: nodes, constants: constants)
        self.fileMultiplyAccumulates = nodes.reduce(0) { $0 + $1.prepared.multiplyAccumulates }
        if readsWeights && fusesOperators {
            var fused = try OperatorFusion.fuse(
                nodes.map { node -> PreparedNode in
                    guard case .kernel(let kernel) = node.prepared else {
                        preconditionFailure("a load that reads weights prepares a kernel for every operator")
                    }
                    return (kernel, node.inputs, node.outputs)
                },
                constantValue: { try constants.value(of: $0) }, isConstant: constants.isConstant, shapes: shapes,
                graphOutputs: subgraph.outputs)
            if usesSparseKernels {
                let folded = constants
                // Fusion leaves at most one node per operator, so the sparse kernels' scopes
                // fit below the deferred packings' (whose nodes include the conversions).
                let operatorCount = subgraph.operators.count
                fused = try ChannelMajorRegions.apply(
                    fused, shapes: &shapes, isConstant: constants.isConstant, graphOutputs: subgraph.outputs,
                    compressedRows: { folded.compressedRows(of: $0) }, threadCount: threadCount,
                    weightStore: weightStore, firstScope: operatorCount)
                fused = try Self.packingDeferredFilters(
                    of: fused, constants: constants, threadCount: threadCount, weightStore: weightStore,
                    firstScope: 2 * operatorCount)
            }
            fused = OperatorFusion.joiningExpansions(
                fused, isConstant: constants.isConstant, graphOutputs: subgraph.outputs)
            nodes = fused.map { Node(prepared: .kernel($0.kernel), inputs: $0.inputs, outputs: $0.outputs) }
        }
        self.shapes = shapes
        self.constants = constants
        self.nodes = nodes
        self.histogram = histogram

        for tensorIndex in subgraph.inputs {
            let tensor = subgraph.tensors[tensorIndex]
            guard tensor.type == .float32 else {
                throw InterpreterError.unsupportedTensorType(tensor: tensor.name, type: "\(tensor.type)")
            }
        }

        // Plan the activation arena: graph inputs and outputs live for the whole
        // invocation so they can be set before and read after it.
        let end = nodes.count
        var lifetimes: [Int: (first: Int, last: Int)] = [:]
        for tensorIndex in subgraph.inputs { lifetimes[tensorIndex] = (0, end) }
        for (nodeIndex, node) in nodes.enumerated() {
            for tensorIndex in node.inputs where !constants.hasValue(tensorIndex) {
                let current = lifetimes[tensorIndex] ?? (nodeIndex, nodeIndex)
                lifetimes[tensorIndex] = (current.first, max(current.last, nodeIndex))
            }
            for tensorIndex in node.outputs where lifetimes[tensorIndex] == nil {
                lifetimes[tensorIndex] = (nodeIndex, nodeIndex)
            }
        }
        for tensorIndex in computedOutputs where !constants.hasValue(tensorIndex) {
            let current = lifetimes[tensorIndex] ?? (0, end)
            lifetimes[tensorIndex] = (current.first, end)
        }
        let planned = lifetimes.keys.sorted()
        self.plannedTensors = planned
        self.memoryPlan = MemoryPlan(
            requests: planned.map { tensorIndex in
                MemoryPlan.Request(
                    elementCount: shapes[tensorIndex].elementCount,
                    firstUse: lifetimes[tensorIndex]!.first, lastUse: lifetimes[tensorIndex]!.last)
            },
            threadCount: threadCount)
    }

    /// The positions in `subgraph.operators` of the operators that `outputs` (tensor indices)
    /// depend on, directly or through other operators. The validator has checked that every
    /// operator reads only tensors written before it, so one pass from the last operator back
    /// sees each operator after every operator that reads its outputs.
    private static func operatorsNeeded(by outputs: [Int], in subgraph: SubGraph) -> Set<Int> {
        var neededTensors = Set(outputs)
        var needed = Set<Int>()
        for (index, op) in subgraph.operators.enumerated().reversed()
        where op.outputs.contains(where: neededTensors.contains) {
            needed.insert(index)
            neededTensors.formUnion(op.inputs.filter { $0 >= 0 })
        }
        return needed
    }

    /// Operator `op` of `subgraph` (number `index`, a `builtin`) prepared for
    /// `context` with the constants folded so far: a kernel, or its checks
    /// alone without `context.readsWeights`.
    private static func prepare(
        _ op: OperatorInfo, index: Int, builtin: BuiltinOperator, model: TFLiteModel, subgraph: SubGraph,
        constants: ConstantTensors, shapes: [TensorShape], context: PrepareContext
    ) throws -> PreparedOperator {
        let inputIndices = op.inputs.filter { $0 >= 0 }
        // Float16 weights are read in place while the kernel is prepared.
        return try constants.withValues(of: inputIndices, readsFloats: context.readsWeights) { values in
            var operands: [Operand] = []
            operands.reserveCapacity(inputIndices.count)
            for (tensorIndex, value) in zip(inputIndices, values) {
                let tensor = subgraph.tensors[tensorIndex]
                if let value {
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
            let code = model.operatorCodes[op.opcodeIndex]
            return try OperatorRegistry.prepare(
                builtin: builtin, customCode: code.customCode, version: code.version,
                optionsTable: model.optionsTable(of: op, index: index),
                inputs: operands, absentInputPositions: op.inputs.indices.filter { op.inputs[$0] < 0 },
                index: index, context: context)
        }
    }

    /// `nodes` with the convolution filters whose packing was deferred
    /// (those no sparse kernel took over) packed, each from its compressed
    /// rows decoded anew, on up to `threadCount` threads; node `i`'s packing
    /// is `weightStore`'s scope `firstScope + i`.
    private static func packingDeferredFilters(
        of nodes: [PreparedNode], constants: ConstantTensors, threadCount: Int,
        weightStore: PackedWeightStore?, firstScope: Int
    ) throws -> [PreparedNode] {
        let deferred = nodes.indices.compactMap { index -> (index: Int, conv: Conv2D, filter: Int)? in
            guard let conv = nodes[index].kernel as? Conv2D, !conv.isFilterPacked else { return nil }
            // A convolution's operands start with the input and the filter.
            return (index, conv, nodes[index].inputs[1])
        }
        let packed = concurrentMap(deferred, threadCount: threadCount) { entry in
            try PackedWeightStore.withScope(of: weightStore, id: firstScope + entry.index) {
                guard let rows = constants.compressedRows(of: entry.filter) else {
                    preconditionFailure("a deferred filter is stored as compressed rows")
                }
                return try entry.conv.packingFilter(rows)
            }
        }
        var result = nodes
        for (entry, conv) in zip(deferred, packed) { result[entry.index].kernel = try conv.get() }
        return result
    }

    /// The model's graph input or output `tensorIndex`.
    func describe(_ tensorIndex: Int) -> Interpreter.TensorDescription {
        Interpreter.TensorDescription(
            name: subgraph.tensors[tensorIndex].name, shape: shapes[tensorIndex], tensorIndex: tensorIndex)
    }

    /// What `landmarker inspect` reports about the planned model.
    var summary: ModelSummary {
        ModelSummary(
            operatorHistogram: histogram,
            preparedOperatorCount: nodes.count,
            parameterCount: fileParameterCount,
            multiplyAccumulates: fileMultiplyAccumulates,
            arenaBytes: memoryPlan.arenaCount * MemoryLayout<Float>.stride)
    }

    /// Constant floats read by `nodes`, decoded or not.
    private static func parameterCount(of nodes: [Node], constants: ConstantTensors) -> Int {
        var parameters = 0
        for node in nodes {
            for tensorIndex in node.inputs { parameters += constants.floatCount(of: tensorIndex) ?? 0 }
        }
        return parameters
    }
}
