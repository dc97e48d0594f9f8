import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("PRELU")
struct PreluTests {
    private func prelu(_ inputDims: [Int], _ input: [Float], _ alphaDims: [Int], _ alpha: [Float]) throws
        -> (shape: [Int], values: [Float])
    {
        let kernel = try Prelu.prepare(inputs: [
            Support.operand(inputDims), Support.floatConstant(alphaDims, alpha),
        ])
        return (kernel.outputShapes[0].dimensions, runReference(kernel, [input, alpha]))
    }

    @Test func negativeInputsAreScaledByTheirChannelsAlpha() throws {
        // input [1, 2, 2, 2], alpha [1, 1, 2] = (0.5, 0.25) per channel.
        let input: [Float] = [1, -2, -4, 8, 0, -1, -3, 3]
        let result = try prelu([1, 2, 2, 2], input, [1, 1, 2], [0.5, 0.25])
        #expect(result.shape == [1, 2, 2, 2])
        #expect(result.values == [1, -0.5, -2, 8, 0, -0.25, -1.5, 3])
    }

    @Test func alphaOfTheInputsShapeAndScalarAlpha() throws {
        let sameShape = try prelu([4], [-1, -2, 3, -4], [4], [1, 2, 3, 4])
        #expect(sameShape.values == [-1, -4, 3, -16])
        let scalar = try prelu([2, 2], [-2, 2, -8, 0], [1], [0.125])
        #expect(scalar.values == [-0.25, 2, -1, 0])
    }

    @Test func unitAlphaIsIdentityAndZeroAlphaIsRelu() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        let input = Support.randomValues(3 * 4 * 5, using: &generator)
        let identity = try prelu([1, 3, 4, 5], input, [5], [Float](repeating: 1, count: 5))
        #expect(identity.values == input, "seed \(seed)")
        let relu = try prelu([1, 3, 4, 5], input, [1, 1, 5], [Float](repeating: 0, count: 5))
        #expect(relu.values == input.map { $0 >= 0 ? $0 : $0 * 0 }, "seed \(seed)")
    }

    @Test func randomChannelAlphasMatchPerElementFormula() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<50 {
            let h = Int.random(in: 1...4, using: &generator)
            let w = Int.random(in: 1...4, using: &generator)
            let c = Int.random(in: 1...9, using: &generator)
            let input = Support.randomValues(h * w * c, using: &generator)
            let alpha = Support.randomValues(c, using: &generator)
            let result = try prelu([1, h, w, c], input, [1, 1, c], alpha)
            let expected = input.indices.map { i in input[i] >= 0 ? input[i] : input[i] * alpha[i % c] }
            #expect(result.values == expected, "seed \(seed): [1, \(h), \(w), \(c)]")
        }
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("PRELU", "expects 2 inputs") {
            try Prelu.prepare(inputs: [Support.operand([1, 2, 2, 3])])
        }
        Support.expectError("PRELU", "do not broadcast") {
            try Prelu.prepare(inputs: [Support.operand([1, 2, 2, 3]), Support.operand([2])])
        }
        // TFLite broadcasts PRELU over at most 4 dimensions; equal shapes may have more.
        Support.expectError("PRELU", "at most 4") {
            try Prelu.prepare(inputs: [Support.operand([1, 1, 2, 2, 3]), Support.operand([3])])
        }
        #expect(throws: Never.self) {
            try Prelu.prepare(inputs: [Support.operand([1, 1, 2, 2, 3]), Support.operand([1, 1, 2, 2, 3])])
        }
    }
}
