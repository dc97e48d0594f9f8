import Testing
import FlatBufferReader
import TestSupport

@Suite("Decoding built models")
struct DecodingTests {
    @Test("the base model decodes to the values it was built from")
    func baseModel() throws {
        let model = try TFLiteModel(bytes: ModelBytes(bytes: TestModel.valid.encode().bytes))
        #expect(model.version == 3)
        #expect(model.description == "test model")
        #expect(model.operatorCodes.map(\.builtin) == [.conv2D, .add, .densify, .reshape, .concatenation])
        // Absent version is the schema default 1; absent builtin_code leaves the deprecated code.
        #expect(model.operatorCodes.map(\.version) == [1, 1, 1, 1, 1])
        #expect(model.operatorCodes.allSatisfy { $0.customCode == nil })
        #expect(model.metadata.map(\.name) == ["min_runtime_version"])
        #expect(model.metadata.map(\.buffer) == [4])
        #expect(model.withBufferBytes(4) { Array($0) } == Array("1.0".utf8))
        #expect(model.buffers[0].range.isEmpty)

        let graph = try #require(model.subgraphs.first)
        #expect(graph.name == "main")
        #expect(graph.inputs == [0])
        #expect(graph.outputs == [4, 6])
        #expect(graph.tensors.map(\.name) == ["input", "filter", "bias", "conv", "sum", "sparse", "dense"])
        #expect(graph.tensors.map(\.shape) == [[1, 2, 2, 2], [2, 1, 1, 2], [2], [1, 2, 2, 2], [1, 2, 2, 2], [2, 3], [2, 3]])
        #expect(graph.tensors.map(\.elementCount) == [8, 4, 2, 8, 8, 6, 6])
        #expect(graph.tensors.map(\.buffer) == [0, 1, 2, 0, 0, 3, 0])
        #expect(graph.tensors.allSatisfy { $0.type == .float32 && !$0.isVariable && !$0.hasQuantization })
        #expect(graph.tensors.map { model.isConstant($0) } == [false, true, true, false, false, true, false])

        let filter = model.withBufferBytes(1) { raw in
            (0..<4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
        #expect(filter == [1, 2, 3, 4])

        let sparsity = try #require(graph.tensors[5].sparsity)
        #expect(sparsity.traversalOrder == [0, 1])
        #expect(sparsity.blockMap.isEmpty)
        #expect(sparsity.valueCount == 3)
        let dimensions = sparsity.dimensionMetadata
        #expect(dimensions.map(\.format) == [.dense, .sparseCSR])
        #expect(dimensions.map(\.denseSize) == [2, 0])
        #expect(dimensions.map(\.arraySegments) == [[], [0, 1, 3]])  // stored as uint8
        #expect(dimensions.map(\.arrayIndices) == [[], [2, 0, 1]])  // stored as uint16

        #expect(graph.operators.map(\.opcodeIndex) == [0, 1, 2])
        #expect(graph.operators.map(\.inputs) == [[0, 1, 2], [3, 0], [5]])
        #expect(graph.operators.map(\.outputs) == [[3], [4], [6]])
        #expect(graph.operators.map(\.optionsType) == [BuiltinOptionsType.conv2D, BuiltinOptionsType.add, 0])
        typealias Conv = BuiltinOptionsFields.Conv2D
        let conv = model.optionsTable(of: graph.operators[0], location: "conv")
        #expect(try conv.value(Conv.padding) == 1)  // VALID
        #expect(try [conv.value(Conv.strideW), conv.value(Conv.strideH)] == [1, 1])
        #expect(try [conv.value(Conv.dilationWFactor), conv.value(Conv.dilationHFactor)] == [1, 1])  // defaults
        let add = model.optionsTable(of: graph.operators[1], location: "add")
        #expect(try add.value(BuiltinOptionsFields.Add.fusedActivationFunction) == 1)  // RELU
        #expect(try add.value(BuiltinOptionsFields.Add.potScaleInt16))  // default true
    }

    /// One operator per options table, each reading the graph input (tensor 0,
    /// `[1, 4, 4, 8]`) and the constant tensor 1 (`[8]`), writing its own output tensor.
    private func model(
        codes: [TestModel.OperatorCode], operators: [TestModel.Operator]
    ) throws -> TFLiteModel {
        var model = TestModel()
        model.operatorCodes = codes
        model.buffers = [.init(), .init(data: TestModel.float32Bytes(Array(repeating: 1, count: 8)))]
        var graph = TestModel.SubGraph()
        graph.tensors = [
            .init(name: "input", type: 0, shape: [1, 4, 4, 8], buffer: 0),
            .init(name: "weights", type: 0, shape: [8], buffer: 1),
        ]
        for index in operators.indices {
            graph.tensors.append(.init(name: "out\(index)", type: 0, shape: [1, 4, 4, 8], buffer: 0))
        }
        graph.operators = operators.enumerated().map { index, op in
            var op = op
            op.outputs = [Int32(index + 2)]
            return op
        }
        graph.inputs = [0]
        graph.outputs = [Int32(graph.tensors.count - 1)]
        model.subgraphs = [graph]
        return try TFLiteModel(bytes: ModelBytes(bytes: model.encode().bytes))
    }

    @Test("absent fields and absent option tables take the schema defaults")
    func schemaDefaults() throws {
        let codes: [TestModel.OperatorCode] = [
            .init(builtinCode: 0),  // ADD
            .init(deprecatedBuiltinCode: 4),  // DEPTHWISE_CONV_2D
            .init(deprecatedBuiltinCode: 17),  // MAX_POOL_2D
            .init(deprecatedBuiltinCode: 9, version: 9),  // FULLY_CONNECTED
            .init(builtinCode: 40),  // MEAN
            .init(deprecatedBuiltinCode: 23),  // RESIZE_BILINEAR
            .init(deprecatedBuiltinCode: 5),  // DEPTH_TO_SPACE
            .init(deprecatedBuiltinCode: 22),  // RESHAPE
            .init(deprecatedBuiltinCode: 6),  // DEQUANTIZE
            .init(deprecatedBuiltinCode: 34),  // PAD
            .init(deprecatedBuiltinCode: 127, builtinCode: 150),  // GELU, beyond the int8 code
            .init(deprecatedBuiltinCode: 14),  // LOGISTIC
        ]
        let model = try model(codes: codes, operators: [
            .init(opcodeIndex: 0, inputs: [0, 1]),
            .init(opcodeIndex: 1, inputs: [0, 1, -1], optionsType: 2, options: [1: .int32(2), 2: .int32(1)]),
            .init(opcodeIndex: 2, inputs: [0], optionsType: 5, options: [1: .int32(2), 2: .int32(2), 3: .int32(3), 4: .int32(3)]),
            .init(opcodeIndex: 3, inputs: [0, 1, -1]),
            .init(opcodeIndex: 4, inputs: [0, 1], optionsType: 27, options: [0: .uint8(1)]),
            .init(opcodeIndex: 5, inputs: [0, 1], optionsType: 15, options: [3: .uint8(1)]),
            .init(opcodeIndex: 6, inputs: [0], optionsType: 94, options: [0: .int32(2)]),
            .init(opcodeIndex: 7, inputs: [0], optionsType: 17, options: [0: .int32Vector([1, -1, 8])]),
            .init(opcodeIndex: 8, inputs: [1]),
            .init(opcodeIndex: 9, inputs: [0, 1], optionsType: 22, options: [:]),
            .init(opcodeIndex: 10, inputs: [0], optionsType: 116, options: [0: .uint8(1)]),
            .init(opcodeIndex: 11, inputs: [0]),
        ])
        #expect(model.operatorCodes.map(\.builtin) == [
            .add, .depthwiseConv2D, .maxPool2D, .fullyConnected, .mean, .resizeBilinear, .depthToSpace, .reshape,
            .dequantize, .pad, .gelu, .logistic,
        ])
        #expect(model.operatorCodes[3].version == 9)
        let operators = model.subgraphs[0].operators
        #expect(operators.map(\.optionsType) == [0, 2, 5, 0, 27, 15, 94, 17, 0, 22, 116, 0])
        func table(_ index: Int) -> OptionsTable { model.optionsTable(of: operators[index], location: "operator \(index)") }
        // ADD without a table: every field at its schema default.
        #expect(try table(0).value(BuiltinOptionsFields.Add.fusedActivationFunction) == 0)
        #expect(try table(0).value(BuiltinOptionsFields.Add.potScaleInt16))
        typealias Depthwise = BuiltinOptionsFields.DepthwiseConv2D
        #expect(try [Depthwise.padding, Depthwise.fusedActivationFunction].map { try table(1).value($0) } == [0, 0])
        #expect(try [Depthwise.strideW, Depthwise.strideH, Depthwise.depthMultiplier, Depthwise.dilationWFactor,
                     Depthwise.dilationHFactor].map { try table(1).value($0) } == [2, 1, 0, 1, 1])
        typealias Pool = BuiltinOptionsFields.Pool2D
        #expect(try [Pool.strideW, Pool.strideH, Pool.filterWidth, Pool.filterHeight].map { try table(2).value($0) }
            == [2, 2, 3, 3])
        #expect(try !table(3).value(BuiltinOptionsFields.FullyConnected.keepNumDims))
        #expect(try table(4).value(BuiltinOptionsFields.Reducer.keepDims))
        #expect(try table(5).value(BuiltinOptionsFields.ResizeBilinear.halfPixelCenters))
        #expect(try !table(5).value(BuiltinOptionsFields.ResizeBilinear.alignCorners))
        #expect(try table(6).value(BuiltinOptionsFields.DepthToSpace.blockSize) == 2)
        #expect(try table(7).values(BuiltinOptionsFields.Reshape.newShape) == [1, -1, 8])
        #expect(try table(0).values(BuiltinOptionsFields.Reshape.newShape) == nil)
        // The optional bias (-1) survives decoding.
        #expect(model.subgraphs[0].operators[3].inputs == [0, 1, -1])
    }

    /// A field the verifier does not check (a MulOptions table, which has no field 1, holding
    /// one there) that lies outside its table's inline bytes: `OptionsTable` refuses to read it
    /// as another table's field, and an enum value outside its enum is a typed error too.
    @Test("options fields are read within their table and enum")
    func optionsReadsAreChecked() throws {
        let bytes = { (vtableInlineSize: UInt16?) -> [UInt8] in
            var model = TestModel()
            model.operatorCodes = [.init(deprecatedBuiltinCode: 18)]  // MUL
            model.subgraphs = [TestModel.SubGraph(
                tensors: (0..<3).map { TestModel.Tensor(name: "t\($0)", type: 0, shape: [4], buffer: 0) },
                inputs: [0, 1], outputs: [2],
                operators: [.init(opcodeIndex: 0, inputs: [0, 1], outputs: [2], optionsType: 21, options: [1: .int32(7)])])]
            var encoded = model.encode()
            if let vtableInlineSize {
                let op = encoded.positions["operator0"]!
                let options = Bytes.field(4, ofTable: op, encoded.bytes)
                let table = options + Int(Bytes.read(UInt32.self, encoded.bytes, at: options))
                Bytes.write(vtableInlineSize, &encoded.bytes, at: Bytes.vtable(ofTable: table, encoded.bytes) + 2)
            }
            return encoded.bytes
        }
        func table(_ vtableInlineSize: UInt16?) throws -> OptionsTable {
            let model = try TFLiteModel(bytes: ModelBytes(bytes: bytes(vtableInlineSize)))
            return model.optionsTable(of: model.subgraphs[0].operators[0], location: "operator 0 (MUL) options")
        }
        // Read as Conv2DOptions.stride_w (field 1): 7 when it lies inside the table.
        #expect(try table(nil).value(BuiltinOptionsFields.Conv2D.strideW) == 7)
        let error = #expect(throws: ModelError.self) { try table(4).value(BuiltinOptionsFields.Conv2D.strideW) }
        guard case .malformed(let what)? = error else {
            Issue.record("expected a malformed-table error, got \(String(describing: error))")
            return
        }
        #expect(what.contains("operator 0 (MUL) options: stride_w (field 1) at offset"), "\(what)")
        // Field 1's low byte read as FullyConnectedOptions.weights_format, an enum of 0 and 1.
        enum WeightsFormat: Int8 { case `default`, shuffled4x16Int8 }
        let enumError = #expect(throws: ModelError.self) {
            try table(nil).enumeration(
                BuiltinOptionsFields.FullyConnected.weightsFormat, as: WeightsFormat.self,
                schemaEnum: "FullyConnectedOptionsWeightsFormat")
        }
        #expect(enumError == .invalidEnum(
            what: "operator 0 (MUL) options: weights_format (FullyConnectedOptionsWeightsFormat)", value: 7))
    }

    /// The base model with tensor 5 replaced by a `[4, 4]` tensor stored as 1x2 blocks:
    /// dimension 1 is split into 2 blocks of 2 (block_map [1]); rows 0 and 2 hold block 1,
    /// row 3 holds blocks 0 and 1, row 1 is empty: 4 blocks of 2 values.
    static func blockSparseModel(blockSize: Int32 = 2, indices: [UInt8] = [1, 1, 0, 1]) -> TestModel {
        var model = TestModel.valid
        model.subgraphs[0].tensors[5] = .init(
            name: "block sparse", type: 0, shape: [4, 4], buffer: 3,
            sparsity: .init(
                traversalOrder: [0, 1, 2], blockMap: [1],
                dimensions: [
                    .init(format: 0, denseSize: 4),
                    .init(format: 1, segments: .int32([0, 1, 1, 2, 4]), indices: .uint8(indices)),
                    .init(format: 0, denseSize: blockSize),
                ]))
        model.subgraphs[0].tensors[6].shape = [4, 4]
        model.buffers[3].data = TestModel.float32Bytes((0..<8).map(Float.init))
        return model
    }

    @Test("a block-sparse tensor counts its values per block")
    func blockSparse() throws {
        let model = try TFLiteModel(bytes: ModelBytes(bytes: Self.blockSparseModel().encode().bytes))
        let sparsity = try #require(model.subgraphs[0].tensors[5].sparsity)
        #expect(sparsity.blockMap == [1])
        #expect(sparsity.valueCount == 8)
        #expect(sparsity.dimensionMetadata.map(\.arrayIndices) == [[], [1, 1, 0, 1], []])
    }

    @Test("block-sparse inconsistencies are rejected")
    func blockSparseErrors() {
        // A block of 3 does not divide the dimension of 4.
        let uneven = expectModelError(Self.blockSparseModel(blockSize: 3).encode().bytes)
        #expect(uneven?.caseName == "invalidSparsity")
        #expect(uneven?.description.contains("dividing dimension 1 (4)") == true, "\(String(describing: uneven))")
        // With blocks of 2, dimension 1 has 2 blocks: block index 2 is out of range.
        let outside = expectModelError(Self.blockSparseModel(indices: [1, 2, 0, 1]).encode().bytes)
        #expect(outside?.caseName == "invalidSparsity")
        #expect(outside?.description.contains("array_indices[1] is 2, outside 0..<2") == true, "\(String(describing: outside))")
    }

    @Test("an external buffer (offset/size form) reads bytes past the flatbuffer")
    func externalBuffer() throws {
        let payload = TestModel.float32Bytes([4, 5, 6, 7])
        var description = TestModel.valid
        description.buffers[1] = .init(offset: 0, size: UInt64(payload.count))
        let flatbufferSize = description.encode().bytes.count
        let offset = (flatbufferSize + 15) / 16 * 16
        description.buffers[1] = .init(offset: UInt64(offset), size: UInt64(payload.count))
        var bytes = description.encode().bytes
        #expect(bytes.count == flatbufferSize)
        bytes += [UInt8](repeating: 0, count: offset - bytes.count) + payload

        let model = try TFLiteModel(bytes: ModelBytes(bytes: bytes))
        #expect(model.buffers[1].range == offset..<(offset + payload.count))
        #expect(model.withBufferBytes(1) { Array($0) } == payload)
    }

    @Test("an offset of 0 or 1 does not select the external form")
    func smallOffsetIsInline() throws {
        var description = TestModel.valid
        description.buffers[1].offset = 1
        description.buffers[1].size = 999
        let model = try TFLiteModel(bytes: ModelBytes(bytes: description.encode().bytes))
        #expect(model.withBufferBytes(1) { $0.count } == 16)
    }

    @Test("names of operators and tensor types")
    func names() {
        #expect(BuiltinOperator.conv2D.description == "CONV_2D")
        #expect(BuiltinOperator.depthwiseConv2D.description == "DEPTHWISE_CONV_2D")
        #expect(BuiltinOperator.reluN1To1.description == "RELU_N1_TO_1")
        #expect(BuiltinOperator(rawValue: 124) == .densify)
        #expect(BuiltinOperator(rawValue: 209).description == "STABLEHLO_CASE")
        #expect(BuiltinOperator(rawValue: 300).description == "BUILTIN_300")
        #expect(TensorType.float16.description == "FLOAT16")
        #expect(TensorType(rawValue: 40).description == "TYPE_40")
        #expect(TensorType.float32.byteSize == 4)
        #expect(TensorType.float16.byteSize == 2)
        #expect(TensorType.int8.byteSize == 1)
        #expect(TensorType.complex128.byteSize == 16)
        #expect(TensorType.string.byteSize == nil)
    }
}
