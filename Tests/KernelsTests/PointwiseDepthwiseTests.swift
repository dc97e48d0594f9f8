import Kernels
import Tensor
import TestSupport
import Testing

/// The pointwise depthwise convolution (a 1×1 filter, stride 1, depth multiplier 1) in its two
/// roundings (`PointwiseDepthwiseRounding`): `.separate` gives the reference kernel's bits
/// (the product rounded, then the sum), `.fused` those of the general depthwise kernel, which
/// every other depthwise convolution runs (`b` plus the product in one rounding where the build
/// has fused multiply-adds). Seeds from `SeededGenerator.seed()` (replay with LANDMARKER_SEED).
@Suite struct PointwiseDepthwiseTests {
    typealias S = ConvTestSupport

    /// Channel counts around one and two 8-lane vectors, and the hand_recrop model's.
    static let channelCounts = [1, 3, 7, 8, 9, 15, 16, 17, 24, 32, 33, 64]

    static func pointwise(
        channels: Int, pixels: (height: Int, width: Int), filter: [Float], bias: [Float],
        activation: FusedActivation, rounding: PointwiseDepthwiseRounding
    ) throws -> DepthwiseConv2D {
        try DepthwiseConv2D.prepare(
            inputs: [
                S.activation([1, pixels.height, pixels.width, channels]), S.constant([1, 1, 1, channels], filter),
                S.constant([channels], bias),
            ],
            options: .init(padding: .same, activation: activation), instructionSet: .detected,
            pointwiseRounding: rounding)
    }

    /// Bias values that are never zero: the reference adds the bias to `+0 + x·w`, which
    /// differs from `x·w + b` only in the sign of a zero sum with a `−0` bias.
    static func nonzeroValues(_ count: Int, using generator: inout SeededGenerator) -> [Float] {
        (0..<count).map { _ in
            let magnitude = Float.random(in: 0.01...4, using: &generator)
            return Bool.random(using: &generator) ? magnitude : -magnitude
        }
    }

    @Test func separateRoundingGivesTheReferenceBits() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for channels in Self.channelCounts {
            for activation in [FusedActivation.none, .relu6] {
                let pixels = (height: Int.random(in: 1...9, using: &generator), width: Int.random(in: 1...9, using: &generator))
                let kernel = try Self.pointwise(
                    channels: channels, pixels: pixels,
                    filter: sweepValues(channels, specialEvery: 9, using: &generator),
                    bias: Self.nonzeroValues(channels, using: &generator), activation: activation, rounding: .separate)
                #expect(kernel.isPointwise)
                let input = sweepValues(pixels.height * pixels.width * channels, specialEvery: 7, using: &generator)
                expectFastMatchesReference(kernel, [input], "seed \(seed), \(channels) channels, \(pixels), \(activation)")
            }
        }
    }

    /// The fused form against the general kernel on the same filter centred in a 3×3 of
    /// zeros: the zero taps add `±0` to a nonzero sum, so the bits are the centre tap's.
    @Test func fusedRoundingGivesTheGeneralKernelsBits() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for channels in Self.channelCounts {
            let pixels = (height: Int.random(in: 1...9, using: &generator), width: Int.random(in: 1...9, using: &generator))
            let filter = Self.nonzeroValues(channels, using: &generator)
            let bias = Self.nonzeroValues(channels, using: &generator)
            let pointwise = try Self.pointwise(
                channels: channels, pixels: pixels, filter: filter, bias: bias, activation: .none, rounding: .fused)
            var centred = [Float](repeating: 0, count: 9 * channels)
            centred.replaceSubrange((4 * channels)..<(5 * channels), with: filter)
            let general = try DepthwiseConv2D.prepare(
                inputs: [
                    S.activation([1, pixels.height, pixels.width, channels]), S.constant([1, 3, 3, channels], centred),
                    S.constant([channels], bias),
                ],
                options: .init(padding: .same))
            #expect(!general.isPointwise)
            let input = Self.nonzeroValues(pixels.height * pixels.width * channels, using: &generator)
            let expected = runFast(general, input)
            expectFastOutput(
                pointwise, [input], equals: expected, "the 3×3 kernel's output",
                "seed \(seed), \(channels) channels, \(pixels)")
        }
    }

    @Test func onlyOneByOneStrideOneFiltersArePointwise() throws {
        let input = S.activation([1, 4, 4, 8])
        let oneByOne = S.constant([1, 1, 1, 8], [Float](repeating: 1, count: 8))
        #expect(try DepthwiseConv2D.prepare(inputs: [input, oneByOne], options: .init(padding: .valid)).isPointwise)
        #expect(try !DepthwiseConv2D.prepare(inputs: [input, oneByOne], options: .init(padding: .valid, strideH: 2, strideW: 2)).isPointwise)
        let twoByTwo = S.constant([1, 2, 2, 8], [Float](repeating: 1, count: 32))
        #expect(try !DepthwiseConv2D.prepare(inputs: [input, twoByTwo], options: .init(padding: .same)).isPointwise)
        let multiplier = S.constant([1, 1, 1, 16], [Float](repeating: 1, count: 16))
        #expect(try !DepthwiseConv2D.prepare(inputs: [input, multiplier], options: .init(padding: .valid, depthMultiplier: 2)).isPointwise)
    }

    /// `kernel.run` on one thread, into a fresh buffer.
    private func runFast(_ kernel: DepthwiseConv2D, _ input: [Float]) -> [Float] {
        let inputBuffer = AlignedBuffer(input)
        let output = AlignedBuffer(count: kernel.outputShapes[0].elementCount)
        withExtendedLifetime(inputBuffer) {
            kernel.run(
                KernelIO(inputs: [UnsafePointer(inputBuffer.baseAddress)], outputs: [output.baseAddress]),
                runner: .serial)
        }
        return output.toArray()
    }
}
