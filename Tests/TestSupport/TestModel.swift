/// A TFLite model described field by field, encoded with `FlatBufferBuilder`. Field ids follow
/// the TFLite schema; nil fields are left absent, so tests can exercise schema defaults.
public struct TestModel: Sendable {
    /// A scalar, vector or string field of a generic table (used for option tables).
    public enum Field: Sendable {
        case int8(Int8)
        case uint8(UInt8)
        case int32(Int32)
        case int32Vector([Int32])
    }

    public enum IndexVector: Sendable {
        case int32([Int32])
        case uint16([UInt16])
        case uint8([UInt8])
    }

    public struct Dimension: Sendable {
        public var format: Int8? = nil
        public var denseSize: Int32? = nil
        public var segments: IndexVector? = nil
        public var indices: IndexVector? = nil

        public init(
            format: Int8? = nil,
            denseSize: Int32? = nil,
            segments: IndexVector? = nil,
            indices: IndexVector? = nil
        ) {
            self.format = format
            self.denseSize = denseSize
            self.segments = segments
            self.indices = indices
        }
    }

    public struct Sparsity: Sendable {
        public var traversalOrder: [Int32]
        public var blockMap: [Int32]? = nil
        public var dimensions: [Dimension]

        public init(traversalOrder: [Int32], blockMap: [Int32]? = nil, dimensions: [Dimension]) {
            self.traversalOrder = traversalOrder
            self.blockMap = blockMap
            self.dimensions = dimensions
        }
    }

    public struct Tensor: Sendable {
        public var name: String? = nil
        public var type: Int8? = nil
        public var shape: [Int32]? = nil
        public var buffer: UInt32? = nil
        public var isVariable: Bool = false
        public var shapeSignature: [Int32]? = nil
        public var sparsity: Sparsity? = nil
        /// Replaces the shape vector's stored length (to forge lengths).
        public var shapeDeclaredCount: UInt32? = nil

        public init(
            name: String? = nil,
            type: Int8? = nil,
            shape: [Int32]? = nil,
            buffer: UInt32? = nil,
            isVariable: Bool = false,
            shapeSignature: [Int32]? = nil,
            sparsity: Sparsity? = nil,
            shapeDeclaredCount: UInt32? = nil
        ) {
            self.name = name
            self.type = type
            self.shape = shape
            self.buffer = buffer
            self.isVariable = isVariable
            self.shapeSignature = shapeSignature
            self.sparsity = sparsity
            self.shapeDeclaredCount = shapeDeclaredCount
        }
    }

    public struct Operator: Sendable {
        public var opcodeIndex: UInt32? = nil
        public var inputs: [Int32] = []
        public var outputs: [Int32] = []
        /// The union type; nil leaves it absent (NONE).
        public var optionsType: UInt8? = nil
        /// The union value's fields; nil leaves the value absent.
        public var options: [Int: Field]? = nil
        /// The `custom_options` bytes; nil leaves them absent.
        public var customOptions: [UInt8]? = nil

        public init(
            opcodeIndex: UInt32? = nil,
            inputs: [Int32] = [],
            outputs: [Int32] = [],
            optionsType: UInt8? = nil,
            options: [Int: Field]? = nil,
            customOptions: [UInt8]? = nil
        ) {
            self.opcodeIndex = opcodeIndex
            self.inputs = inputs
            self.outputs = outputs
            self.optionsType = optionsType
            self.options = options
            self.customOptions = customOptions
        }
    }

    public struct OperatorCode: Sendable {
        public var deprecatedBuiltinCode: Int8? = nil
        public var builtinCode: Int32? = nil
        public var customCode: String? = nil
        public var version: Int32? = nil

        public init(
            deprecatedBuiltinCode: Int8? = nil,
            builtinCode: Int32? = nil,
            customCode: String? = nil,
            version: Int32? = nil
        ) {
            self.deprecatedBuiltinCode = deprecatedBuiltinCode
            self.builtinCode = builtinCode
            self.customCode = customCode
            self.version = version
        }
    }

    public struct Buffer: Sendable {
        public var data: [UInt8]? = nil
        public var offset: UInt64? = nil
        public var size: UInt64? = nil

        public init(data: [UInt8]? = nil, offset: UInt64? = nil, size: UInt64? = nil) {
            self.data = data
            self.offset = offset
            self.size = size
        }
    }

    public struct SubGraph: Sendable {
        public var name: String? = "main"
        public var tensors: [Tensor] = []
        public var inputs: [Int32] = []
        public var outputs: [Int32] = []
        public var operators: [Operator] = []

        public init(
            name: String? = "main",
            tensors: [Tensor] = [],
            inputs: [Int32] = [],
            outputs: [Int32] = [],
            operators: [Operator] = []
        ) {
            self.name = name
            self.tensors = tensors
            self.inputs = inputs
            self.outputs = outputs
            self.operators = operators
        }
    }

    public var version: UInt32? = 3
    public var description: String? = "test model"
    public var operatorCodes: [OperatorCode] = []
    public var subgraphs: [SubGraph] = []
    public var buffers: [Buffer] = [Buffer()]
    public var metadata: [(name: String, buffer: UInt32)] = []
    public var identifier: String = "TFL3"

    public init(
        version: UInt32? = 3,
        description: String? = "test model",
        operatorCodes: [OperatorCode] = [],
        subgraphs: [SubGraph] = [],
        buffers: [Buffer] = [Buffer()],
        metadata: [(name: String, buffer: UInt32)] = [],
        identifier: String = "TFL3"
    ) {
        self.version = version
        self.description = description
        self.operatorCodes = operatorCodes
        self.subgraphs = subgraphs
        self.buffers = buffers
        self.metadata = metadata
        self.identifier = identifier
    }

    /// The encoded bytes and the positions of objects tests may want to corrupt, keyed like
    /// `root`, `subgraph0`, `tensor0`, `tensor0.shape`, `tensor0.name`, `operator0`, `buffer1.data`
    /// (tensors and operators of subgraph 0).
    public struct Encoded {
        public var bytes: [UInt8]
        public var positions: [String: Int]
    }

    public func encode() -> Encoded {
        var builder = FlatBufferBuilder()
        var offsets: [String: FlatBufferBuilder.Offset] = [:]

        let bufferOffsets = buffers.enumerated().map { index, buffer in
            let data = buffer.data.map { builder.createVector($0) }
            if let data { offsets["buffer\(index).data"] = data }
            builder.startTable()
            if let data { builder.add(0, offset: data) }
            if let offset = buffer.offset { builder.add(1, offset) }
            if let size = buffer.size { builder.add(2, size) }
            return builder.endTable()
        }

        let codeOffsets = operatorCodes.map { code in
            let custom = code.customCode.map { builder.createString($0) }
            builder.startTable()
            if let value = code.deprecatedBuiltinCode { builder.add(0, value) }
            if let custom { builder.add(1, offset: custom) }
            if let value = code.version { builder.add(2, value) }
            if let value = code.builtinCode { builder.add(3, value) }
            return builder.endTable()
        }

        let subgraphOffsets = subgraphs.enumerated().map { subgraphIndex, subgraph in
            let tensors = subgraph.tensors.enumerated().map { index, tensor in
                let (table, shape, name) = encodeTensor(tensor, &builder)
                if subgraphIndex == 0 {
                    offsets["tensor\(index)"] = table
                    if let shape { offsets["tensor\(index).shape"] = shape }
                    if let name { offsets["tensor\(index).name"] = name }
                }
                return table
            }
            let operators = subgraph.operators.enumerated().map { index, op in
                let table = encodeOperator(op, &builder)
                if subgraphIndex == 0 { offsets["operator\(index)"] = table }
                return table
            }
            let tensorVector = builder.createOffsetVector(tensors)
            let inputs = builder.createVector(subgraph.inputs)
            let outputs = builder.createVector(subgraph.outputs)
            let operatorVector = builder.createOffsetVector(operators)
            let name = subgraph.name.map { builder.createString($0) }
            builder.startTable()
            builder.add(0, offset: tensorVector)
            builder.add(1, offset: inputs)
            builder.add(2, offset: outputs)
            builder.add(3, offset: operatorVector)
            if let name { builder.add(4, offset: name) }
            let table = builder.endTable()
            if subgraphIndex == 0 { offsets["subgraph0"] = table }
            return table
        }

        let metadataOffsets = metadata.map { entry in
            let name = builder.createString(entry.name)
            builder.startTable()
            builder.add(0, offset: name)
            builder.add(1, entry.buffer)
            return builder.endTable()
        }

        let codes = builder.createOffsetVector(codeOffsets)
        let graphs = builder.createOffsetVector(subgraphOffsets)
        let description = description.map { builder.createString($0) }
        let bufferVector = builder.createOffsetVector(bufferOffsets)
        let metadataVector = builder.createOffsetVector(metadataOffsets)
        builder.startTable()
        if let version { builder.add(0, version) }
        builder.add(1, offset: codes)
        builder.add(2, offset: graphs)
        if let description { builder.add(3, offset: description) }
        builder.add(4, offset: bufferVector)
        builder.add(6, offset: metadataVector)
        let root = builder.endTable()
        offsets["root"] = root

        let bytes = builder.finish(root: root, identifier: identifier)
        return Encoded(bytes: bytes, positions: offsets.mapValues { $0.position(in: bytes.count) })
    }

    private func encodeTensor(
        _ tensor: Tensor, _ builder: inout FlatBufferBuilder
    ) -> (FlatBufferBuilder.Offset, shape: FlatBufferBuilder.Offset?, name: FlatBufferBuilder.Offset?) {
        let shape = tensor.shape.map { builder.createVector($0, declaredCount: tensor.shapeDeclaredCount) }
        let name = tensor.name.map { builder.createString($0) }
        let signature = tensor.shapeSignature.map { builder.createVector($0) }
        let sparsity = tensor.sparsity.map { encodeSparsity($0, &builder) }
        builder.startTable()
        if let shape { builder.add(0, offset: shape) }
        if let type = tensor.type { builder.add(1, type) }
        if let buffer = tensor.buffer { builder.add(2, buffer) }
        if let name { builder.add(3, offset: name) }
        if tensor.isVariable { builder.add(5, UInt8(1)) }
        if let sparsity { builder.add(6, offset: sparsity) }
        if let signature { builder.add(7, offset: signature) }
        return (builder.endTable(), shape, name)
    }

    private func encodeSparsity(_ sparsity: Sparsity, _ builder: inout FlatBufferBuilder) -> FlatBufferBuilder.Offset {
        func indexVector(_ vector: IndexVector) -> (UInt8, FlatBufferBuilder.Offset) {
            let values: FlatBufferBuilder.Offset
            let type: UInt8
            switch vector {
            case let .int32(array): values = builder.createVector(array); type = 1
            case let .uint16(array): values = builder.createVector(array); type = 2
            case let .uint8(array): values = builder.createVector(array); type = 3
            }
            builder.startTable()
            builder.add(0, offset: values)
            return (type, builder.endTable())
        }
        let dimensions = sparsity.dimensions.map { dimension in
            let segments = dimension.segments.map(indexVector)
            let indices = dimension.indices.map(indexVector)
            builder.startTable()
            if let format = dimension.format { builder.add(0, format) }
            if let size = dimension.denseSize { builder.add(1, size) }
            if let segments {
                builder.add(2, segments.0)
                builder.add(3, offset: segments.1)
            }
            if let indices {
                builder.add(4, indices.0)
                builder.add(5, offset: indices.1)
            }
            return builder.endTable()
        }
        let order = builder.createVector(sparsity.traversalOrder)
        let blockMap = sparsity.blockMap.map { builder.createVector($0) }
        let dimensionVector = builder.createOffsetVector(dimensions)
        builder.startTable()
        builder.add(0, offset: order)
        if let blockMap { builder.add(1, offset: blockMap) }
        builder.add(2, offset: dimensionVector)
        return builder.endTable()
    }

    private func encodeOperator(_ op: Operator, _ builder: inout FlatBufferBuilder) -> FlatBufferBuilder.Offset {
        let inputs = builder.createVector(op.inputs)
        let outputs = builder.createVector(op.outputs)
        let options = op.options.map { fields in
            let vectors = fields.compactMapValues { field -> FlatBufferBuilder.Offset? in
                if case let .int32Vector(values) = field { return builder.createVector(values) }
                return nil
            }
            builder.startTable()
            for (id, field) in fields.sorted(by: { $0.key < $1.key }) {
                switch field {
                case let .int8(value): builder.add(id, value)
                case let .uint8(value): builder.add(id, value)
                case let .int32(value): builder.add(id, value)
                case .int32Vector: builder.add(id, offset: vectors[id]!)
                }
            }
            return builder.endTable()
        }
        let customOptions = op.customOptions.map { builder.createVector($0) }
        builder.startTable()
        if let index = op.opcodeIndex { builder.add(0, index) }
        builder.add(1, offset: inputs)
        builder.add(2, offset: outputs)
        if let type = op.optionsType { builder.add(3, type) }
        if let options { builder.add(4, offset: options) }
        if let customOptions { builder.add(5, offset: customOptions) }
        return builder.endTable()
    }
}


extension TestModel {
    /// The little-endian bytes of `values`, for a float32 buffer.
    public static func float32Bytes(_ values: [Float]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
    }
}
