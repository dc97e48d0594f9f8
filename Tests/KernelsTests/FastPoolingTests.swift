import Kernels
import Testing

// Sweeps of the fast window and reduction kernels (MAX_POOL_2D,
// RESIZE_BILINEAR, MEAN) against their reference kernels, bit for bit.

@Suite struct FastPoolingTests {
    @Test func maxPoolMatchesReference() throws {
        let seed = sweepSeed()
        print("FastPoolingTests.maxPool: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .reluN1To1, .relu6]
        for trial in 0..<150 {
            let large = trial % 10 == 0
            let input = [
                Int.random(in: 1...2, using: &rng),
                Int.random(in: 1...(large ? 80 : 12), using: &rng), Int.random(in: 1...(large ? 80 : 12), using: &rng),
                sweepChannelCounts.randomElement(using: &rng)!,
            ]
            // Every fourth case is the models' 2×2 window with stride 2.
            let square = trial % 4 == 0
            let filterH = square ? 2 : Int.random(in: 1...4, using: &rng)
            let filterW = square ? 2 : Int.random(in: 1...4, using: &rng)
            let padding: Padding = filterH <= input[1] && filterW <= input[2] && Bool.random(using: &rng) ? .valid : .same
            let options = MaxPool2D.Options(
                padding: padding,
                strideH: square ? 2 : Int.random(in: 1...3, using: &rng),
                strideW: square ? 2 : Int.random(in: 1...3, using: &rng),
                filterH: filterH, filterW: filterW, activation: activations.randomElement(using: &rng)!)
            let kernel = try MaxPool2D.prepare(inputs: [ElementwiseTestSupport.operand(input)], options: options)
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), specialEvery: 23, using: &rng)],
                "input \(input) \(options), seed \(seed)")
        }
    }

    @Test func resizeBilinearMatchesReference() throws {
        let seed = sweepSeed()
        print("FastPoolingTests.resizeBilinear: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let modes: [ResizeBilinear.Options] = [
            .init(), .init(alignCorners: true), .init(halfPixelCenters: true),
        ]
        for trial in 0..<150 {
            let large = trial % 10 == 0
            let input = [
                Int.random(in: 1...2, using: &rng), Int.random(in: 1...(large ? 48 : 9), using: &rng),
                Int.random(in: 1...(large ? 48 : 9), using: &rng), sweepChannelCounts.randomElement(using: &rng)!,
            ]
            let size: [Int32] = large
                ? [Int32(input[1] * 2), Int32(input[2] * 2)]
                : [Int32.random(in: 1...20, using: &rng), Int32.random(in: 1...20, using: &rng)]
            let options = modes.randomElement(using: &rng)!
            let kernel = try ResizeBilinear.prepare(
                inputs: [ElementwiseTestSupport.operand(input), ElementwiseTestSupport.int32Constant([2], size)],
                options: options)
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), using: &rng)],
                "input \(input) size \(size) \(options), seed \(seed)")
        }
    }

    @Test func meanMatchesReference() throws {
        let seed = sweepSeed()
        print("FastPoolingTests.mean: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<200 {
            var input: [Int]
            var axes: [Int32]
            if trial % 3 == 0 {
                // The models' global average pool, sometimes large enough to split.
                let side = trial % 9 == 0 ? 32 : Int.random(in: 1...8, using: &rng)
                input = [1, side, side, trial % 9 == 0 ? 96 : sweepChannelCounts.randomElement(using: &rng)!]
                axes = Bool.random(using: &rng) ? [1, 2] : [-3, -2]
            } else {
                let rank = Int.random(in: 0...5, using: &rng)
                input = (0..<rank).map { _ in Int.random(in: 1...5, using: &rng) }
                axes = (0..<Int.random(in: 0...3, using: &rng)).compactMap { _ in
                    rank == 0 ? nil : Int32(Int.random(in: -rank..<rank, using: &rng))
                }
            }
            let kernel = try Mean.prepare(
                inputs: [
                    ElementwiseTestSupport.operand(input),
                    ElementwiseTestSupport.int32Constant([axes.count], axes),
                ],
                options: .init(keepDims: Bool.random(using: &rng)))
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), using: &rng)],
                "input \(input) axes \(axes), seed \(seed)")
        }
    }
}
