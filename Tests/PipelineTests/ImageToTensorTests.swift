import Foundation
import ImageIO
import TestSupport
import Testing
@testable import Pipeline

@Suite struct ImageToTensorTests {
    static let borders: [ImageToTensor.BorderMode] = [.replicate, .zero]

    private func options(_ width: Int, _ height: Int, keepAspectRatio: Bool = false,
                         border: ImageToTensor.BorderMode = .replicate,
                         range: (Float, Float) = (0, 1)) -> ImageToTensor.Options {
        ImageToTensor.Options(outputWidth: width, outputHeight: height, rangeMin: range.0, rangeMax: range.1,
                              keepAspectRatio: keepAspectRatio, borderMode: border)
    }

    @Test(arguments: borders)
    func identityROIReturnsThePixelsExactly(border: ImageToTensor.BorderMode) throws {
        var random = SeededGenerator(seed: 42)
        for (width, height) in [(1, 1), (2, 3), (17, 9), (64, 64), (131, 70)] {
            let image = random.image(width: width, height: height)
            let crop = try ImageToTensor.crop(image, roi: .fullImage(width: width, height: height),
                                              options: options(width, height, border: border))
            #expect(crop.image == image, "\(width)x\(height) \(border)")
            #expect(crop.transform.padding == .zero)
        }
    }

    @Test func valueMappingIsAppliedToTheRoundedBytes() throws {
        var random = SeededGenerator(seed: 5)
        let image = random.image(width: 9, height: 4)
        for (low, high) in [(Float(0), Float(1)), (-1, 1), (-0.5, 3)] {
            let (tensor, _) = try ImageToTensor.convert(image, roi: .fullImage(width: 9, height: 4),
                                                        options: options(9, 4, range: (low, high)))
            #expect(tensor.count == 9 * 4 * 3)
            // One fused multiply-add per value, as OpenCV's convertTo computes it in MediaPipe.
            let scale = (high - low) / 255
            #expect(zip(tensor, image.pixels).allSatisfy { $0 == low.addingProduct(Float($1), scale) })
            #expect(tensor.min()! >= low && tensor.max()! <= high.nextUp.nextUp)
        }
    }

    /// A quarter turn of the full-image ROI. MediaPipe maps tensor corners to ROI corners, so with
    /// rotation θ tensor pixel (i, j) samples `c + R(θ)·(i − roiW/2, j − roiH/2)`; written out by
    /// hand for W×H images:
    /// θ = +π/2 (ROI H×W): (W − j, i);  θ = π (ROI W×H): (W − i, H − j);  θ = −π/2 (ROI H×W): (j, H − i).
    /// Every position is an integer, so the result is a permutation of pixels, with a sample at
    /// x = W or y = H reading the replicated edge or 0.
    @Test(arguments: borders)
    func quarterTurnsMovePixelsExactly(border: ImageToTensor.BorderMode) throws {
        var random = SeededGenerator(seed: 9)
        let width = 13, height = 8
        let image = random.image(width: width, height: height)
        func source(_ x: Int, _ y: Int) -> [UInt8] {
            if x >= width || y >= height {
                if border == .zero { return [0, 0, 0] }
            }
            let pixel = image[min(x, width - 1), min(y, height - 1)]!
            return [pixel.red, pixel.green, pixel.blue]
        }
        let turns: [(rotation: Double, roiWidth: Int, roiHeight: Int, expected: (Int, Int) -> [UInt8])] = [
            (.pi / 2, height, width, { i, j in source(width - j, i) }),
            (.pi, width, height, { i, j in source(width - i, height - j) }),
            (-.pi / 2, height, width, { i, j in source(j, height - i) }),
        ]
        for turn in turns {
            let roi = RotatedPixelRect(centerX: Double(width) / 2, centerY: Double(height) / 2,
                                       width: Double(turn.roiWidth), height: Double(turn.roiHeight), rotation: turn.rotation)
            let crop = try ImageToTensor.crop(image, roi: roi, options: options(
                turn.roiWidth, turn.roiHeight, border: border)).image
            var expected = [UInt8]()
            for j in 0..<turn.roiHeight {
                for i in 0..<turn.roiWidth { expected += turn.expected(i, j) }
            }
            #expect(crop.pixels == expected, "rotation \(turn.rotation) \(border)")
        }
    }

    @Test func letterboxPadsTheShortSideAndReportsThePadding() throws {
        // A 200×100 image into 64×64: t = 1 > r = 0.5, so the ROI grows to 200×200 and the
        // padding is (1 − 0.5) / 2 = 0.25 at the top and the bottom. Tensor row j samples
        // y = 3.125·j − 50: rows 0…15 lie entirely above the image (y < −1) and rows 48…63
        // entirely below (y ≥ 100), so with a zero border they are the range minimum.
        var random = SeededGenerator(seed: 77)
        let image = random.image(width: 200, height: 100)
        let (tensor, transform) = try ImageToTensor.convert(
            image, roi: .fullImage(width: 200, height: 100),
            options: options(64, 64, keepAspectRatio: true, border: .zero, range: (-1, 1)))
        #expect(transform.padding == LetterboxPadding(left: 0, top: 0.25, right: 0, bottom: 0.25))
        #expect(transform.sampledROI == RotatedPixelRect(centerX: 100, centerY: 50, width: 200, height: 200))
        let rowLength = 64 * 3
        for row in Array(0..<16) + Array(48..<64) {
            #expect(tensor[(row * rowLength)..<((row + 1) * rowLength)].allSatisfy { $0 == -1 }, "row \(row)")
        }
        #expect(tensor[(16 * rowLength)..<(48 * rowLength)].contains { $0 != -1 })
        // A tall ROI pads left and right instead.
        let tall = try ImageToTensor.convert(image, roi: RotatedPixelRect(centerX: 100, centerY: 50, width: 25, height: 100),
                                             options: options(32, 32, keepAspectRatio: true)).transform
        #expect(tall.padding == LetterboxPadding(left: 0.375, top: 0, right: 0.375, bottom: 0))
        #expect(tall.sampledROI.width == 100 && tall.sampledROI.height == 100)
    }

    @Test func matrixMapsTensorCornersToTheSampledROI() throws {
        var random = SeededGenerator(seed: 3)
        let image = random.image(width: 300, height: 200)
        let roi = RotatedPixelRect(centerX: 120, centerY: 90, width: 80, height: 60, rotation: 0.4)
        let transform = try ImageToTensor.convert(image, roi: roi, options: options(48, 48, keepAspectRatio: true)).transform
        let m = transform.matrix
        #expect(m.count == 16)
        func apply(_ u: Float, _ v: Float) -> (x: Double, y: Double) {
            let x: Float = m[0] * u + m[1] * v + m[3]
            let y: Float = m[4] * u + m[5] * v + m[7]
            return (Double(x) * 300, Double(y) * 200)
        }
        let sampled = transform.sampledROI
        #expect(sampled.width == 80 && sampled.height == 80)
        let (c, s) = (cos(0.4), sin(0.4))
        for (u, v) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.5, 0.5)] {
            let local = ((u - 0.5) * 80, (v - 0.5) * 80)
            let expected = (120 + c * local.0 - s * local.1, 90 + s * local.0 + c * local.1)
            let mapped = apply(Float(u), Float(v))
            #expect(abs(mapped.x - expected.0) < 1e-3 && abs(mapped.y - expected.1) < 1e-3, "corner \(u), \(v)")
        }
        #expect(Array(m[8...]) == [0, 0, Float(80) / 300, 0, 0, 0, 0, 1])
    }

    /// OpenCV's fixed-point rounding, shown by hand on tiny cases.
    @Test func fixedPointRoundingIsOpenCVs() throws {
        // A sample exactly halfway between 10 and 11: fixed point rounds half up,
        // (10·512 + 11·512 + 512) >> 10 = 11.
        let pair = try RGBImage(width: 2, height: 1, pixels: [10, 11, 12, 11, 12, 13])
        let halfway = RotatedPixelRect(centerX: 1, centerY: 0.5, width: 1, height: 1)
        let fixed = try ImageToTensor.crop(pair, roi: halfway, options: options(1, 1)).image.pixels
        #expect(fixed == [11, 12, 13])

        // x = 0.2578125 = 0.25 + 1/128 between 0 and 255: fixed point first rounds the position
        // to 8/32 (8.25 → 8), giving (255·8·32 + 512) >> 10 = 64 (exact bilinear: 65.74).
        let ramp = try RGBImage(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255])
        let quarter = RotatedPixelRect(centerX: 0.7578125, centerY: 0.5, width: 1, height: 1)
        #expect(try ImageToTensor.crop(ramp, roi: quarter, options: options(1, 1)).image.pixels == [64, 64, 64])
    }

    @Test func roiOutsideTheImageReadsTheBorder() throws {
        var random = SeededGenerator(seed: 21)
        let image = random.image(width: 10, height: 6)
        // Far left of the image: every sample has x < −1, so replicate reads column 0 at the
        // sampled row (rows 0…5, one tensor row per image row) and zero reads 0.
        let roi = RotatedPixelRect(centerX: -50, centerY: 3, width: 4, height: 6)
        let replicated = try ImageToTensor.crop(image, roi: roi, options: options(4, 6)).image
        for y in 0..<6 {
            let edge = image[0, y]!
            for x in 0..<4 {
                let pixel = replicated[x, y]!
                #expect(pixel == edge, "(\(x), \(y))")
            }
        }
        let zero = try ImageToTensor.crop(image, roi: roi, options: options(4, 6, border: .zero)).image
        #expect(zero.pixels.allSatisfy { $0 == 0 })
    }

    @Test func writesIntoACallerBuffer() throws {
        var random = SeededGenerator(seed: 8)
        let image = random.image(width: 30, height: 20)
        let roi = RotatedPixelRect(centerX: 14, centerY: 11, width: 18, height: 12, rotation: -0.3)
        let settings = options(16, 8, keepAspectRatio: true)
        let (expected, _) = try ImageToTensor.convert(image, roi: roi, options: settings)
        var buffer = [Float](repeating: .nan, count: 16 * 8 * 3 + 5)
        try buffer.withUnsafeMutableBufferPointer { output in
            _ = try ImageToTensor.convert(image, roi: roi, options: settings, into: output)
        }
        #expect(Array(buffer.prefix(expected.count)) == expected)
        #expect(buffer.suffix(5).allSatisfy { $0.isNaN })
        var short = [Float](repeating: 0, count: 16 * 8 * 3 - 1)
        short.withUnsafeMutableBufferPointer { output in
            _ = #expect(throws: ImageWarpError.bufferTooSmall(count: 16 * 8 * 3 - 1, required: 16 * 8 * 3)) {
                try ImageToTensor.convert(image, roi: roi, options: settings, into: output)
            }
        }
    }

    @Test func refusesInvalidArguments() throws {
        let image = try RGBImage(width: 4, height: 4, pixels: [UInt8](repeating: 1, count: 48))
        let full = RotatedPixelRect.fullImage(width: 4, height: 4)
        let invalidROIs = [
            RotatedPixelRect(centerX: .nan, centerY: 2, width: 4, height: 4),
            RotatedPixelRect(centerX: 2, centerY: 2, width: 0, height: 0),
            RotatedPixelRect(centerX: 2, centerY: 2, width: -4, height: 4),
            RotatedPixelRect(centerX: 2, centerY: 2, width: 4, height: .infinity),
            RotatedPixelRect(centerX: 2, centerY: 2, width: 4, height: 4, rotation: .nan),
            RotatedPixelRect(centerX: 1e300, centerY: 2, width: 4, height: 4),
        ]
        for roi in invalidROIs {
            let error = #expect(throws: ImageWarpError.self) {
                try ImageToTensor.convert(image, roi: roi, options: options(4, 4, keepAspectRatio: true))
            }
            guard case .invalidROI? = error else {
                Issue.record("\(roi): expected invalidROI, got \(String(describing: error))")
                continue
            }
        }
        // A width that is positive in double but 0 in float32, where MediaPipe holds the ROI.
        let underflowing = RotatedPixelRect(centerX: 2, centerY: 2, width: 1e-300, height: 4)
        #expect(throws: ImageWarpError.invalidROI(underflowing)) {
            try ImageToTensor.convert(image, roi: underflowing, options: options(4, 4, keepAspectRatio: true))
        }
        for (width, height) in [(0, 4), (4, -1), (16_385, 4)] {
            #expect(throws: ImageWarpError.invalidSize(width: width, height: height)) {
                try ImageToTensor.crop(image, roi: full, options: options(width, height))
            }
        }
        for range in [(Float(1), Float(1)), (1, 0), (.nan, 1), (0, .infinity)] {
            #expect(throws: ImageWarpError.self) {
                try ImageToTensor.convert(image, roi: full, options: options(4, 4, range: range))
            }
        }
        #expect(ImageWarpError.invalidSize(width: 0, height: 3).description.contains("0x3"))
    }

    @Test func randomROIsNeverTrapAndStayInRange() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        let image = random.image(width: 23, height: 17)
        for _ in 0..<300 {
            let roi = RotatedPixelRect.random(
                centerX: -100...120, centerY: -100...120, sides: 0.01...400, rotation: -10...10, using: &random)
            let settings = options(Int.random(in: 1...40, using: &random), Int.random(in: 1...40, using: &random),
                                   keepAspectRatio: Bool.random(using: &random),
                                   border: Bool.random(using: &random) ? .zero : .replicate, range: (-1, 1))
            let (tensor, transform) = try ImageToTensor.convert(image, roi: roi, options: settings)
            #expect(tensor.count == settings.outputWidth * settings.outputHeight * 3, "seed \(seed)")
            // 255 · fl(2/255) − 1 rounds once, fused: it may pass 1 by an ulp, as in MediaPipe.
            #expect(tensor.allSatisfy { $0 >= -1 && $0 <= 1.0000002 }, "seed \(seed)")
            #expect(transform.matrix.allSatisfy { $0.isFinite }, "seed \(seed)")
        }
    }
}
