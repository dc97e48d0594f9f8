import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("PAD")
struct PadTests {
    private func pad(_ dims: [Int], _ input: [Float], _ paddings: [Int32]) throws -> (shape: [Int], values: [Float]) {
        let kernel = try Pad.prepare(inputs: [
            Support.operand(dims), Support.int32Constant([dims.count, 2], paddings),
        ])
        return (kernel.outputShapes[0].dimensions, runReference(kernel, [input]))
    }

    @Test func padsHeightAndWidth() throws {
        // [1, 2, 2, 1] with one row on top and two columns on the right.
        let result = try pad([1, 2, 2, 1], [1, 2, 3, 4], [0, 0, 1, 0, 0, 2, 0, 0])
        #expect(result.shape == [1, 3, 4, 1])
        #expect(result.values == [
            0, 0, 0, 0,
            1, 2, 0, 0,
            3, 4, 0, 0,
        ])
    }

    @Test func padsChannels() throws {
        // [1, 1, 2, 2] with one channel in front and two behind each pixel.
        let result = try pad([1, 1, 2, 2], [1, 2, 3, 4], [0, 0, 0, 0, 0, 0, 1, 2])
        #expect(result.shape == [1, 1, 2, 5])
        #expect(result.values == [0, 1, 2, 0, 0, 0, 3, 4, 0, 0])
    }

    @Test func padsVectorsAndFiveDimensionalTensors() throws {
        let vector = try pad([3], [7, 8, 9], [2, 1])
        #expect(vector.shape == [6])
        #expect(vector.values == [0, 0, 7, 8, 9, 0])
        let five = try pad([1, 1, 1, 1, 2], [5, 6], [1, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        #expect(five.shape == [2, 1, 1, 1, 3])
        #expect(five.values == [0, 0, 0, 5, 6, 0])
    }

    @Test func paddingAnEmptyTensorGivesZeros() throws {
        let result = try pad([0, 2], [], [1, 1, 0, 0])
        #expect(result.shape == [2, 2])
        #expect(result.values == [0, 0, 0, 0])
    }

    @Test func randomPaddingsPlaceTheInputAndZeroTheRest() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let rank = Int.random(in: 1...5, using: &generator)
            let dims = (0..<rank).map { _ in Int.random(in: 1...3, using: &generator) }
            let paddings = (0..<(2 * rank)).map { _ in Int32.random(in: 0...2, using: &generator) }
            let input = Support.randomValues(dims.reduce(1, *), using: &generator)
            let result = try pad(dims, input, paddings)
            let expectedShape = dims.indices.map { dims[$0] + Int(paddings[2 * $0] + paddings[2 * $0 + 1]) }
            #expect(result.shape == expectedShape, "seed \(seed)")
            let inputStrides = Support.strides(dims)
            for (i, value) in result.values.enumerated() {
                let c = Support.coordinates(i, in: result.shape)
                let source = c.indices.map { c[$0] - Int(paddings[2 * $0]) }
                if source.indices.allSatisfy({ (0..<dims[$0]).contains(source[$0]) }) {
                    let offset = zip(source, inputStrides).map(*).reduce(0, +)
                    #expect(value == input[offset], "seed \(seed): \(dims) \(paddings) at \(c)")
                } else {
                    #expect(value == 0, "seed \(seed): \(dims) \(paddings) at \(c)")
                }
            }
        }
    }

    @Test func prepareRejectsBadOperands() {
        let input = Support.operand([1, 2, 2, 1])
        Support.expectError("PAD", "expects 2 inputs") { try Pad.prepare(inputs: [input]) }
        Support.expectError("PAD", "rank 6") {
            try Pad.prepare(inputs: [
                Support.operand([1, 1, 1, 1, 1, 1]), Support.int32Constant([6, 2], Array(repeating: 0, count: 12)),
            ])
        }
        Support.expectError("PAD", "shape [4, 2]") {
            try Pad.prepare(inputs: [input, Support.int32Constant([3, 2], Array(repeating: 0, count: 6))])
        }
        Support.expectError("PAD", "shape [4, 2]") {
            try Pad.prepare(inputs: [input, Support.int32Constant([4, 3], Array(repeating: 0, count: 12))])
        }
        Support.expectError("PAD", "constant") {
            try Pad.prepare(inputs: [input, Support.operand([4, 2])])
        }
        Support.expectError("PAD", "int32") {
            try Pad.prepare(inputs: [input, Support.floatConstant([4, 2], Array(repeating: 0, count: 8))])
        }
        Support.expectError("PAD", "hold 7 values") {
            try Pad.prepare(inputs: [input, Support.int32Constant([4, 2], Array(repeating: 0, count: 7))])
        }
        Support.expectError("PAD", "(1, -1) of dimension 2 is negative") {
            try Pad.prepare(inputs: [input, Support.int32Constant([4, 2], [0, 0, 0, 0, 1, -1, 0, 0])])
        }
        Support.expectError("PAD", "invalid") {
            try Pad.prepare(inputs: [
                Support.operand([1 << 20, 1 << 10]), Support.int32Constant([2, 2], [0, (1 << 20) + 1, 0, 0]),
            ])
        }
    }
}
