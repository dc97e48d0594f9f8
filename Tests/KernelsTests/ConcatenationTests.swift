import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("CONCATENATION")
struct ConcatenationTests {
    private func concat(_ parts: [([Int], [Float])], axis: Int) throws -> (shape: [Int], values: [Float]) {
        let kernel = try Concatenation.prepare(
            inputs: parts.map { Support.operand($0.0) }, options: .init(axis: axis))
        return (kernel.outputShapes[0].dimensions, runReference(kernel, parts.map(\.1)))
    }

    @Test func joinsChannels() throws {
        // [1, 2, 2, 1] and [1, 2, 2, 2] along the last axis.
        let a: [Float] = [1, 2, 3, 4]
        let b: [Float] = [10, 11, 20, 21, 30, 31, 40, 41]
        for axis in [3, -1] {
            let result = try concat([([1, 2, 2, 1], a), ([1, 2, 2, 2], b)], axis: axis)
            #expect(result.shape == [1, 2, 2, 3])
            #expect(result.values == [1, 10, 11, 2, 20, 21, 3, 30, 31, 4, 40, 41])
        }
    }

    @Test func joinsAnInnerAxis() throws {
        // [2, 1, 2] and [2, 2, 2] along axis 1: per batch, a's row then b's two rows.
        let a: [Float] = [1, 2, 3, 4]
        let b: [Float] = (10...17).map(Float.init)
        let result = try concat([([2, 1, 2], a), ([2, 2, 2], b)], axis: 1)
        #expect(result.shape == [2, 3, 2])
        #expect(result.values == [1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17])
        let outer = try concat([([1, 2], [1, 2]), ([2, 2], [3, 4, 5, 6]), ([0, 2], [])], axis: -2)
        #expect(outer.shape == [3, 2])
        #expect(outer.values == [1, 2, 3, 4, 5, 6])
    }

    @Test func singleInputIsACopy() throws {
        let result = try concat([([2, 2], [1, 2, 3, 4])], axis: 0)
        #expect(result.shape == [2, 2])
        #expect(result.values == [1, 2, 3, 4])
    }

    @Test func randomSplitsReassemble() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let rank = Int.random(in: 1...5, using: &generator)
            let dims = (0..<rank).map { _ in Int.random(in: 1...4, using: &generator) }
            let axis = Int.random(in: 0..<rank, using: &generator)
            let partCount = Int.random(in: 1...4, using: &generator)
            let sizes = (0..<partCount).map { _ in Int.random(in: 0...3, using: &generator) }
            let parts = sizes.map { size -> ([Int], [Float]) in
                var partDims = dims
                partDims[axis] = size
                return (partDims, Support.randomValues(partDims.reduce(1, *), using: &generator))
            }
            let result = try concat(parts, axis: axis - (Bool.random(using: &generator) ? rank : 0))
            var expectedDims = dims
            expectedDims[axis] = sizes.reduce(0, +)
            #expect(result.shape == expectedDims, "seed \(seed)")
            // Output element at coordinate c comes from the part whose range along
            // the axis holds c[axis].
            for (i, value) in result.values.enumerated() {
                var c = Support.coordinates(i, in: expectedDims)
                var part = 0
                while c[axis] >= sizes[part] {
                    c[axis] -= sizes[part]
                    part += 1
                }
                let offset = zip(c, Support.strides(parts[part].0)).map(*).reduce(0, +)
                #expect(value == parts[part].1[offset], "seed \(seed): parts \(parts.map(\.0)) axis \(axis)")
            }
        }
    }

    @Test func prepareRejectsBadOperands() {
        let a = Support.operand([1, 2, 2, 3])
        Support.expectError("CONCATENATION", "at least 1 input") {
            try Concatenation.prepare(inputs: [], options: .init(axis: 0))
        }
        Support.expectError("CONCATENATION", "axis 4 is out of range") {
            try Concatenation.prepare(inputs: [a, a], options: .init(axis: 4))
        }
        Support.expectError("CONCATENATION", "axis -5 is out of range") {
            try Concatenation.prepare(inputs: [a, a], options: .init(axis: -5))
        }
        Support.expectError("CONCATENATION", "input 1 [2, 3] has rank 2") {
            try Concatenation.prepare(inputs: [a, Support.operand([2, 3])], options: .init(axis: 0))
        }
        Support.expectError("CONCATENATION", "at dimension 2") {
            try Concatenation.prepare(inputs: [a, Support.operand([1, 2, 3, 3])], options: .init(axis: 3))
        }
        Support.expectError("CONCATENATION", "RELU is not supported") {
            try Concatenation.prepare(inputs: [a, a], options: .init(axis: 3, activation: .relu))
        }
        Support.expectError("CONCATENATION", "invalid") {
            try Concatenation.prepare(
                inputs: [Support.operand([1 << 30, 2]), Support.operand([1 << 30, 2])], options: .init(axis: 0))
        }
    }
}
