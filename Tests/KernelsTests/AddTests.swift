import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("ADD")
struct AddTests {
    private func add(
        _ lhsDims: [Int], _ lhs: [Float], _ rhsDims: [Int], _ rhs: [Float], activation: FusedActivation = .none
    ) throws -> (shape: [Int], values: [Float]) {
        let kernel = try Add.prepare(
            inputs: [Support.operand(lhsDims), Support.operand(rhsDims)],
            options: .init(activation: activation))
        return (kernel.outputShapes[0].dimensions, runReference(kernel, [lhs, rhs]))
    }

    @Test func channelVectorBroadcastsOverImage() throws {
        // [1, 2, 2, 3] + [1, 1, 1, 3]: the bias is added to every pixel.
        let image: [Float] = (1...12).map(Float.init)
        let result = try add([1, 2, 2, 3], image, [1, 1, 1, 3], [10, 20, 30])
        #expect(result.shape == [1, 2, 2, 3])
        #expect(result.values == [11, 22, 33, 14, 25, 36, 17, 28, 39, 20, 31, 42])
        // Operand order does not matter.
        let swapped = try add([1, 1, 1, 3], [10, 20, 30], [1, 2, 2, 3], image)
        #expect(swapped == result)
    }

    @Test func operandsOfDifferentRankAlignAtTheLastDimension() throws {
        // [2, 3] + [3]: the vector is added to each row.
        let rows = try add([2, 3], [1, 2, 3, 4, 5, 6], [3], [10, 20, 30])
        #expect(rows.shape == [2, 3])
        #expect(rows.values == [11, 22, 33, 14, 25, 36])
        // [2, 1] + [3]: a column plus a row gives a [2, 3] table.
        let table = try add([2, 1], [1, 2], [3], [10, 20, 30])
        #expect(table.shape == [2, 3])
        #expect(table.values == [11, 21, 31, 12, 22, 32])
        // [2, 1, 3] + [1, 2, 1]: both operands repeat along different axes.
        let both = try add([2, 1, 3], [1, 2, 3, 4, 5, 6], [1, 2, 1], [100, 200])
        #expect(both.shape == [2, 2, 3])
        #expect(both.values == [101, 102, 103, 201, 202, 203, 104, 105, 106, 204, 205, 206])
        // A scalar (rank 0) broadcasts to anything.
        let scalar = try add([], [0.5], [2, 2], [1, 2, 3, 4])
        #expect(scalar.shape == [2, 2])
        #expect(scalar.values == [1.5, 2.5, 3.5, 4.5])
    }

    @Test func fusedActivationsClampTheSum() throws {
        let inputs: [Float] = [-3, 0.25, 2, 7]
        #expect(try add([4], inputs, [1], [0.5], activation: .relu).values == [0, 0.75, 2.5, 7.5])
        #expect(try add([4], inputs, [1], [0.5], activation: .relu6).values == [0, 0.75, 2.5, 6])
        #expect(try add([4], inputs, [1], [0], activation: .reluN1To1).values == [-1, 0.25, 1, 1])
    }

    @Test func infinitiesAreClampedToFiniteBoundsAndNaNPassesThrough() throws {
        // TFLite clamps with the activation's finite range (±FLT_MAX for NONE).
        let big = Float.greatestFiniteMagnitude
        let result = try add([4], [.infinity, -.infinity, big, .nan], [1], [1])
        #expect(result.values[0] == big)
        #expect(result.values[1] == -big)
        #expect(result.values[2] == big)
        #expect(result.values[3].isNaN)
        let relu = try add([2], [.infinity, .nan], [1], [0], activation: .relu)
        #expect(relu.values[0] == big)
        #expect(relu.values[1].isNaN)
    }

    @Test func sameShapesWorkAtAnyRankButBroadcastIsLimitedToRankSix() throws {
        let dims = [1, 1, 1, 1, 1, 1, 2, 2]
        let same = try add(dims, [1, 2, 3, 4], dims, [4, 3, 2, 1])
        #expect(same.shape == dims)
        #expect(same.values == [5, 5, 5, 5])
        let six = try add([2, 1, 1, 1, 1, 2], [1, 2, 3, 4], [2], [10, 20])
        #expect(six.values == [11, 22, 13, 24])
        Support.expectError("ADD", "rank 7") {
            try Add.prepare(
                inputs: [Support.operand([1, 1, 1, 1, 1, 1, 2]), Support.operand([2])], options: .init())
        }
    }

    @Test func emptyOperandsGiveAnEmptyOutput() throws {
        let result = try add([0, 3], [], [3], [1, 2, 3])
        #expect(result.shape == [0, 3])
        #expect(result.values.isEmpty)
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("ADD", "expects 2 inputs, got 1") {
            try Add.prepare(inputs: [Support.operand([2])], options: .init())
        }
        Support.expectError("ADD", "expects 2 inputs, got 3") {
            try Add.prepare(inputs: Array(repeating: Support.operand([2]), count: 3), options: .init())
        }
        Support.expectError("ADD", "sizes 3 and 4") {
            try Add.prepare(inputs: [Support.operand([2, 3]), Support.operand([4])], options: .init())
        }
        Support.expectError("ADD", "invalid") {
            try Add.prepare(
                inputs: [Support.operand([1 << 16, 1]), Support.operand([1, 1 << 16])], options: .init())
        }
    }

    @Test func randomBroadcastsMatchCoordinateArithmetic() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let rank = Int.random(in: 0...6, using: &generator)
            let outputDims = (0..<rank).map { _ in Int.random(in: 1...3, using: &generator) }
            func operandDims() -> [Int] {
                let operandRank = Int.random(in: 0...rank, using: &generator)
                return outputDims.suffix(operandRank).map { Bool.random(using: &generator) ? $0 : 1 }
            }
            let lhsDims = operandDims(), rhsDims = operandDims()
            let lhs = Support.randomValues(lhsDims.reduce(1, *), using: &generator)
            let rhs = Support.randomValues(rhsDims.reduce(1, *), using: &generator)
            let result = try add(lhsDims, lhs, rhsDims, rhs)
            let shape = result.shape
            // Element at each output coordinate, read from an operand through
            // its trailing-aligned coordinates (index 0 where its size is 1).
            func element(_ values: [Float], _ dims: [Int], _ coordinates: [Int]) -> Float {
                let aligned = Array(coordinates.suffix(dims.count))
                let strides = Support.strides(dims)
                var offset = 0
                for d in 0..<dims.count where dims[d] != 1 { offset += aligned[d] * strides[d] }
                return values[offset]
            }
            let expectedShape = (0..<max(lhsDims.count, rhsDims.count)).map { axis -> Int in
                let fromEnd = max(lhsDims.count, rhsDims.count) - axis
                let l = fromEnd <= lhsDims.count ? lhsDims[lhsDims.count - fromEnd] : 1
                let r = fromEnd <= rhsDims.count ? rhsDims[rhsDims.count - fromEnd] : 1
                return max(l, r)
            }
            #expect(shape == expectedShape, "seed \(seed): \(lhsDims) + \(rhsDims)")
            let expected = (0..<result.values.count).map { i -> Float in
                let c = Support.coordinates(i, in: shape)
                return element(lhs, lhsDims, c) + element(rhs, rhsDims, c)
            }
            #expect(result.values == expected, "seed \(seed): \(lhsDims) + \(rhsDims)")
        }
    }
}
