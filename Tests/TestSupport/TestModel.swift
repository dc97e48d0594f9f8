/// A TFLite model described field by field, encoded with `FlatBufferBuilder`. Field ids follow
/// the TFLite schema; nil fields are left absent, so tests can exercise schema defaults.
struct TestModel: Sendable {
    /// A scalar, vector or string field of a generic table (used for option tables).
    enum Field: Sendable {
        case int8(Int8)
        case uint8(UInt8)
        case int32(Int32)
        case int32Vector([Int32])
    }

    enum IndexVector: Sendable {
        case int32([Int32])
        case uint16([UInt16])
        case uint8([UInt8])
    }

    struct Dimension: Sendable {
        var format: Int8? = nil
        var denseSize: Int32? = nil
        var segments: IndexVector? = nil
        var indices: IndexVector? = nil
    }

    struct Sparsity: Sendable {
        var traversalOrder: [Int32]
        var blockMap: [Int32]? = nil
        var dimensions: [Dimension]
    }

    struct Tensor: Sendable {
        var name: String? = nil
        var type: Int8? = nil
        var shape: [Int32]? = nil
        var buffer: UInt32? = nil
        var isVariable: Bool = false
        var shapeSignature: [Int32]? = nil
        var sparsity: Sparsity? = nil
        /// Replaces the shape vector's stored length (to forge lengths).
        var shapeDeclaredCount: UInt32? = nil
    }

    struct Operator: Sendable {
        var opcodeIndex: UInt32? = nil
        var inputs: [Int32] = []
        var outputs: [Int32] = []
        /// The union type; nil leaves it absent (NONE).
        var optionsType: UInt8? = nil
        /// The union value's fields; nil leaves the value absent.
        var options: [Int: Field]? = nil
    }

    struct OperatorCode: Sendable {
        var deprecatedBuiltinCode: Int8? = nil
        var builtinCode: Int32? = nil
        var customCode: String? = nil
        var version: Int32? = nil
    }

    struct Buffer: Sendable {
        var data: [UInt8]? = nil
        var offset: UInt64? = nil
        var size: UInt64? = nil
    }

    struct SubGraph: Sendable {
        var name: String? = "main"
        var tensors: [Tensor] = []
        var inputs: [Int32] = []
        var outputs: [Int32] = []
        var operators: [Operator] = []
    }

    var version: UInt32? = 3
    var description: String? = "test model"
    var operatorCodes: [OperatorCode] = []
    var subgraphs: [SubGraph] = []
    var buffers: [Buffer] = [Buffer()]
    var metadata: [(name: String, buffer: UInt32)] = []
    var identifier = "TFL3"

    /// The encoded bytes and the positions of objects tests may want to corrupt, keyed like
    /// `root`, `subgraph0`, `tensor0`, `tensor0.shape`, `tensor0.name`, `operator0`, `buffer1.data`
    /// (tensors and operators of subgraph 0).
    struct Encoded {
        var bytes: [UInt8]
        var positions: [String: Int]
    }

    func encode() -> Encoded {
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
        builder.startTable()
        if let index = op.opcodeIndex { builder.add(0, index) }
        builder.add(1, offset: inputs)
        builder.add(2, offset: outputs)
        if let type = op.optionsType { builder.add(3, type) }
        if let options { builder.add(4, offset: options) }
        return builder.endTable()
    }
}

extension TestModel {
    static func float32Bytes(_ values: [Float]) -> [UInt8] {
        values.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
    }

    /// Operator code indices of `valid`.
    enum Code {
        static let conv2D: UInt32 = 0, add: UInt32 = 1, densify: UInt32 = 2, reshape: UInt32 = 3
        static let concatenation: UInt32 = 4
    }

    /// Conv2DOptions with strides 1 and the given padding.
    static let conv2DOptions: [Int: Field] = [0: .int8(1), 1: .int32(1), 2: .int32(1)]

    /// A small valid model. Subgraph 0:
    /// - tensor 0 `input` `[1, 2, 2, 2]` (graph input), tensor 1 `filter` `[2, 1, 1, 2]` (buffer 1),
    ///   tensor 2 `bias` `[2]` (buffer 2), tensor 3 `conv` `[1, 2, 2, 2]`, tensor 4 `sum` `[1, 2, 2, 2]`;
    /// - tensor 5 `sparse` `[2, 3]` (CSR, 3 values in buffer 3), tensor 6 `dense` `[2, 3]`;
    /// - operator 0 CONV_2D(0, 1, 2) -> 3, operator 1 ADD(3, 0) -> 4, operator 2 DENSIFY(5) -> 6;
    /// - outputs 4 and 6.
    static var valid: TestModel {
        var model = TestModel()
        model.operatorCodes = [
            OperatorCode(deprecatedBuiltinCode: 3, builtinCode: 3, version: 1),
            OperatorCode(deprecatedBuiltinCode: 0, builtinCode: 0),
            OperatorCode(deprecatedBuiltinCode: 124, builtinCode: 124),
            OperatorCode(deprecatedBuiltinCode: 22, builtinCode: 22),
            OperatorCode(deprecatedBuiltinCode: 2),
        ]
        model.buffers = [
            Buffer(),
            Buffer(data: float32Bytes([1, 2, 3, 4])),
            Buffer(data: float32Bytes([0.5, -0.5])),
            Buffer(data: float32Bytes([7, 8, 9])),
            Buffer(data: Array("1.0".utf8)),
        ]
        model.metadata = [("min_runtime_version", 4)]
        var graph = SubGraph()
        graph.tensors = [
            Tensor(name: "input", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            Tensor(name: "filter", type: 0, shape: [2, 1, 1, 2], buffer: 1),
            Tensor(name: "bias", type: 0, shape: [2], buffer: 2),
            Tensor(name: "conv", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            Tensor(name: "sum", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            Tensor(
                name: "sparse", type: 0, shape: [2, 3], buffer: 3,
                sparsity: Sparsity(
                    traversalOrder: [0, 1],
                    dimensions: [
                        Dimension(format: 0, denseSize: 2),
                        Dimension(format: 1, segments: .uint8([0, 1, 3]), indices: .uint16([2, 0, 1])),
                    ])),
            Tensor(name: "dense", type: 0, shape: [2, 3], buffer: 0),
        ]
        graph.inputs = [0]
        graph.outputs = [4, 6]
        graph.operators = [
            Operator(opcodeIndex: Code.conv2D, inputs: [0, 1, 2], outputs: [3], optionsType: 1, options: conv2DOptions),
            Operator(opcodeIndex: Code.add, inputs: [3, 0], outputs: [4], optionsType: 11, options: [0: .int8(1)]),
            Operator(opcodeIndex: Code.densify, inputs: [5], outputs: [6]),
        ]
        model.subgraphs = [graph]
        return model
    }
}
