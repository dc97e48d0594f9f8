import Testing
import FlatBufferReader
import TestSupport

extension ModelError {
    /// The case's name, e.g. `graph`, for matching in tests.
    var caseName: String {
        if case .noSubgraphs = self { return "noSubgraphs" }
        return Mirror(reflecting: self).children.first?.label ?? "unknown"
    }
}

/// Little-endian helpers for corrupting encoded models.
enum Bytes {
    static func read<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at position: Int) -> T {
        var value = T.zero
        for index in 0..<MemoryLayout<T>.size {
            value |= T(truncatingIfNeeded: bytes[position + index]) << (8 * index)
        }
        return value
    }

    static func write<T: FixedWidthInteger>(_ value: T, _ bytes: inout [UInt8], at position: Int) {
        for index in 0..<MemoryLayout<T>.size {
            bytes[position + index] = UInt8(truncatingIfNeeded: value >> (8 * index))
        }
    }

    static func vtable(ofTable table: Int, _ bytes: [UInt8]) -> Int {
        table - Int(read(Int32.self, bytes, at: table))
    }

    /// Position of the vtable slot holding field `id`'s offset.
    static func slot(_ id: Int, ofTable table: Int, _ bytes: [UInt8]) -> Int {
        vtable(ofTable: table, bytes) + 4 + 2 * id
    }

    /// Position of field `id` of the table at `table` (the field must be present).
    static func field(_ id: Int, ofTable table: Int, _ bytes: [UInt8]) -> Int {
        table + Int(read(UInt16.self, bytes, at: slot(id, ofTable: table, bytes)))
    }
}

/// One malformed model and the error it must produce.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// `ModelError` case name expected.
    let expected: String
    /// Text the error's description must contain (what and where).
    let message: String
    var limits: VerifierLimits = .default
    let bytes: @Sendable () -> [UInt8]

    var testDescription: String { name }

    init(_ name: String, _ expected: String, _ message: String, limits: VerifierLimits = .default,
         bytes: @escaping @Sendable () -> [UInt8]) {
        self.name = name
        self.expected = expected
        self.message = message
        self.limits = limits
        self.bytes = bytes
    }

    /// The valid model after `change`.
    static func model(_ change: @escaping @Sendable (inout TestModel) -> Void) -> @Sendable () -> [UInt8] {
        {
            var model = TestModel.valid
            change(&model)
            return model.encode().bytes
        }
    }

    /// The valid model's bytes after `patch`, given the positions of its objects.
    static func patched(_ patch: @escaping @Sendable (inout [UInt8], [String: Int]) -> Void) -> @Sendable () -> [UInt8] {
        {
            var encoded = TestModel.valid.encode()
            patch(&encoded.bytes, encoded.positions)
            return encoded.bytes
        }
    }
}

extension MalformedCase {
    static let structural: [MalformedCase] = [
        MalformedCase("shorter than the minimum", "truncated", "at least 16", bytes: { Array(TestModel.valid.encode().bytes.prefix(10)) }),
        MalformedCase("bad file identifier", "badIdentifier", "'TFL2', expected 'TFL3'", bytes: model { $0.identifier = "TFL2" }),
        MalformedCase("root offset past the end", "outOfBounds", "root table offset", bytes: patched { bytes, _ in
            Bytes.write(UInt32(bytes.count + 64), &bytes, at: 0)
        }),
        MalformedCase("root table misaligned", "misaligned", "not 4-byte aligned", bytes: patched { bytes, positions in
            Bytes.write(UInt32(positions["root"]! + 2), &bytes, at: 0)
        }),
        MalformedCase("vtable offset out of range", "outOfBounds", "vtable of the table", bytes: patched { bytes, positions in
            Bytes.write(Int32(-0x4000_0000), &bytes, at: positions["root"]!)
        }),
        MalformedCase("vtable size odd", "malformed", "not an even number", bytes: patched { bytes, positions in
            Bytes.write(UInt16(7), &bytes, at: Bytes.vtable(ofTable: positions["root"]!, bytes))
        }),
        MalformedCase("field outside its table", "malformed", "Model.version: field at offset 200", bytes: patched { bytes, positions in
            Bytes.write(UInt16(200), &bytes, at: Bytes.slot(0, ofTable: positions["root"]!, bytes))
        }),
        MalformedCase("zero offset", "malformed", "tensors[0].name: offset at byte", bytes: patched { bytes, positions in
            Bytes.write(UInt32(0), &bytes, at: Bytes.field(3, ofTable: positions["tensor0"]!, bytes))
        }),
        MalformedCase("vector offset misaligned", "misaligned", "tensors[0].shape", bytes: patched { bytes, positions in
            let field = Bytes.field(0, ofTable: positions["tensor0"]!, bytes)
            Bytes.write(Bytes.read(UInt32.self, bytes, at: field) + 2, &bytes, at: field)
        }),
        MalformedCase("string length past the end", "outOfBounds", "Model.subgraphs[0].tensors[0].name", bytes: patched { bytes, positions in
            Bytes.write(UInt32(0x7FFF_FFF0), &bytes, at: positions["tensor0.name"]!)
        }),
        MalformedCase("string without terminator", "malformed", "not zero-terminated", bytes: patched { bytes, positions in
            let string = positions["tensor0.name"]!
            bytes[string + 4 + Int(Bytes.read(UInt32.self, bytes, at: string))] = 0x41
        }),
        MalformedCase("vector length past the end", "outOfBounds", "tensors[0].shape", bytes: model {
            $0.subgraphs[0].tensors[0].shapeDeclaredCount = 1000
        }),
        MalformedCase("vector length 2^32 - 1", "outOfBounds", "4294967295 elements", bytes: model {
            $0.subgraphs[0].tensors[0].shapeDeclaredCount = .max
        }),
        MalformedCase(
            "vector longer than the limit", "limitExceeded", "Model.operator_codes: vector of 5 elements, more than 4",
            limits: VerifierLimits(maxVectorLength: 4),
            bytes: model { _ in }),
        MalformedCase(
            "deeply nested tables", "limitExceeded", "nested 5 deep", limits: VerifierLimits(maxDepth: 4), bytes: model { _ in }),
        MalformedCase("too many tables", "limitExceeded", "more than 10 tables", limits: VerifierLimits(maxTables: 10), bytes: model { _ in }),
        MalformedCase(
            "too many decoded elements", "limitExceeded", "decoded vector elements", limits: VerifierLimits(maxDecodedElements: 20),
            bytes: model { _ in }),
        MalformedCase("model larger than the limit", "tooLarge", "limit of 100 bytes", limits: VerifierLimits(maxModelSize: 100), bytes: model { _ in }),
        MalformedCase("union type without value", "malformed", "operators[0].builtin_options: union type is set", bytes: model {
            $0.subgraphs[0].operators[0].options = nil
        }),
        MalformedCase("union value without type", "malformed", "its type is NONE", bytes: model {
            $0.subgraphs[0].operators[0].optionsType = nil
        }),
        MalformedCase("union type beyond the schema", "invalidEnum", "invalid enum value 200", bytes: model {
            $0.subgraphs[0].operators[0].optionsType = 200
        }),
        MalformedCase("tensor type out of range", "invalidEnum", "tensors[3].type (TensorType)", bytes: model {
            $0.subgraphs[0].tensors[3].type = 42
        }),
    ]

    static let semantic: [MalformedCase] = [
        MalformedCase("zero subgraphs", "noSubgraphs", "no subgraph", bytes: model { $0.subgraphs = [] }),
        MalformedCase("unsupported version", "unsupportedVersion", "version is 2", bytes: model { $0.version = 2 }),
        MalformedCase("custom operator without a name", "malformed", "operator code 1 is CUSTOM", bytes: model {
            $0.operatorCodes[1] = .init(deprecatedBuiltinCode: 32)
        }),
        MalformedCase("negative builtin code", "invalidEnum", "operator code 1", bytes: model {
            $0.operatorCodes[1] = .init(deprecatedBuiltinCode: -5, builtinCode: -1)
        }),
        MalformedCase("negative dimension", "invalidShape", "tensor 3 'conv': dimension 1 is -2", bytes: model {
            $0.subgraphs[0].tensors[3].shape = [1, -2, 2, 2]
        }),
        MalformedCase("huge dimension", "invalidShape", "2^31 or more elements", bytes: model {
            $0.subgraphs[0].tensors[3].shape = [1, .max, 2, 2]
        }),
        MalformedCase("element count overflow", "invalidShape", "2^31 or more elements", bytes: model {
            $0.subgraphs[0].tensors[3].shape = [.max, .max, .max, .max, .max]
        }),
        MalformedCase("shape signature of another rank", "invalidShape", "shape_signature [-1, 2]", bytes: model {
            $0.subgraphs[0].tensors[0].shapeSignature = [-1, 2]
        }),
        MalformedCase(
            "tensor index out of range", "invalidIndex",
            "subgraph 0 operator 0 (CONV_2D): input 2 refers to tensor 900 but the subgraph has 7 tensors",
            bytes: model { $0.subgraphs[0].operators[0].inputs = [0, 1, 900] }),
        MalformedCase("graph output index out of range", "invalidIndex", "subgraph 0: output 1 refers to tensor 7", bytes: model {
            $0.subgraphs[0].outputs = [4, 7]
        }),
        MalformedCase("buffer index out of range", "invalidIndex", "tensor 1 'filter': buffer refers to buffer 99", bytes: model {
            $0.subgraphs[0].tensors[1].buffer = 99
        }),
        MalformedCase("opcode index out of range", "invalidIndex", "operator 1: opcode_index refers to operator code 17", bytes: model {
            $0.subgraphs[0].operators[1].opcodeIndex = 17
        }),
        MalformedCase("metadata buffer out of range", "invalidIndex", "metadata 0 'min_runtime_version'", bytes: model {
            $0.metadata = [("min_runtime_version", 50)]
        }),
        MalformedCase("-1 as an operator output", "graph", "operator 1 (ADD): output 0 is -1", bytes: model {
            $0.subgraphs[0].operators[1].outputs = [-1]
        }),
        MalformedCase("-1 as a graph input", "graph", "subgraph 0: input 0 is -1", bytes: model { $0.subgraphs[0].inputs = [-1] }),
        MalformedCase("-1 as a graph output", "graph", "subgraph 0: output 0 is -1", bytes: model { $0.subgraphs[0].outputs = [-1] }),
        MalformedCase("operator writes its own input", "graph", "tensor 3 'conv' is both an input and an output", bytes: model {
            $0.subgraphs[0].operators[1].outputs = [3]
        }),
        MalformedCase("two operators write one tensor", "graph", "tensor 3 'conv', already written by operator 0", bytes: model {
            $0.subgraphs[0].operators[1].inputs = [0, 0]
            $0.subgraphs[0].operators[1].outputs = [3]
        }),
        MalformedCase("operator writes a graph input", "graph", "tensor 0 'input', a graph input", bytes: model {
            $0.subgraphs[0].operators[1].inputs = [3, 3]
            $0.subgraphs[0].operators[1].outputs = [0]
        }),
        MalformedCase("operator writes a constant", "graph", "tensor 1 'filter', which holds constant data", bytes: model {
            $0.subgraphs[0].operators[1].outputs = [1]
        }),
        MalformedCase("use before produce", "graph", "operator 0 (ADD): input 0 reads tensor 3 'conv', which operator 1 produces later", bytes: model {
            $0.subgraphs[0].operators.swapAt(0, 1)
        }),
        MalformedCase("cycle", "graph", "operator 0 (CONV_2D): input 0 reads tensor 4 'sum', which operator 1 produces later", bytes: model {
            $0.subgraphs[0].operators[0].inputs = [4, 1, 2]
        }),
        MalformedCase("input nothing produces", "graph", "reads tensor 7 'orphan', which no operator produces", bytes: model {
            $0.subgraphs[0].tensors.append(.init(name: "orphan", type: 0, shape: [1, 2, 2, 2], buffer: 0))
            $0.subgraphs[0].operators[1].inputs = [3, 7]
        }),
        MalformedCase("graph output nothing produces", "graph", "output 2 is tensor 7 'orphan', which nothing produces", bytes: model {
            $0.subgraphs[0].tensors.append(.init(name: "orphan", type: 0, shape: [1], buffer: 0))
            $0.subgraphs[0].outputs = [4, 6, 7]
        }),
        MalformedCase("buffer 0 not empty", "invalidBuffer", "buffer 0 must be the empty sentinel", bytes: model {
            $0.buffers[0] = .init(data: [1, 2])
        }),
        MalformedCase("external buffer past the end", "invalidBuffer", "buffer 1 lies at external offset 1099511627776", bytes: model {
            $0.buffers[1] = .init(offset: 1 << 40, size: 16)
        }),
        MalformedCase("external buffer size overflowing", "invalidBuffer", "size 18446744073709551615", bytes: model {
            $0.buffers[1] = .init(offset: 64, size: .max)
        }),
        MalformedCase("buffer both inline and external", "invalidBuffer", "both 16 inline bytes and an external offset", bytes: model {
            $0.buffers[1].offset = 64
            $0.buffers[1].size = 16
        }),
        MalformedCase(
            "buffer size mismatch", "invalidBuffer",
            "buffer 1 holds 12 bytes, but 4 FLOAT32 values from shape [2, 1, 1, 2] need 16",
            bytes: model { $0.buffers[1].data = TestModel.float32Bytes([1, 2, 3]) }),
        MalformedCase("sparse values size mismatch", "invalidBuffer", "3 FLOAT32 values from its sparsity description need 12", bytes: model {
            $0.buffers[3].data = TestModel.float32Bytes([1, 2])
        }),
        MalformedCase("sparse tensor without values", "invalidBuffer", "is sparse but its buffer 3 holds no values", bytes: model {
            $0.buffers[3].data = nil
        }),
        MalformedCase("sparse index out of range", "invalidSparsity", "array_indices[2] is 3, outside 0..<3", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.dimensions[1].indices = .int32([2, 0, 3])
        }),
        MalformedCase("traversal order not a permutation", "invalidSparsity", "traversal_order [0, 0] is not a permutation", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.traversalOrder = [0, 0]
        }),
        MalformedCase("dimension metadata count mismatch", "invalidSparsity", "dim_metadata has 1 entries", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.dimensions.removeLast()
        }),
        MalformedCase("segments not starting at 0", "invalidSparsity", "array_segments start at 1", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.dimensions[1].segments = .uint8([1, 1, 3])
        }),
        MalformedCase("segments decreasing", "invalidSparsity", "array_segments decrease at entry 2", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.dimensions[1].segments = .uint8([0, 2, 1])
        }),
        MalformedCase("segments beyond the indices", "invalidSparsity", "end at 4 but there are only 3 array_indices", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.dimensions[1].segments = .uint8([0, 1, 4])
        }),
        MalformedCase("dense size mismatch", "invalidSparsity", "dimension 0 is dense with dense_size 5 but has size 2", bytes: model {
            $0.subgraphs[0].tensors[5].sparsity!.dimensions[0].denseSize = 5
        }),
        MalformedCase("options field outside its table", "malformed", "operators[0].builtin_options.padding: field at offset", bytes: patched { bytes, positions in
            // CONV_2D's options table declares only the `soffset` as inline bytes.
            let op = positions["operator0"]!
            let options = Bytes.field(4, ofTable: op, bytes)
            let table = options + Int(Bytes.read(UInt32.self, bytes, at: options))
            Bytes.write(UInt16(4), &bytes, at: Bytes.vtable(ofTable: table, bytes) + 2)
        }),
    ]
}

@Suite("Malformed models")
struct MalformedModelTests {
    @Test("the base test model is valid")
    func baseModelLoads() throws {
        _ = try TFLiteModel(bytes: ModelBytes(bytes: TestModel.valid.encode().bytes))
    }

    @Test("structural corruption gives a typed error", arguments: MalformedCase.structural)
    func structural(_ testCase: MalformedCase) {
        check(testCase)
    }

    @Test("semantic corruption gives a typed error", arguments: MalformedCase.semantic)
    func semantic(_ testCase: MalformedCase) {
        check(testCase)
    }

    private func check(_ testCase: MalformedCase) {
        guard let error = expectModelError(testCase.bytes(), limits: testCase.limits, "\(testCase.name)") else { return }
        #expect(error.caseName == testCase.expected, "\(testCase.name): \(error)")
        #expect(error.description.contains(testCase.message), "\(testCase.name): \(error)")
    }

    @Test("every prefix of a small valid model is rejected")
    func everyPrefix() {
        let bytes = TestModel.valid.encode().bytes
        for length in 0..<bytes.count {
            expectModelError(Array(bytes.prefix(length)), "prefix of \(length) of \(bytes.count) bytes")
        }
    }

    @Test("truncated real models are rejected", arguments: TestPaths.allModelNames)
    func truncatedRealModel(name: String) throws {
        guard let bytes = TestPaths.modelBytes(name) else { return }
        // These files hold the model table and buffer vector first, then the weights, then the
        // subgraph's tables, then (for some) an appended zip of associated files that the
        // flatbuffer does not reference. Cut inside the header, inside the weights, just before
        // the last weight byte, and just after it (dropping the tensor and operator tables).
        let model = try TFLiteModel(bytes: ModelBytes(bytes: bytes))
        let weightsEnd = try #require(model.buffers.map(\.range.upperBound).max())
        let count = bytes.count
        let lengths = [0, 3, 8, 16, 100, 4096, count / 2, weightsEnd - 1, weightsEnd + 64]
        for length in lengths {
            expectModelError(Array(bytes.prefix(length)), "\(name) cut to \(length) of \(count) bytes")
        }
    }
}
