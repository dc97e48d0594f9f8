import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("HARD_SWISH")
struct HardSwishTests {
    private func hardSwish(_ input: [Float]) throws -> [Float] {
        let kernel = try HardSwish.prepare(inputs: [Support.operand([input.count])], options: NoOptions())
        #expect(kernel.outputShapes[0].dimensions == [input.count])
        return runReference(kernel, [input])
    }

    @Test func knownValues() throws {
        let values = try hardSwish([-5, -3, -1.5, 0, 1.5, 3, 5, .infinity])
        #expect(values == [0, 0, -0.375, 0, 1.125, 3, 5, .infinity])
        // x · 0 keeps the sign of x below -3; -∞ · 0 and NaN are NaN, as in TFLite's formula.
        #expect(values[0].sign == .minus)
        let special = try hardSwish([-.infinity, .nan, -0.0])
        #expect(special[0].isNaN && special[1].isNaN)
        #expect(special[2] == 0 && special[2].sign == .minus)
    }

    @Test func fastMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let shape = randomElementwiseShape(using: &rng)
            let kernel = try HardSwish.prepare(inputs: [Support.operand(shape)], options: NoOptions())
            // -4...4 covers both bends (-3 and 3) and the lines beyond them.
            let input = sweepValues(shape.reduce(1, *), specialEvery: 13, using: &rng)
            expectFastMatchesReference(kernel, [input], "shape \(shape), seed \(seed)")
        }
        let empty = try HardSwish.prepare(inputs: [Support.operand([0, 5])], options: NoOptions())
        expectFastMatchesReference(empty, [[]], "empty HARD_SWISH")
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("HARD_SWISH", "expects 1 input, got 2") {
            try HardSwish.prepare(inputs: [Support.operand([2]), Support.operand([2])], options: NoOptions())
        }
        Support.expectError("HARD_SWISH", "expects 1 input, got 0") {
            try HardSwish.prepare(inputs: [], options: NoOptions())
        }
    }

    @Test func runsInAModel() throws {
        var rng = SeededGenerator.announced()
        let input = sweepValues(2 * 3 * 5 * 7, specialEvery: 11, using: &rng)
        let reference = runReference(
            try HardSwish.prepare(inputs: [Support.operand([2, 3, 5, 7])], options: NoOptions()), [input])
        // With the (empty) HardSwishOptions table and without any.
        for optionsType in [nil, BuiltinOptionsType.hardSwish] {
            let bytes = SingleOperatorModel.bytes(
                .hardSwish, inputs: [.init(shape: [2, 3, 5, 7])], outputShape: [2, 3, 5, 7],
                optionsType: optionsType, options: optionsType.map { _ in [:] })
            for mode in Interpreter.ExecutionMode.allCases {
                let output = try SingleOperatorModel.run(bytes, inputs: [input], mode: mode, threads: 2)
                #expect(
                    output.map(\.bitPattern) == reference.map(\.bitPattern),
                    "\(mode), options type \(String(describing: optionsType))")
            }
        }
    }

    @Test func badModelsGiveTypedErrors() {
        let twoInputs = SingleOperatorModel.bytes(
            .hardSwish, inputs: [.init(shape: [4]), .init(shape: [4])], outputShape: [4])
        SingleOperatorModel.expectInvalidOperator(twoInputs, "expects 1 input, got 2")
        let mulOptions = SingleOperatorModel.bytes(
            .hardSwish, inputs: [.init(shape: [4])], outputShape: [4], optionsType: BuiltinOptionsType.mul,
            options: [0: .int8(0)])
        SingleOperatorModel.expectInvalidOperator(mulOptions, "options table of union type \(BuiltinOptionsType.mul)")
        let wrongShape = SingleOperatorModel.bytes(.hardSwish, inputs: [.init(shape: [4])], outputShape: [5])
        SingleOperatorModel.expectLoadError(wrongShape) {
            if case .outputShapeMismatch = $0 { return true }
            return false
        }
        let int32Input = SingleOperatorModel.bytes(.hardSwish, inputs: [.init(shape: [4], type: 2)], outputShape: [4])
        SingleOperatorModel.expectLoadError(int32Input) {
            if case .unsupportedTensorType = $0 { return true }
            return false
        }
    }
}
