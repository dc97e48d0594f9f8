import Kernels
import Tensor
import TestSupport
import Testing

@Suite struct FullyConnectedTests {
    typealias S = ConvTestSupport

    static func fullyConnected(
        input: [Int], weights: [Int], _ weightValues: [Float], bias: [Float]? = nil,
        _ options: FullyConnected.Options = .init()
    ) throws -> FullyConnected {
        var operands = [S.activation(input), S.constant(weights, weightValues)]
        if let bias { operands.append(S.constant([bias.count], bias)) }
        return try FullyConnected.prepare(inputs: operands, options: options)
    }

    // MARK: Hand-computed cases

    @Test func dotProductsPlusBiasThenClamp() throws {
        // [1, 2, 3] · [1, 0, −1] = −2, · [2, 2, 2] = 12; bias [0.5, −4] → −1.5, 8.
        let expected: [(FusedActivation, [Float])] = [
            (.none, [-1.5, 8]), (.relu, [0, 8]), (.relu6, [0, 6]), (.reluN1To1, [-1, 1]),
        ]
        for (activation, values) in expected {
            let kernel = try Self.fullyConnected(
                input: [1, 3], weights: [2, 3], [1, 0, -1, 2, 2, 2], bias: [0.5, -4], .init(activation: activation))
            #expect(kernel.outputShapes == [S.shape([1, 2])])
            #expect(kernel.multiplyAccumulates == 6)
            #expect(runReference(kernel, [[1, 2, 3]]) == values, "activation \(activation)")
        }
    }

    @Test func keepNumDimsKeepsLeadingDimensions() throws {
        // Rows [1, 2, 3] → [−2, 12], [4, 5, 6] → [−2, 30].
        let weights: [Float] = [1, 0, -1, 2, 2, 2]
        let kept = try Self.fullyConnected(input: [2, 1, 3], weights: [2, 3], weights, .init(keepNumDims: true))
        let flat = try Self.fullyConnected(input: [2, 1, 3], weights: [2, 3], weights, .init(keepNumDims: false))
        #expect(kept.outputShapes == [S.shape([2, 1, 2])])
        #expect(flat.outputShapes == [S.shape([2, 2])])
        #expect(runReference(kept, [[1, 2, 3, 4, 5, 6]]) == [-2, 12, -2, 30])
        #expect(runReference(flat, [[1, 2, 3, 4, 5, 6]]) == [-2, 12, -2, 30])
    }

    @Test func flattensInputWhoseLastDimensionIsNotK() throws {
        // [2, 3] holding 1…6 read as three rows of K = 2: [1,2], [3,4], [5,6];
        // weights [1, 1] and [1, −1] give sums and differences.
        let kernel = try Self.fullyConnected(input: [2, 3], weights: [2, 2], [1, 1, 1, -1])
        #expect(kernel.outputShapes == [S.shape([3, 2])])
        #expect(runReference(kernel, [[1, 2, 3, 4, 5, 6]]) == [3, -1, 7, -1, 11, -1])
    }

    // MARK: Properties

    @Test func randomSweepMatchesOuterProductAccumulation() throws {
        // The oracle builds the product as a sum of outer products (k outermost)
        // in Double, the opposite loop order to the kernel's dot products.
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        for trial in 0..<60 {
            let rows = Int.random(in: 1...5, using: &g), k = Int.random(in: 1...40, using: &g)
            let outputs = Int.random(in: 1...20, using: &g)
            let leading = rows == 1 ? [1] : [1, rows]
            let input = S.randomFloats(rows * k, using: &g)
            let weights = S.randomFloats(outputs * k, using: &g)
            let bias = S.randomFloats(outputs, using: &g)
            let kernel = try Self.fullyConnected(
                input: leading + [k], weights: [outputs, k], weights, bias: bias, .init(keepNumDims: true))
            var expected = (0..<(rows * outputs)).map { Double(bias[$0 % outputs]) }
            for kk in 0..<k {
                for r in 0..<rows {
                    for o in 0..<outputs {
                        expected[r * outputs + o] += Double(input[r * k + kk]) * Double(weights[o * k + kk])
                    }
                }
            }
            let context = "trial \(trial), seed \(seed), rows \(rows), K \(k), Nout \(outputs)"
            #expect(kernel.outputShapes == [S.shape(leading + [outputs])], "\(context)")
            #expect(kernel.multiplyAccumulates == rows * outputs * k, "\(context)")
            let output = runReference(kernel, [input])
            let mismatch = S.firstMismatch(output, expected, tolerance: S.summationTolerance(terms: k))
            #expect(mismatch == nil, "\(context): \(mismatch ?? "")")
        }
    }

    // MARK: Prepare errors

    @Test func rejectsBadOperandsAndOptions() {
        let op = "FULLY_CONNECTED"
        let weights = S.constant([2, 3], [1, 2, 3, 4, 5, 6])
        S.expectKernelError(op: op, mentioning: ["2 or 3 inputs", "got 1"]) {
            try FullyConnected.prepare(inputs: [S.activation([1, 3])], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["got 4"]) {
            try FullyConnected.prepare(
                inputs: [S.activation([1, 3]), weights, S.constant([2], [0, 0]), S.activation([1])], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["rank ≥ 1", "scalar"]) {
            try FullyConnected.prepare(inputs: [S.activation([]), weights], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["weights must be 2-D", "[6]"]) {
            try FullyConnected.prepare(
                inputs: [S.activation([1, 3]), S.constant([6], [1, 2, 3, 4, 5, 6])], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["weights shape [2, 0]"]) {
            try FullyConnected.prepare(inputs: [S.activation([1, 3]), S.constant([2, 0], [])], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["input shape [2, 2] has 4 elements", "K = 3"]) {
            try FullyConnected.prepare(inputs: [S.activation([2, 2]), weights], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["keepNumDims", "K = 3", "[3, 2]"]) {
            try FullyConnected.prepare(inputs: [S.activation([3, 2]), weights], options: .init(keepNumDims: true))
        }
        S.expectKernelError(op: op, mentioning: ["input shape [0, 3] is empty"]) {
            try FullyConnected.prepare(inputs: [S.activation([0, 3]), weights], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["weights must be a constant"]) {
            try FullyConnected.prepare(inputs: [S.activation([1, 3]), S.activation([2, 3])], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["bias has 3 elements", "expected 2"]) {
            try FullyConnected.prepare(
                inputs: [S.activation([1, 3]), weights, S.constant([3], [0, 0, 0])], options: .init())
        }
        S.expectKernelError(op: op, mentioning: ["bias must be a float32 constant"]) {
            try FullyConnected.prepare(
                inputs: [S.activation([1, 3]), weights, S.intConstant([2], [0, 0])], options: .init())
        }
    }
}
