/// Cross-reference rules of a decoded model, checked before anything else reads it: indices in
/// range, buffers matching their tensors, and a dataflow graph where every tensor has at most one
/// producer and operators run in an order where each input is already available.
enum ModelValidator {
    /// The schema version this module reads.
    static let supportedVersion: UInt32 = 3

    static func validate(_ model: DecodedModel) throws {
        guard model.version == supportedVersion else {
            throw ModelError.unsupportedVersion(found: model.version, supported: supportedVersion)
        }
        guard !model.subgraphs.isEmpty else { throw ModelError.noSubgraphs }
        if let sentinel = model.buffers.first, !sentinel.range.isEmpty {
            throw ModelError.invalidBuffer(what: "buffer 0 must be the empty sentinel but holds \(sentinel.range.count) bytes")
        }
        for (index, entry) in model.metadata.enumerated() where entry.buffer >= model.buffers.count {
            throw ModelError.invalidIndex(
                what: "metadata \(index) '\(entry.name ?? "")'", noun: "buffer", index: entry.buffer,
                count: model.buffers.count, container: "the model")
        }
        for (index, subgraph) in model.subgraphs.enumerated() {
            try validate(subgraph, index: index, model: model)
        }
    }

    private static func validate(_ subgraph: SubGraph, index subgraphIndex: Int, model: DecodedModel) throws {
        let location = "subgraph \(subgraphIndex)"
        let tensorCount = subgraph.tensors.count

        func checkTensorIndex(_ index: Int, _ what: @autoclosure () -> String) throws {
            guard index != -1 else {
                throw ModelError.graph(what: "\(what()) is -1 (absent); only operator inputs may be absent")
            }
            guard index >= 0, index < tensorCount else {
                throw ModelError.invalidIndex(
                    what: what(), noun: "tensor", index: index, count: tensorCount, container: "the subgraph")
            }
        }

        var isConstant = [Bool](repeating: false, count: tensorCount)
        for (index, tensor) in subgraph.tensors.enumerated() {
            isConstant[index] = try validateBuffer(of: tensor, where: "\(location) tensor \(index) '\(tensor.name)'", model: model)
        }

        var isGraphInput = [Bool](repeating: false, count: tensorCount)
        for (position, tensor) in subgraph.inputs.enumerated() {
            try checkTensorIndex(tensor, "\(location): input \(position)")
            isGraphInput[tensor] = true
        }

        // First pass: indices and who produces each tensor. An operator input may be -1
        // (absent); which inputs an operator may leave out is its kernel's to say.
        var producer = [Int](repeating: -1, count: tensorCount)
        for (operatorIndex, op) in subgraph.operators.enumerated() {
            let builtin = model.operatorCodes[op.opcodeIndex].builtin
            func what() -> String { "\(location) operator \(operatorIndex) (\(builtin))" }
            for (position, tensor) in op.inputs.enumerated() where tensor != -1 {
                try checkTensorIndex(tensor, "\(what()): input \(position)")
            }
            for (position, tensor) in op.outputs.enumerated() {
                try checkTensorIndex(tensor, "\(what()): output \(position)")
                let name = subgraph.tensors[tensor].name
                if op.inputs.contains(tensor) {
                    throw ModelError.graph(what: "\(what()): tensor \(tensor) '\(name)' is both an input and an output")
                }
                if producer[tensor] >= 0 {
                    throw ModelError.graph(
                        what: "\(what()): output \(position) is tensor \(tensor) '\(name)', already written by operator \(producer[tensor])")
                }
                if isGraphInput[tensor] {
                    throw ModelError.graph(what: "\(what()): output \(position) is tensor \(tensor) '\(name)', a graph input")
                }
                if isConstant[tensor] {
                    throw ModelError.graph(what: "\(what()): output \(position) is tensor \(tensor) '\(name)', which holds constant data")
                }
                producer[tensor] = operatorIndex
            }
        }

        // Second pass: each input must be available before its operator runs.
        func isAvailable(_ tensor: Int, before operatorIndex: Int) -> Bool {
            isConstant[tensor] || isGraphInput[tensor] || subgraph.tensors[tensor].isVariable
                || (producer[tensor] >= 0 && producer[tensor] < operatorIndex)
        }
        for (operatorIndex, op) in subgraph.operators.enumerated() {
            for (position, tensor) in op.inputs.enumerated() where tensor >= 0 && !isAvailable(tensor, before: operatorIndex) {
                let builtin = model.operatorCodes[op.opcodeIndex].builtin
                let name = subgraph.tensors[tensor].name
                let reason = producer[tensor] < 0
                    ? "which no operator produces and which is neither a constant, a graph input nor a variable"
                    : "which operator \(producer[tensor]) produces later (operators out of order or in a cycle)"
                throw ModelError.graph(
                    what: "\(location) operator \(operatorIndex) (\(builtin)): input \(position) reads tensor \(tensor) '\(name)', \(reason)")
            }
        }

        for (position, tensor) in subgraph.outputs.enumerated() {
            try checkTensorIndex(tensor, "\(location): output \(position)")
            guard isAvailable(tensor, before: subgraph.operators.count) else {
                throw ModelError.graph(
                    what: "\(location): output \(position) is tensor \(tensor) '\(subgraph.tensors[tensor].name)', which nothing produces")
            }
        }
    }

    /// Checks a tensor's buffer index and, for constant tensors, that the buffer holds exactly
    /// the tensor's bytes. Returns whether the tensor is constant (has a non-empty buffer).
    private static func validateBuffer(of tensor: TensorInfo, where what: @autoclosure () -> String, model: DecodedModel) throws -> Bool {
        guard tensor.buffer < model.buffers.count else {
            throw ModelError.invalidIndex(
                what: "\(what()): buffer", noun: "buffer", index: tensor.buffer, count: model.buffers.count,
                container: "the model")
        }
        let byteCount = model.buffers[tensor.buffer].range.count
        guard byteCount > 0 else {
            if tensor.sparsity != nil {
                throw ModelError.invalidBuffer(what: "\(what()) is sparse but its buffer \(tensor.buffer) holds no values")
            }
            return false
        }
        guard let elementSize = tensor.type.byteSize else { return true }
        let values = tensor.sparsity?.valueCount ?? tensor.elementCount
        // values < 2^31 (checked when decoding) and elementSize <= 16: the product is < 2^35.
        let expected = values &* elementSize
        guard byteCount == expected else {
            let form = tensor.sparsity == nil ? "shape \(ShapeRules.describe(tensor.shape))" : "its sparsity description"
            throw ModelError.invalidBuffer(
                what: "\(what()): buffer \(tensor.buffer) holds \(byteCount) bytes, but \(values) \(tensor.type) values from \(form) need \(expected)")
        }
        return true
    }
}
