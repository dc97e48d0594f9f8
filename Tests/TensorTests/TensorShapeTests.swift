import Testing
@testable import Tensor

@Suite struct TensorShapeTests {
    @Test func elementCountIsTheProduct() throws {
        let shape = try TensorShape([1, 224, 224, 3])
        #expect(shape.elementCount == 150_528)
        #expect(shape.rank == 4)
        #expect(try TensorShape([]).elementCount == 1)
        #expect(try TensorShape([5, 0, 7]).elementCount == 0)
    }

    @Test func rejectsNegativeDimensions() {
        #expect(throws: TensorError.negativeDimension(dimensions: [1, -3])) {
            try TensorShape([1, -3])
        }
    }

    @Test func rejectsElementCountOverflow() {
        #expect(throws: TensorError.self) { try TensorShape([Int.max, 2]) }
        #expect(throws: TensorError.self) { try TensorShape([1 << 20, 1 << 20]) }
        #expect(throws: TensorError.self) { try TensorShape([0, Int.max]) }
        #expect(throws: TensorError.rankTooHigh(rank: 9)) { try TensorShape(Array(repeating: 1, count: 9)) }
    }
}
