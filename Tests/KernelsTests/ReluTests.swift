import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("RELU")
struct ReluTests {
    private func relu(_ input: [Float]) throws -> [Float] {
        let kernel = try Relu.prepare(inputs: [Support.operand([input.count])], options: NoOptions())
        #expect(kernel.outputShapes[0].dimensions == [input.count])
        return runReference(kernel, [input])
    }

    @Test func knownValues() throws {
        let values = try relu([-5, -1e-30, 0, 1e-30, 2.5, .infinity, -.infinity])
        #expect(values == [0, 0, 0, 1e-30, 2.5, .infinity, 0])
        // −0 and NaN become +0, as std::max(0.0f, x) and XNNPACK's maxps(x, 0) give.
        let special = try relu([-0.0, .nan, -.nan])
        #expect(special.allSatisfy { $0 == 0 && $0.sign == .plus })
    }

    @Test func fastMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let shape = randomElementwiseShape(using: &rng)
            let kernel = try Relu.prepare(inputs: [Support.operand(shape)], options: NoOptions())
            let input = sweepValues(shape.reduce(1, *), specialEvery: 13, using: &rng)
            expectFastMatchesReference(kernel, [input], "shape \(shape), seed \(seed)")
        }
        let empty = try Relu.prepare(inputs: [Support.operand([0, 5])], options: NoOptions())
        expectFastMatchesReference(empty, [[]], "empty RELU")
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("RELU", "expects 1 input, got 2") {
            try Relu.prepare(inputs: [Support.operand([2]), Support.operand([2])], options: NoOptions())
        }
        Support.expectError("RELU", "expects 1 input, got 0") {
            try Relu.prepare(inputs: [], options: NoOptions())
        }
    }

    @Test func runsInAModel() throws {
        var rng = SeededGenerator.announced()
        let input = sweepValues(2 * 3 * 5 * 7, specialEvery: 11, using: &rng)
        let reference = runReference(try Relu.prepare(inputs: [Support.operand([2, 3, 5, 7])], options: NoOptions()), [input])
        #expect(reference.contains { $0 > 0 } && reference.contains { $0 == 0 })
        let bytes = SingleOperatorModel.bytes(.relu, inputs: [.init(shape: [2, 3, 5, 7])], outputShape: [2, 3, 5, 7])
        for mode in Interpreter.ExecutionMode.allCases {
            let output = try SingleOperatorModel.run(bytes, inputs: [input], mode: mode, threads: 2)
            #expect(output.map(\.bitPattern) == reference.map(\.bitPattern), "\(mode)")
        }
    }

    @Test func badModelsGiveTypedErrors() {
        let twoInputs = SingleOperatorModel.bytes(.relu, inputs: [.init(shape: [4]), .init(shape: [4])], outputShape: [4])
        SingleOperatorModel.expectInvalidOperator(twoInputs, "expects 1 input, got 2")
        let mulOptions = SingleOperatorModel.bytes(
            .relu, inputs: [.init(shape: [4])], outputShape: [4], optionsType: BuiltinOptionsType.mul,
            options: [0: .int8(0)])
        SingleOperatorModel.expectInvalidOperator(mulOptions, "options table of union type \(BuiltinOptionsType.mul)")
        let wrongShape = SingleOperatorModel.bytes(.relu, inputs: [.init(shape: [4])], outputShape: [5])
        SingleOperatorModel.expectLoadError(wrongShape) {
            if case .outputShapeMismatch = $0 { return true }
            return false
        }
    }
}
