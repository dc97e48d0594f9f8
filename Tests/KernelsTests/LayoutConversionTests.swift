import Kernels
import Tensor
import TestSupport
import Testing

// LAYOUT_CONVERSION between [N, H, W, C] and [N][C][H·W]: the fast blocked
// transpose against the reference, bit for bit, and the element positions
// against the layouts' definitions.

@Suite struct LayoutConversionTests {
    @Test func fastMatchesReferenceBothWays() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<60 {
            // Sides below, at and above the 32-element block, and one large
            // enough to split over threads.
            let side = trial % 10 == 0 ? 70 : 40
            let shape = [
                Int.random(in: 1...2, using: &rng), Int.random(in: 1...side, using: &rng),
                Int.random(in: 1...side, using: &rng), sweepChannelCounts.randomElement(using: &rng)!,
            ]
            for direction in [LayoutConversion.Direction.toChannelMajor, .toChannelLast] {
                let kernel = try #require(LayoutConversion(shape: TensorShape(validated: shape), direction: direction))
                expectFastMatchesReference(
                    kernel, [sweepValues(shape.reduce(1, *), using: &rng)], "shape \(shape) \(direction), seed \(seed)")
            }
        }
    }

    @Test func elementsMoveToTheirChannelMajorPositions() throws {
        let (n, h, w, c) = (2, 3, 5, 4)
        let shape = TensorShape(validated: [n, h, w, c])
        // Each value encodes its [n, y, x, ch] position.
        let input = AlignedBuffer(count: shape.elementCount)
        for b in 0..<n { for y in 0..<h { for x in 0..<w { for ch in 0..<c {
            input.baseAddress[((b * h + y) * w + x) * c + ch] = Float(((b * 10 + y) * 10 + x) * 10 + ch)
        } } } }
        let channelMajor = AlignedBuffer(count: shape.elementCount)
        let back = AlignedBuffer(count: shape.elementCount)
        let forward = try #require(LayoutConversion(shape: shape, direction: .toChannelMajor))
        let backward = try #require(LayoutConversion(shape: shape, direction: .toChannelLast))
        forward.run(KernelIO(inputs: [UnsafePointer(input.baseAddress)], outputs: [channelMajor.baseAddress]), runner: .serial)
        backward.run(KernelIO(inputs: [UnsafePointer(channelMajor.baseAddress)], outputs: [back.baseAddress]), runner: .serial)
        for b in 0..<n { for ch in 0..<c { for y in 0..<h { for x in 0..<w {
            let value = channelMajor.baseAddress[((b * c + ch) * h + y) * w + x]
            #expect(value == Float(((b * 10 + y) * 10 + x) * 10 + ch), "[\(b), \(y), \(x), \(ch)]")
        } } } }
        #expect((0..<shape.elementCount).allSatisfy { back.baseAddress[$0] == input.baseAddress[$0] })
    }

    @Test func onlyFourDimensionalTensorsConvert() {
        #expect(LayoutConversion(shape: TensorShape(validated: [4, 4, 4]), direction: .toChannelMajor) == nil)
    }
}
