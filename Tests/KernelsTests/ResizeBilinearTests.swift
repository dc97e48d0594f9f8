import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("RESIZE_BILINEAR")
struct ResizeBilinearTests {
    private func resize(
        _ dims: [Int], _ input: [Float], to size: (Int32, Int32),
        alignCorners: Bool = false, halfPixelCenters: Bool = false
    ) throws -> (shape: [Int], values: [Float]) {
        let kernel = try ResizeBilinear.prepare(
            inputs: [Support.operand(dims), Support.int32Constant([2], [size.0, size.1])],
            options: .init(alignCorners: alignCorners, halfPixelCenters: halfPixelCenters))
        return (kernel.outputShapes[0].dimensions, runReference(kernel, [input]))
    }

    /// The 2×2 image [[1, 2], [3, 4]] as [1, 2, 2, 1].
    private let square: [Float] = [1, 2, 3, 4]

    @Test func upsampleTwiceWithDefaultCoordinates() throws {
        // scale 0.5, source = 0.5 * out: rows read 0, 0.5, 1, 1.5; the last is
        // clamped to row 1 on both sides, so it repeats row 1 (columns alike).
        let result = try resize([1, 2, 2, 1], square, to: (4, 4))
        #expect(result.shape == [1, 4, 4, 1])
        #expect(result.values == [
            1, 1.5, 2, 2,
            2, 2.5, 3, 3,
            3, 3.5, 4, 4,
            3, 3.5, 4, 4,
        ])
    }

    @Test func upsampleTwiceWithHalfPixelCenters() throws {
        // source = (out + 0.5) * 0.5 - 0.5: -0.25, 0.25, 0.75, 1.25. The first is
        // clamped to row 0 (weights 1.25 and -0.25 on the same row), the last to row 1.
        let result = try resize([1, 2, 2, 1], square, to: (4, 4), halfPixelCenters: true)
        #expect(result.values == [
            1, 1.25, 1.75, 2,
            1.5, 1.75, 2.25, 2.5,
            2.5, 2.75, 3.25, 3.5,
            3, 3.25, 3.75, 4,
        ])
    }

    @Test func upsampleTwiceWithAlignedCorners() throws {
        // scale (2 - 1) / (4 - 1) = 1/3: the image is the plane 1 + x/3 + 2y/3.
        let result = try resize([1, 2, 2, 1], square, to: (4, 4), alignCorners: true)
        for y in 0..<4 {
            for x in 0..<4 {
                let expected = 1 + Float(x) / 3 + 2 * Float(y) / 3
                #expect(abs(result.values[y * 4 + x] - expected) <= 1e-6, "at (\(y), \(x))")
            }
        }
        // The corners land exactly on the input's corners.
        #expect([result.values[0], result.values[3], result.values[12], result.values[15]] == [1, 2, 3, 4])
    }

    @Test func downsampleTwice() throws {
        // 4×1 column [0, 1, 2, 3] to 2×1: default reads rows 0 and 2; half-pixel
        // centres read 0.5 and 2.5 (means of neighbouring rows).
        let column: [Float] = [0, 1, 2, 3]
        #expect(try resize([1, 4, 1, 1], column, to: (2, 1)).values == [0, 2])
        #expect(try resize([1, 4, 1, 1], column, to: (2, 1), halfPixelCenters: true).values == [0.5, 2.5])
        #expect(try resize([1, 4, 1, 1], column, to: (2, 1), alignCorners: true).values == [0, 3])
    }

    @Test func emptyChannelsGiveAnEmptyOutput() throws {
        let result = try resize([2, 2, 2, 0], [], to: (4, 4))
        #expect(result.shape == [2, 4, 4, 0])
        #expect(result.values.isEmpty)
    }

    @Test func sameSizeIsIdentityAndChannelsAndBatchesAreIndependent() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        let modes = [(false, false), (true, false), (false, true)]
        for _ in 0..<20 {
            let n = Int.random(in: 1...2, using: &generator)
            let h = Int.random(in: 1...5, using: &generator), w = Int.random(in: 1...5, using: &generator)
            let c = Int.random(in: 1...4, using: &generator)
            let newH = Int32.random(in: 1...9, using: &generator), newW = Int32.random(in: 1...9, using: &generator)
            let input = Support.randomValues(n * h * w * c, using: &generator)
            for (align, half) in modes {
                let context = "seed \(seed): [\(n), \(h), \(w), \(c)] to (\(newH), \(newW)) align \(align) half \(half)"
                let same = try resize([n, h, w, c], input, to: (Int32(h), Int32(w)), alignCorners: align, halfPixelCenters: half)
                #expect(same.values == input, "\(context)")
                let whole = try resize([n, h, w, c], input, to: (newH, newW), alignCorners: align, halfPixelCenters: half)
                #expect(whole.shape == [n, Int(newH), Int(newW), c], "\(context)")
                // Each (batch, channel) plane resized alone gives the same numbers.
                for b in 0..<n {
                    for channel in 0..<c {
                        let plane = (0..<(h * w)).map { input[(b * h * w + $0) * c + channel] }
                        let alone = try resize([1, h, w, 1], plane, to: (newH, newW), alignCorners: align, halfPixelCenters: half)
                        let picked = (0..<alone.values.count).map {
                            whole.values[(b * Int(newH) * Int(newW) + $0) * c + channel]
                        }
                        #expect(picked == alone.values, "\(context) plane (\(b), \(channel))")
                    }
                }
                // A constant image stays constant, up to the rounding of weights
                // that do not sum to exactly 1 in float32.
                let flat = try resize([n, h, w, c], [Float](repeating: 2.5, count: input.count), to: (newH, newW),
                                      alignCorners: align, halfPixelCenters: half)
                #expect(flat.values.allSatisfy { abs($0 - 2.5) <= 2.5 * 4 * Float.ulpOfOne }, "\(context)")
            }
        }
    }

    @Test func prepareRejectsBadOperands() {
        let input = Support.operand([1, 2, 2, 1])
        let size = Support.int32Constant([2], [4, 4])
        func prepare(_ inputs: [Operand], _ options: ResizeBilinear.Options = .init()) throws -> ResizeBilinear {
            try ResizeBilinear.prepare(inputs: inputs, options: options)
        }
        Support.expectError("RESIZE_BILINEAR", "expects 2 inputs") { try prepare([input]) }
        Support.expectError("RESIZE_BILINEAR", "cannot both be true") {
            try prepare([input, size], .init(alignCorners: true, halfPixelCenters: true))
        }
        Support.expectError("RESIZE_BILINEAR", "[N, H, W, C]") { try prepare([Support.operand([2, 2, 1]), size]) }
        Support.expectError("RESIZE_BILINEAR", "empty height or width") { try prepare([Support.operand([1, 0, 2, 1]), size]) }
        Support.expectError("RESIZE_BILINEAR", "shape [2]") {
            try prepare([input, Support.int32Constant([3], [4, 4, 1])])
        }
        Support.expectError("RESIZE_BILINEAR", "constant") { try prepare([input, Support.operand([2])]) }
        Support.expectError("RESIZE_BILINEAR", "int32") { try prepare([input, Support.floatConstant([2], [4, 4])]) }
        Support.expectError("RESIZE_BILINEAR", "(0, 4) is out of range") {
            try prepare([input, Support.int32Constant([2], [0, 4])])
        }
        Support.expectError("RESIZE_BILINEAR", "(4, -3) is out of range") {
            try prepare([input, Support.int32Constant([2], [4, -3])])
        }
        Support.expectError("RESIZE_BILINEAR", "out of range") {
            try prepare([input, Support.int32Constant([2], [4, Int32(ResizeBilinear.maxOutputSide + 1)])])
        }
        Support.expectError("RESIZE_BILINEAR", "invalid") {
            try prepare([Support.operand([1, 1, 1, 1 << 22]), Support.int32Constant([2], [1 << 10, 1 << 10])])
        }
    }
}
