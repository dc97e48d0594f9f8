import Foundation
import ImageIO
import Kernels
import TestSupport
import Testing
@testable import Pipeline

/// The vectorised bilinear sampler against its plain reference
/// (`FixedPointBilinearSampler.referenceSampleRow`): the same bytes for every row, over random
/// images, ROIs partly or wholly outside the image, both border modes, tensor widths on either
/// side of the 4-column vectors and the 64-column blocks, and maps with a real perspective part;
/// and a crop's rows split over threads against one thread.
@Suite struct BilinearSamplerSweepTests {
    /// Every row of `plan`'s warp, vectorised and reference, as one array each.
    private func bothWarps(_ plan: WarpPlan, image: RGBImage) -> (vectorised: [UInt8], reference: [UInt8]) {
        var vectorised = [UInt8](), reference = [UInt8]()
        plan.warpRows(image: image) { _, row in vectorised += row }
        plan.referenceWarpRows(image: image) { _, row in reference += row }
        return (vectorised, reference)
    }

    @Test func rotatedROIsGiveTheReferenceBytes() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        let sizes = [(1, 1), (2, 2), (3, 1), (1, 5), (7, 4), (33, 17), (64, 48), (131, 70)]
        for trial in 0..<400 {
            let (imageWidth, imageHeight) = sizes[trial % sizes.count]
            let image = random.image(width: imageWidth, height: imageHeight)
            let span = Double(max(imageWidth, imageHeight))
            let roi = RotatedPixelRect.random(
                centerX: -0.5 * span...1.5 * span, centerY: -0.5 * span...1.5 * span, sides: 0.05...3 * span,
                rotation: trial % 4 == 0 ? 0...0 : -7...7, using: &random)
            let options = ImageToTensor.Options(
                outputWidth: [1, 3, 4, 5, 63, 64, 65, 130][Int.random(in: 0..<8, using: &random)],
                outputHeight: Int.random(in: 1...9, using: &random), rangeMin: 0, rangeMax: 1,
                keepAspectRatio: Bool.random(using: &random),
                borderMode: Bool.random(using: &random) ? .zero : .replicate)
            let plan = try WarpPlan(image: image, roi: roi, options: options)
            let (vectorised, reference) = bothWarps(plan, image: image)
            #expect(vectorised == reference, "seed \(seed), trial \(trial): \(roi), \(options)")
        }
    }

    /// Crops whose sample positions sweep up to the image's last row and column, where the
    /// eight-column interior path must hand the pixels whose bottom-right eight-byte read would
    /// pass the image's end to the per-pixel path: the reference's bytes, over image sizes on
    /// either side of the 8-column blocks and scales that put taps on the last pixels.
    @Test func cropsReachingTheImageEndGiveTheReferenceBytes() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        for trial in 0..<120 {
            let imageWidth = Int.random(in: 2...40, using: &random), imageHeight = Int.random(in: 2...12, using: &random)
            let image = random.image(width: imageWidth, height: imageHeight)
            // The ROI is the image, nudged by up to a pixel, so the last tensor columns and rows
            // sample the image's last pixels.
            let roi = RotatedPixelRect(
                centerX: Double(imageWidth) / 2 + Double.random(in: -1...1, using: &random),
                centerY: Double(imageHeight) / 2 + Double.random(in: -1...1, using: &random),
                width: Double(imageWidth), height: Double(imageHeight), rotation: 0)
            let options = ImageToTensor.Options(
                outputWidth: imageWidth * Int.random(in: 1...3, using: &random) + Int.random(in: 0...9, using: &random),
                outputHeight: imageHeight + Int.random(in: 0...3, using: &random), rangeMin: 0, rangeMax: 1,
                keepAspectRatio: false, borderMode: Bool.random(using: &random) ? .zero : .replicate)
            let plan = try WarpPlan(image: image, roi: roi, options: options)
            let (vectorised, reference) = bothWarps(plan, image: image)
            #expect(vectorised == reference, "seed \(seed), trial \(trial): \(roi), \(options)")
        }
    }

    /// The source region a band of tensor rows is read ahead from (`SourceRegionWarmup`) lies
    /// inside the image and holds every tap of the band's pixels that lies inside it, for maps
    /// that rotate, scale and shift the tensor anywhere over and around the image (perspective
    /// maps whose `w` changes sign are declined instead).
    @Test func sourceRegionsHoldTheBandsTaps() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        let image = random.image(width: 61, height: 43)
        var regions = 0
        for trial in 0..<300 {
            let roi = RotatedPixelRect.random(
                centerX: -40...100, centerY: -40...80, sides: 1...120, rotation: -4...4, using: &random)
            let options = ImageToTensor.Options(
                outputWidth: Int.random(in: 1...90, using: &random), outputHeight: Int.random(in: 1...90, using: &random),
                rangeMin: 0, rangeMax: 1, keepAspectRatio: false, borderMode: .zero)
            let plan = try WarpPlan(image: image, roi: roi, options: options)
            let first = Int.random(in: 0..<options.outputHeight, using: &random)
            let rows = first..<min(first + Int.random(in: 1...40, using: &random), options.outputHeight)
            guard let region = SourceRegionWarmup.region(
                of: plan.sampler.map, outputWidth: options.outputWidth, rows: rows,
                imageWidth: image.width, imageHeight: image.height) else { continue }
            regions += 1
            #expect(region.rows.lowerBound >= 0 && region.rows.upperBound < image.height, "seed \(seed), trial \(trial)")
            #expect(region.bytes.lowerBound >= 0 && region.bytes.upperBound <= image.width * 3, "seed \(seed), trial \(trial)")
            var coordinates = [Int](repeating: 0, count: 2 * options.outputWidth)
            for row in rows {
                coordinates.withUnsafeMutableBufferPointer { coordinates in
                    plan.sampler.referenceCoordinates(row: row, outputWidth: options.outputWidth,
                                                      into: coordinates.baseAddress!)
                }
                for column in 0..<options.outputWidth {
                    let tapX = coordinates[2 * column] >> 5, tapY = coordinates[2 * column + 1] >> 5
                    for (x, y) in [(tapX, tapY), (tapX + 1, tapY + 1)]
                    where (0..<image.width).contains(x) && (0..<image.height).contains(y) {
                        #expect(region.rows.contains(y) && region.bytes.contains(3 * x) && region.bytes.contains(3 * x + 2),
                                "seed \(seed), trial \(trial): row \(row), column \(column)")
                    }
                }
            }
        }
        #expect(regions > 100, "seed \(seed): only \(regions) of 300 bands had a region")
    }

    /// A crop's rows split over threads (`ImageToTensor.convert`'s runner) give the tensor one
    /// thread gives, bit for bit, whatever the split.
    @Test(arguments: [2, 3])
    func cropsOnSeveralThreadsGiveTheSameTensor(threads: Int) throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        let runner = ParallelRunner(threadCount: threads)
        let image = random.image(width: 97, height: 61)
        for trial in 0..<40 {
            let roi = RotatedPixelRect.random(
                centerX: -20...120, centerY: -20...80, sides: 1...150, rotation: -4...4, using: &random)
            let options = ImageToTensor.Options(
                outputWidth: Int.random(in: 1...200, using: &random), outputHeight: Int.random(in: 1...200, using: &random),
                rangeMin: -1, rangeMax: 1, keepAspectRatio: Bool.random(using: &random),
                borderMode: Bool.random(using: &random) ? .zero : .replicate)
            let serial = try ImageToTensor.convert(image, roi: roi, options: options).tensor
            var split = [Float](repeating: .nan, count: serial.count)
            try split.withUnsafeMutableBufferPointer { buffer in
                _ = try ImageToTensor.convert(image, roi: roi, options: options, into: buffer, runner: runner)
            }
            #expect(split.map(\.bitPattern) == serial.map(\.bitPattern), "seed \(seed), trial \(trial): \(roi), \(options)")
        }
    }

    @Test func perspectiveMapsGiveTheReferencePositionsAndBytes() throws {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        let image = random.image(width: 40, height: 30)
        var tried = 0
        while tried < 300 {
            // Four random corners: most quadrilaterals are no rectangle, so the map has a
            // perspective part, and w can pass through 0 inside the tensor.
            func corner() -> (x: Float, y: Float) {
                (Float.random(in: -60...100, using: &random), Float.random(in: -60...100, using: &random))
            }
            let tensorWidth = Int.random(in: 1...150, using: &random), tensorHeight = Int.random(in: 1...6, using: &random)
            guard let map = ProjectiveMap(topLeft: corner(), topRight: corner(), bottomRight: corner(),
                                          bottomLeft: corner(), tensorWidth: tensorWidth, tensorHeight: tensorHeight)
            else { continue }
            tried += 1
            let sampler = FixedPointBilinearSampler(map: map, border: Bool.random(using: &random) ? .zero : .replicate)
            let positions = FixedPointBilinearSampler.RowScratch.capacity(outputWidth: tensorWidth)
            var reference = [Int](repeating: 0, count: 2 * tensorWidth)
            var x = [Int32](repeating: 0, count: positions), y = [Int32](repeating: 0, count: positions)
            // The vectorised sampler stores a pixel as four bytes: one byte of room past the row.
            var vectorisedRow = [UInt8](repeating: 0, count: 3 * tensorWidth + 1)
            var referenceRow = [UInt8](repeating: 0, count: 3 * tensorWidth)
            for row in 0..<tensorHeight {
                image.pixels.withUnsafeBufferPointer { pixels in
                    x.withUnsafeMutableBufferPointer { x in
                        y.withUnsafeMutableBufferPointer { y in
                            sampler.sampleRow(row, image: image, source: pixels.baseAddress!, outputWidth: tensorWidth,
                                              scratch: .init(x: x.baseAddress!, y: y.baseAddress!),
                                              into: &vectorisedRow)
                        }
                    }
                    reference.withUnsafeMutableBufferPointer { coordinates in
                        sampler.referenceSampleRow(row, image: image, source: pixels.baseAddress!, outputWidth: tensorWidth,
                                                   coordinates: coordinates.baseAddress!, into: &referenceRow)
                    }
                }
                let vectorisedPositions = (0..<tensorWidth).flatMap { [Int(x[$0]), Int(y[$0])] }
                #expect(vectorisedPositions == reference, "seed \(seed), map \(map.m), row \(row)")
                #expect(Array(vectorisedRow.prefix(3 * tensorWidth)) == referenceRow, "seed \(seed), map \(map.m), row \(row)")
            }
        }
    }

    /// A block of columns judged inside the Int32 range from its ends alone
    /// (`blockLiesInsideInt32Range`) has every position, computed as the reference computes it,
    /// finite and below 2^30 in magnitude, over random blocks whose `w` often changes sign
    /// between or at their ends and whose positions reach far past the range.
    @Test func blocksJudgedInRangeHaveEveryPositionInRange() {
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        var judgedInRange = 0, judgedOutside = 0
        for trial in 0..<20_000 {
            func value(_ magnitude: Double) -> Double {
                Double.random(in: -1...1, using: &random) * pow(10, Double.random(in: -3...magnitude, using: &random))
            }
            let m = (value(2), 0.0, 0.0, value(2), 0.0, 0.0, value(0), 0.0, 0.0)
            let x0 = value(9), y0 = value(9), w0 = value(1)
            let lastColumn = Int.random(in: 0...63, using: &random)
            guard FixedPointBilinearSampler.blockLiesInsideInt32Range(
                x0: x0, y0: y0, w0: w0, m: m, lastColumn: lastColumn) else {
                judgedOutside += 1
                continue
            }
            judgedInRange += 1
            for column in 0...lastColumn {
                let k = Double(column)
                let w = w0 + m.6 * k
                #expect(w != 0, "seed \(seed), trial \(trial), column \(column)")
                let scale = 32 / w
                for position in [(x0 + m.0 * k) * scale, (y0 + m.3 * k) * scale] {
                    #expect(position.isFinite && abs(position) < 1_073_741_824 * 1.000001,
                            "seed \(seed), trial \(trial), column \(column): \(position)")
                }
            }
        }
        #expect(judgedInRange > 1000 && judgedOutside > 1000, "seed \(seed): \(judgedInRange) in, \(judgedOutside) out")
    }

    @Test func extremePositionsRoundAndClampAsTheReference() {
        let values: [Double] = [.nan, -.nan, .infinity, -.infinity, 0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5,
                                2_147_483_646.5, 2_147_483_647.4, 2_147_483_647.6, 1e300,
                                -2_147_483_648.4, -2_147_483_648.6, -1e300, .ulpOfOne, -.leastNonzeroMagnitude]
        for start in stride(from: 0, to: values.count, by: 4) {
            let lanes = (0..<4).map { values[min(start + $0, values.count - 1)] }
            let vector = FixedPointBilinearSampler.roundToInt32Range(SIMD4(lanes))
            for lane in 0..<4 {
                #expect(Int(vector[lane]) == FixedPointBilinearSampler.roundToInt32Range(lanes[lane]), "\(lanes[lane])")
            }
        }
    }
}
