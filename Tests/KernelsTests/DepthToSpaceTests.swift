import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("DEPTH_TO_SPACE")
struct DepthToSpaceTests {
    private func depthToSpace(_ dims: [Int], _ input: [Float], block: Int) throws -> (shape: [Int], values: [Float]) {
        let kernel = try DepthToSpace.prepare(inputs: [Support.operand(dims)], options: .init(blockSize: block))
        return (kernel.outputShapes[0].dimensions, runReference(kernel, [input]))
    }

    @Test func blockTwoOfOnePixel() throws {
        // [1, 1, 1, 4]: channels 0, 1, 2, 3 become the 2×2 block row by row.
        let result = try depthToSpace([1, 1, 1, 4], [1, 2, 3, 4], block: 2)
        #expect(result.shape == [1, 2, 2, 1])
        #expect(result.values == [1, 2, 3, 4])
    }

    @Test func blockTwoKeepsChannelGroupsTogether() throws {
        // [1, 1, 2, 8] → [1, 2, 4, 2]. Pixel 0 holds 0...7, pixel 1 holds 8...15;
        // block position (r, s) takes channels ((r * 2 + s) * 2) ..< +2.
        let result = try depthToSpace([1, 1, 2, 8], (0..<16).map(Float.init), block: 2)
        #expect(result.shape == [1, 2, 4, 2])
        #expect(result.values == [
            0, 1, 2, 3, 8, 9, 10, 11,
            4, 5, 6, 7, 12, 13, 14, 15,
        ])
    }

    @Test func blockOneIsIdentityAndLargerBlocksPermute() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<30 {
            let b = Int.random(in: 1...3, using: &generator)
            let dims = [
                Int.random(in: 1...2, using: &generator), Int.random(in: 1...3, using: &generator),
                Int.random(in: 1...3, using: &generator), b * b * Int.random(in: 1...3, using: &generator),
            ]
            let input = (0..<dims.reduce(1, *)).map(Float.init)
            let result = try depthToSpace(dims, input, block: b)
            #expect(result.shape == [dims[0], dims[1] * b, dims[2] * b, dims[3] / (b * b)], "seed \(seed)")
            #expect(result.values.sorted() == input, "seed \(seed): \(dims) block \(b)")
            if b == 1 { #expect(result.values == input, "seed \(seed)") }
        }
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("DEPTH_TO_SPACE", "expects 1 input") {
            try DepthToSpace.prepare(inputs: [], options: .init(blockSize: 2))
        }
        Support.expectError("DEPTH_TO_SPACE", "[N, H, W, C]") {
            try DepthToSpace.prepare(inputs: [Support.operand([1, 2, 8])], options: .init(blockSize: 2))
        }
        Support.expectError("DEPTH_TO_SPACE", "block size 0") {
            try DepthToSpace.prepare(inputs: [Support.operand([1, 1, 1, 4])], options: .init(blockSize: 0))
        }
        Support.expectError("DEPTH_TO_SPACE", "channels 6 are not divisible") {
            try DepthToSpace.prepare(inputs: [Support.operand([1, 1, 1, 6])], options: .init(blockSize: 2))
        }
        Support.expectError("DEPTH_TO_SPACE", "not divisible") {
            try DepthToSpace.prepare(inputs: [Support.operand([1, 1, 1, 4])], options: .init(blockSize: Int.max))
        }
    }
}
