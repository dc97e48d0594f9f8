import Tensor

/// The model's contents as plain Swift values, before cross-reference validation.
struct DecodedModel {
    var version: UInt32
    var description: String?
    var operatorCodes: [OperatorCode]
    var subgraphs: [SubGraph]
    var buffers: [BufferRef]
    var metadata: [Metadata]
}

/// Decodes a verified TFLite flatbuffer into Swift values. Per-value rules that decoding
/// depends on are checked here (operator codes, opcode indices, enum ranges, shapes and
/// element counts, sparsity, buffer ranges); rules across values are left to
/// `ModelValidator`. Options tables are not decoded: each operator keeps its table's type and
/// position, and the operator's kernel reads the fields it needs (`OptionsTable`).
struct ModelDecoder {
    let view: FlatBufferView
    /// The bytes `view` reads, which sparse index vectors are read from in place.
    let bytes: ModelBytes
    let root: TableView

    init(view: FlatBufferView, bytes: ModelBytes, rootPosition: Int) throws {
        self.view = view
        self.bytes = bytes
        root = try view.table(at: rootPosition, what: "Model")
    }

    func decode() throws -> DecodedModel {
        let operatorCodes = try view.tables(root, ModelField.operatorCodes, "Model.operator_codes").enumerated()
            .map { try decodeOperatorCode($1, index: $0) }
        let subgraphs = try view.tables(root, ModelField.subgraphs, "Model.subgraphs").enumerated()
            .map { try decodeSubGraph($1, index: $0, operatorCodes: operatorCodes) }
        let buffers = try view.tables(root, ModelField.buffers, "Model.buffers").enumerated()
            .map { try decodeBuffer($1, index: $0) }
        let metadata = try view.tables(root, ModelField.metadata, "Model.metadata").map { table in
            Metadata(
                name: try view.string(table, MetadataField.name, "Metadata.name"),
                buffer: Int(try view.scalar(table, MetadataField.buffer, default: 0 as UInt32, "Metadata.buffer")))
        }
        return DecodedModel(
            version: try view.scalar(root, ModelField.version, default: 0 as UInt32, "Model.version"),
            description: try view.string(root, ModelField.description, "Model.description"),
            operatorCodes: operatorCodes, subgraphs: subgraphs, buffers: buffers, metadata: metadata)
    }

    // MARK: Operator codes and buffers

    private func decodeOperatorCode(_ table: TableView, index: Int) throws -> OperatorCode {
        func what() -> String { "operator code \(index)" }
        let deprecated = try view.scalar(table, OperatorCodeField.deprecatedBuiltinCode, default: 0 as Int8, what())
        let extended = try view.scalar(table, OperatorCodeField.builtinCode, default: 0 as Int32, what())
        let builtin = BuiltinOperator(rawValue: max(Int32(deprecated), extended))
        guard builtin.rawValue >= 0 else {
            throw ModelError.invalidEnum(what: "\(what()): builtin operator", value: Int64(builtin.rawValue))
        }
        let customCode = try view.string(table, OperatorCodeField.customCode, what())
        if builtin == .custom, customCode == nil {
            throw ModelError.malformed(what: "\(what()) is CUSTOM but has no custom_code")
        }
        return OperatorCode(
            builtin: builtin, customCode: customCode,
            version: try view.scalar(table, OperatorCodeField.version, default: 1 as Int32, what()))
    }

    /// A buffer's bytes: the inline `data` vector, or `offset`/`size` relative to the file start
    /// when `offset > 1` (the schema's form for models over 2 GB).
    private func decodeBuffer(_ table: TableView, index: Int) throws -> BufferRef {
        func what() -> String { "buffer \(index)" }
        let inline = try view.vector(table, BufferField.data, elementSize: 1, what())
        let offset = try view.scalar(table, BufferField.offset, default: 0 as UInt64, what())
        guard offset > 1 else {
            guard let inline else { return BufferRef(range: 0..<0) }
            // The verifier checked inline.start + inline.count <= file size <= 2^31.
            return BufferRef(range: inline.start..<(inline.start &+ inline.count))
        }
        if let inline, inline.count > 0 {
            throw ModelError.invalidBuffer(what: "\(what()) has both \(inline.count) inline bytes and an external offset \(offset)")
        }
        let size = try view.scalar(table, BufferField.size, default: 0 as UInt64, what())
        let fileSize = UInt64(view.count)
        // offset <= fileSize is checked first, so fileSize - offset cannot wrap.
        guard offset <= fileSize, size <= fileSize &- offset else {
            throw ModelError.invalidBuffer(
                what: "\(what()) lies at external offset \(offset) with size \(size), outside the \(fileSize)-byte file")
        }
        // Both are at most fileSize <= 2^31 and their sum is at most fileSize.
        return BufferRef(range: Int(offset)..<(Int(offset) &+ Int(size)))
    }

    // MARK: Subgraphs

    private func decodeSubGraph(_ table: TableView, index: Int, operatorCodes: [OperatorCode]) throws -> SubGraph {
        let what = "subgraph \(index)"
        let tensors = try view.tables(table, SubGraphField.tensors, "\(what) tensors").enumerated().map {
            try decodeTensor($1, where: "\(what) tensor \($0)")
        }
        let operators = try view.tables(table, SubGraphField.operators, "\(what) operators").enumerated().map {
            try decodeOperator($1, where: "\(what) operator \($0)", operatorCodes: operatorCodes)
        }
        return SubGraph(
            name: try view.string(table, SubGraphField.name, "\(what) name"),
            tensors: tensors,
            inputs: (try view.int32s(table, SubGraphField.inputs, "\(what) inputs") ?? []).map(Int.init),
            outputs: (try view.int32s(table, SubGraphField.outputs, "\(what) outputs") ?? []).map(Int.init),
            operators: operators)
    }

    private func decodeTensor(_ table: TableView, where location: @autoclosure () -> String) throws -> TensorInfo {
        let name = try view.string(table, TensorField.name, location()) ?? ""
        func what() -> String { "\(location()) '\(name)'" }
        let shape = try view.int32s(table, TensorField.shape, what()) ?? []
        let elementCount = try ShapeRules.elementCount(of: shape, where: what())
        let shapeSignature = try view.int32s(table, TensorField.shapeSignature, what())
        if let shapeSignature {
            try ShapeRules.validateSignature(shapeSignature, of: shape, where: what())
        }
        let sparsity = try view.table(table, TensorField.sparsity, what()).map {
            try decodeSparsity($0, shape: shape, where: what())
        }
        return TensorInfo(
            name: name,
            type: TensorType(rawValue: try view.scalar(table, TensorField.type, default: 0 as Int8, what())),
            shape: shape,
            shapeSignature: shapeSignature,
            buffer: Int(try view.scalar(table, TensorField.buffer, default: 0 as UInt32, what())),
            isVariable: try view.bool(table, TensorField.isVariable, default: false, what()),
            hasQuantization: try hasQuantization(table, what()),
            sparsity: sparsity,
            elementCount: elementCount)
    }

    private func hasQuantization(_ tensor: TableView, _ what: @autoclosure () -> String) throws -> Bool {
        guard let table = try view.table(tensor, TensorField.quantization, what()) else { return false }
        let scales = try view.vector(table, QuantizationField.scale, elementSize: 4, what())?.count ?? 0
        let zeroPoints = try view.vector(table, QuantizationField.zeroPoint, elementSize: 8, what())?.count ?? 0
        let details = try view.scalar(table, QuantizationField.detailsType, default: 0 as UInt8, what())
        return scales > 0 || zeroPoints > 0 || details != 0
    }

    private func decodeSparsity(_ table: TableView, shape: [Int32], where what: @autoclosure () -> String) throws -> SparsityParameters {
        let dimensions = try view.tables(table, SparsityField.dimensionMetadata, what()).map { dimension in
            let format = try view.scalar(dimension, DimensionMetadataField.format, default: 0 as Int8, what())
            return DimensionMetadata(
                format: format == 0 ? .dense : .sparseCSR,
                denseSize: try view.scalar(dimension, DimensionMetadataField.denseSize, default: 0 as Int32, what()),
                arraySegments: try indexVector(
                    dimension, typeField: DimensionMetadataField.arraySegmentsType,
                    valueField: DimensionMetadataField.arraySegments, what()),
                arrayIndices: try indexVector(
                    dimension, typeField: DimensionMetadataField.arrayIndicesType,
                    valueField: DimensionMetadataField.arrayIndices, what()))
        }
        let traversalOrder = try view.int32s(table, SparsityField.traversalOrder, what()) ?? []
        let blockMap = try view.int32s(table, SparsityField.blockMap, what()) ?? []
        let valueCount = try SparsityRules.valueCount(
            shape: shape, traversalOrder: traversalOrder, blockMap: blockMap, dimensions: dimensions, where: what())
        return SparsityParameters(
            traversalOrder: traversalOrder, blockMap: blockMap, dimensionMetadata: dimensions, valueCount: valueCount)
    }

    /// A `SparseIndexVector` union, read in place (not decoded); empty when absent.
    private func indexVector(_ table: TableView, typeField: Int, valueField: Int, _ what: @autoclosure () -> String) throws -> IndexList {
        let type = try view.scalar(table, typeField, default: 0 as UInt8, what())
        guard type != 0, let member = try view.table(table, valueField, what()) else { return [] }
        let width: IndexList.Width
        switch type {
        case SparseIndexVectorType.int32Vector: width = .int32
        case SparseIndexVectorType.uint16Vector: width = .uint16
        case SparseIndexVectorType.uint8Vector: width = .uint8
        default:
            throw ModelError.invalidEnum(what: "\(what()): sparse index vector type", value: Int64(type))
        }
        guard let vector = try view.vector(member, SparseIndexVectorType.valuesField, elementSize: width.rawValue, what()) else {
            return []
        }
        // The vector was checked to lie inside the bytes, which `view` reads.
        guard let list = IndexList(stored: bytes, offset: vector.start, count: vector.count, width: width) else {
            preconditionFailure("a checked vector lies outside the model's bytes")
        }
        return list
    }

    // MARK: Operators

    private func decodeOperator(_ table: TableView, where location: @autoclosure () -> String, operatorCodes: [OperatorCode]) throws -> OperatorInfo {
        let opcodeIndex = Int(try view.scalar(table, OperatorField.opcodeIndex, default: 0 as UInt32, location()))
        guard opcodeIndex < operatorCodes.count else {
            throw ModelError.invalidIndex(
                what: "\(location()): opcode_index", noun: "operator code", index: opcodeIndex,
                count: operatorCodes.count, container: "the model")
        }
        let builtin = operatorCodes[opcodeIndex].builtin
        func what() -> String { "\(location()) (\(builtin))" }
        let type = try view.scalar(table, OperatorField.builtinOptionsType, default: 0 as UInt8, what())
        let optionsTable = type == 0 ? nil : try view.table(table, OperatorField.builtinOptions, what())
        let customOptions = try view.vector(table, OperatorField.customOptions, elementSize: 1, what())
        return OperatorInfo(
            opcodeIndex: opcodeIndex,
            inputs: (try view.int32s(table, OperatorField.inputs, what()) ?? []).map(Int.init),
            outputs: (try view.int32s(table, OperatorField.outputs, what()) ?? []).map(Int.init),
            optionsType: type, optionsPosition: optionsTable?.position,
            // The vector was checked to lie inside the bytes, which hold at most 2^31.
            customOptions: customOptions.map { $0.start..<($0.start &+ $0.count) })
    }
}
