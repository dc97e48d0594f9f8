import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("MUL")
struct MulTests {
    private func mul(
        _ lhsDims: [Int], _ lhs: [Float], _ rhsDims: [Int], _ rhs: [Float], activation: FusedActivation = .none
    ) throws -> (shape: [Int], values: [Float]) {
        let kernel = try Mul.prepare(
            inputs: [Support.operand(lhsDims), Support.operand(rhsDims)], options: .init(activation: activation))
        return (kernel.outputShapes[0].dimensions, runReference(kernel, [lhs, rhs]))
    }

    @Test func broadcastsLikeAdd() throws {
        // [1, 2, 2, 3] · [3]: a per-channel scale.
        let image: [Float] = (1...12).map(Float.init)
        let scaled = try mul([1, 2, 2, 3], image, [3], [1, 10, 100])
        #expect(scaled.shape == [1, 2, 2, 3])
        #expect(scaled.values == [1, 20, 300, 4, 50, 600, 7, 80, 900, 10, 110, 1200])
        // [2, 1] · [3]: an outer product.
        let table = try mul([2, 1], [2, 3], [3], [1, 10, 100])
        #expect(table.shape == [2, 3])
        #expect(table.values == [2, 20, 200, 3, 30, 300])
        // A scalar broadcasts to anything.
        #expect(try mul([], [0.5], [2, 2], [1, 2, 3, 4]).values == [0.5, 1, 1.5, 2])
    }

    @Test func fusedActivationsClampTheProduct() throws {
        let inputs: [Float] = [-3, 0.25, 2, 7]
        #expect(try mul([4], inputs, [1], [2], activation: .relu).values == [0, 0.5, 4, 14])
        #expect(try mul([4], inputs, [1], [2], activation: .relu6).values == [0, 0.5, 4, 6])
        #expect(try mul([4], inputs, [1], [1], activation: .reluN1To1).values == [-1, 0.25, 1, 1])
    }

    @Test func infinitiesAreClampedToFiniteBoundsAndNaNPassesThrough() throws {
        let big = Float.greatestFiniteMagnitude
        let result = try mul([4], [big, -big, .infinity, .nan], [1], [2])
        #expect(result.values[0] == big && result.values[1] == -big && result.values[2] == big)
        #expect(result.values[3].isNaN)
        // ∞ · 0 is NaN.
        #expect(try mul([1], [.infinity], [1], [0]).values[0].isNaN)
    }

    @Test func fastMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .reluN1To1, .relu6]
        for _ in 0..<150 {
            let output = randomElementwiseShape(using: &rng)
            var (lhs, rhs) = randomBroadcastPair(output, using: &rng)
            if Bool.random(using: &rng) { swap(&lhs, &rhs) }
            let activation = activations.randomElement(using: &rng)!
            let kernel = try Mul.prepare(
                inputs: [Support.operand(lhs), Support.operand(rhs)], options: .init(activation: activation))
            let lhsValues = sweepValues(lhs.reduce(1, *), specialEvery: 17, using: &rng)
            var rhsValues = sweepValues(rhs.reduce(1, *), specialEvery: 17, using: &rng)
            // Products that overflow to infinity, which the kernel clamps to finite.
            if let first = rhsValues.indices.first { rhsValues[first] = Float.greatestFiniteMagnitude }
            expectFastMatchesReference(
                kernel, [lhsValues, rhsValues], "lhs \(lhs) rhs \(rhs) \(activation), seed \(seed)")
        }
        let empty = try Mul.prepare(inputs: [Support.operand([0, 3]), Support.operand([3])], options: .init())
        expectFastMatchesReference(empty, [[], [1, 2, 3]], "empty MUL")
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("MUL", "expects 2 inputs, got 1") {
            try Mul.prepare(inputs: [Support.operand([2])], options: .init())
        }
        Support.expectError("MUL", "sizes 3 and 4") {
            try Mul.prepare(inputs: [Support.operand([2, 3]), Support.operand([4])], options: .init())
        }
        Support.expectError("MUL", "rank 7") {
            try Mul.prepare(inputs: [Support.operand([1, 1, 1, 1, 1, 1, 2]), Support.operand([2])], options: .init())
        }
    }

    /// MUL with a constant per-channel scale and each fused activation, as the interpreter
    /// loads it from a model: both modes give the kernel's reference output.
    @Test func runsInAModel() throws {
        var rng = SeededGenerator.announced()
        let input = sweepValues(2 * 5 * 9, specialEvery: 11, using: &rng)
        let scale = sweepValues(9, using: &rng)
        let activations: [(code: Int8, activation: FusedActivation)] = [
            (0, .none), (1, .relu), (2, .reluN1To1), (3, .relu6),
        ]
        for (code, activation) in activations {
            let reference = runReference(
                try Mul.prepare(
                    inputs: [Support.operand([2, 5, 9]), Support.operand([9])], options: .init(activation: activation)),
                [input, scale])
            let bytes = SingleOperatorModel.bytes(
                .mul, inputs: [.init(shape: [2, 5, 9]), .init(shape: [9], constant: scale)], outputShape: [2, 5, 9],
                optionsType: BuiltinOptionsType.mul, options: [0: .int8(code)])
            for mode in Interpreter.ExecutionMode.allCases {
                let output = try SingleOperatorModel.run(bytes, inputs: [input], mode: mode, threads: 2)
                #expect(output.map(\.bitPattern) == reference.map(\.bitPattern), "\(activation) \(mode)")
            }
        }
        // Without an options table: no activation.
        let bare = SingleOperatorModel.bytes(
            .mul, inputs: [.init(shape: [2, 5, 9]), .init(shape: [9], constant: scale)], outputShape: [2, 5, 9])
        let reference = runReference(
            try Mul.prepare(inputs: [Support.operand([2, 5, 9]), Support.operand([9])], options: .init()),
            [input, scale])
        let bareOutput = try SingleOperatorModel.run(bare, inputs: [input], mode: .fast)
        #expect(bareOutput.map(\.bitPattern) == reference.map(\.bitPattern))
    }

    @Test func badModelsGiveTypedErrors() {
        func model(
            inputs: [SingleOperatorModel.Input] = [.init(shape: [4]), .init(shape: [4])], outputShape: [Int32] = [4],
            optionsType: UInt8? = BuiltinOptionsType.mul, options: [Int: TestModel.Field]? = [0: .int8(0)]
        ) -> [UInt8] {
            SingleOperatorModel.bytes(
                .mul, inputs: inputs, outputShape: outputShape, optionsType: optionsType, options: options)
        }
        SingleOperatorModel.expectInvalidOperator(model(inputs: [.init(shape: [4])]), "expects 2 inputs, got 1")
        SingleOperatorModel.expectInvalidOperator(
            model(inputs: [.init(shape: [4]), .init(shape: [4]), .init(shape: [4])]), "expects 2 inputs, got 3")
        SingleOperatorModel.expectInvalidOperator(
            model(inputs: [.init(shape: [2, 3]), .init(shape: [4])], outputShape: [2, 4]), "sizes 3 and 4")
        // A fused TANH (a valid enum value no kernel fuses) and a value outside the enum.
        SingleOperatorModel.expectInvalidOperator(
            model(options: [0: .int8(4)]), "fused activation tanh is not supported")
        SingleOperatorModel.expectLoadError(model(options: [0: .int8(9)])) {
            guard case .invalidModel(.invalidEnum(let what, 9)) = $0 else { return false }
            return what.contains("fused_activation_function")
        }
        // Another operator's options table (ADD's has the same layout, but not the same type).
        SingleOperatorModel.expectInvalidOperator(
            model(optionsType: BuiltinOptionsType.add), "options table of union type \(BuiltinOptionsType.add)")
    }

    /// A MulOptions table whose vtable declares 4 inline bytes (the `soffset` only) while
    /// placing `fused_activation_function` past them: the verifier, which knows the table's
    /// fields from the schema, refuses it.
    @Test func anActivationFieldOutsideItsTableIsRefused() {
        var model = TestModel()
        model.operatorCodes = [TestModel.OperatorCode(deprecatedBuiltinCode: 18, builtinCode: 18)]
        model.subgraphs = [TestModel.SubGraph(
            tensors: (0..<3).map { TestModel.Tensor(name: "t\($0)", type: 0, shape: [4], buffer: 0) },
            inputs: [0, 1], outputs: [2],
            operators: [TestModel.Operator(
                opcodeIndex: 0, inputs: [0, 1], outputs: [2], optionsType: BuiltinOptionsType.mul,
                options: [0: .int8(1)])])]
        let encoded = model.encode()
        var bytes = encoded.bytes
        func int32(at position: Int) -> Int {
            Int(Int32(littleEndian: bytes[position..<(position + 4)].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }))
        }
        func uint16(at position: Int) -> Int {
            Int(bytes[position]) | Int(bytes[position + 1]) << 8
        }
        // Operator table -> its builtin_options field (id 4) -> the options table -> its vtable.
        let op = encoded.positions["operator0"]!
        let field = op + uint16(at: op - int32(at: op) + 4 + 2 * 4)
        let options = field + int32(at: field)
        let vtable = options - int32(at: options)
        #expect(uint16(at: vtable + 4) >= 4, "fused_activation_function lies past the soffset")
        bytes[vtable + 2] = 4
        bytes[vtable + 3] = 0
        SingleOperatorModel.expectLoadError(bytes) {
            guard case .invalidModel(.malformed(let what)) = $0 else { return false }
            return what.contains("operators[0].builtin_options.fused_activation_function: field at offset")
        }
    }
}
