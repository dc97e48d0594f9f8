import Foundation
import Kernels
import Tensor
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("LOGISTIC")
struct LogisticTests {
    private func logistic(_ input: [Float]) throws -> [Float] {
        let kernel = try Logistic.prepare(inputs: [Support.operand([input.count])])
        #expect(kernel.outputShapes[0].dimensions == [input.count])
        return runReference(kernel, [input])
    }

    @Test func zeroAndSaturation() throws {
        let values = try logistic([0, -0.0, 100, -100, 1000, -1000, .infinity, -.infinity])
        #expect(values == [0.5, 0.5, 1, 0, 1, 0, 1, 0])
    }

    @Test func matchesTheDoublePrecisionFormula() throws {
        let input: [Float] = stride(from: -12, through: 12, by: 0.125).map { $0 }
        let values = try logistic(input)
        for (x, y) in zip(input, values) {
            let expected = 1 / (1 + Foundation.exp(-Double(x)))
            #expect(abs(Double(y) - expected) <= 1e-6 * max(expected, 1e-3), "at \(x)")
        }
        // Monotonic and symmetric about (0, 0.5).
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        for (a, b) in zip(values, values.reversed()) {
            #expect(abs(a + b - 1) <= 1e-6)
        }
    }

    @Test func prepareRejectsBadOperandCounts() {
        Support.expectError("LOGISTIC", "expects 1 input, got 2") {
            try Logistic.prepare(inputs: [Support.operand([2]), Support.operand([2])])
        }
        Support.expectError("LOGISTIC", "expects 1 input, got 0") {
            try Logistic.prepare(inputs: [])
        }
    }
}
