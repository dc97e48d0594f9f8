import Kernels
import TestSupport
import Testing

// Sweeps of the fast copy kernels (PAD, DEPTH_TO_SPACE, CONCATENATION,
// RESHAPE) against their reference kernels, bit for bit.

@Suite struct FastLayoutTests {
    @Test func padMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<200 {
            var input: [Int]
            if trial % 10 == 0 {
                // Large enough to split over threads; the models pad H, W or C.
                input = [1, Int.random(in: 40...80, using: &rng), Int.random(in: 40...80, using: &rng), 16]
            } else {
                let rank = Int.random(in: 1...Pad.maxRank, using: &rng)
                input = (0..<rank).map { _ in Int.random(in: 1...5, using: &rng) }
                input[rank - 1] = sweepChannelCounts.randomElement(using: &rng)!
                if trial % 25 == 1 { input[0] = 0 }  // an empty input: all padding
            }
            // About half the dimensions unpadded, so rows merge; every tenth trial pads the
            // channels only (the channel PADs of the detectors), with or without leading zeros,
            // with a few trailing zeros or enough for whole vectors of them and a remainder.
            var paddings: [Int32] = input.flatMap { _ -> [Int32] in
                Bool.random(using: &rng)
                    ? [0, 0] : [Int32.random(in: 0...3, using: &rng), Int32.random(in: 0...3, using: &rng)]
            }
            if trial % 10 == 5 {
                let trailing = trial % 20 == 5 ? Int32(1)...4 : 5...40
                paddings = [Int32](repeating: 0, count: 2 * input.count - 2)
                    + [Int32.random(in: 0...2, using: &rng), Int32.random(in: trailing, using: &rng)]
            }
            let kernel = try Pad.prepare(inputs: [
                ElementwiseTestSupport.operand(input),
                ElementwiseTestSupport.int32Constant([input.count, 2], paddings),
            ])
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), using: &rng)],
                "input \(input) paddings \(paddings), seed \(seed)")
        }
    }

    @Test func depthToSpaceMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<100 {
            let block = Int.random(in: 1...3, using: &rng)
            let depth = sweepChannelCounts.randomElement(using: &rng)!
            let side = trial % 10 == 0 ? 48 : 6
            let input = [
                Int.random(in: 1...2, using: &rng), Int.random(in: 1...side, using: &rng),
                Int.random(in: 1...side, using: &rng), block * block * depth,
            ]
            let kernel = try DepthToSpace.prepare(
                inputs: [ElementwiseTestSupport.operand(input)], options: .init(blockSize: block))
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), using: &rng)],
                "input \(input) block \(block), seed \(seed)")
        }
    }

    @Test func concatenationMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<150 {
            let rank = Int.random(in: 1...4, using: &rng)
            let side = trial % 10 == 0 ? 60 : 5
            let base = (0..<rank).map { _ in Int.random(in: 1...side, using: &rng) }
            let axis = Int.random(in: 0..<rank, using: &rng)
            let shapes = (0..<Int.random(in: 1...4, using: &rng)).map { _ -> [Int] in
                var shape = base
                shape[axis] = Int.random(in: 0...9, using: &rng)  // 0: an input that adds nothing
                return shape
            }
            let kernel = try Concatenation.prepare(
                inputs: shapes.map(ElementwiseTestSupport.operand),
                options: .init(axis: Bool.random(using: &rng) ? axis : axis - rank))
            expectFastMatchesReference(
                kernel, shapes.map { sweepValues($0.reduce(1, *), using: &rng) },
                "inputs \(shapes) axis \(axis), seed \(seed)")
        }
    }

    @Test func reshapeMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<30 {
            let input = [Int.random(in: 0...40, using: &rng), Int.random(in: 1...40, using: &rng), 3]
            let kernel = try Reshape.prepare(
                inputs: [
                    ElementwiseTestSupport.operand(input),
                    ElementwiseTestSupport.int32Constant([2], [-1, Int32(input[1] * 3)]),
                ],
                options: .init())
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), using: &rng)], "input \(input), seed \(seed)")
        }
    }
}
