import Foundation
import ImageIO
import TestSupport
import Testing
@testable import Pipeline

@Suite struct ImageMaskWarpTests {
    /// A deterministic mask: value (r·31 + c·17) mod 256, divided by 255.
    static func patternMask(width: Int, height: Int) -> [Float] {
        var mask = [Float]()
        for row in 0..<height {
            for column in 0..<width { mask.append(Float((row * 31 + column * 17) % 256) / 255) }
        }
        return mask
    }

    /// Expected digests (FNV-1a-64 of the float32 output) from opencv-python-headless 4.10.0.84,
    /// `mask_warps` of `Tests/Fixtures/opencv_crops.json` (`scripts/make_opencv_crops.py`):
    /// `cv2.warpAffine(mask, T, (W, H), INTER_LINEAR | WARP_INVERSE_MAP, BORDER_CONSTANT)` with T
    /// the float32 `scale(mask) · M⁻¹ · scale(1/image)` of MediaPipe's OpenCV runner, for the
    /// legacy goldens' pose and hand ROIs (side = max(w·W, h·H), in float32).
    @Test func matchesOpenCVBitForBit() throws {
        let entries = (try Fixtures.json("opencv_crops.json") as! [String: Any])["mask_warps"] as! [[String: Any]]
        try #require(entries.count == ImageToTensorGoldenTests.cases.count)
        for entry in entries {
            let testCase = try #require(ImageToTensorGoldenTests.cases.first { $0.image == entry["image"] as! String })
            let imageWidth = entry["image_width"] as! Int, imageHeight = entry["image_height"] as! Int
            let maskWidth = entry["mask_width"] as! Int, maskHeight = entry["mask_height"] as! Int
            let keyPath: [Any] = testCase.rectPath + (testCase.rectIndex.map { [$0] } ?? [])
            let rect = try ImageFixtures.rect(file: testCase.rectFile, keyPath: keyPath)
            let width = Double(imageWidth), height = Double(imageHeight)
            let side = Double(Float(max(rect.width * width, rect.height * height)))
            let roi = RotatedPixelRect(
                centerX: Double(Float(rect.xCenter * width)), centerY: Double(Float(rect.yCenter * height)),
                width: side, height: side, rotation: Double(Float(rect.rotation)))
            let output = try SegmentationMaskWarp.toImage(Self.patternMask(width: maskWidth, height: maskHeight),
                                                          maskWidth: maskWidth, maskHeight: maskHeight, roi: roi,
                                                          imageWidth: imageWidth, imageHeight: imageHeight)
            #expect(output.count == imageWidth * imageHeight)
            #expect(FNV1a.hash(output) == entry["fnv1a64"] as! String, "\(testCase)")
        }
    }

    @Test func fullImageROIReturnsTheMaskItself() throws {
        for (width, height) in [(1, 1), (5, 3), (64, 40), (97, 61)] {
            let mask = Self.patternMask(width: width, height: height)
            let output = try SegmentationMaskWarp.toImage(mask, maskWidth: width, maskHeight: height,
                                                          roi: .fullImage(width: width, height: height),
                                                          imageWidth: width, imageHeight: height)
            #expect(output == mask, "\(width)x\(height)")
        }
    }

    /// The forward quarter turn sends tensor (i, j) to image (W − j, i) (see the tensor tests),
    /// so the inverse puts mask (row r, column c) at image (W − r, c): image (x, y) reads mask row
    /// W − x, column y, and column x = 0 reads row W, past the mask, hence 0.
    @Test func quarterTurnIsInvertedExactly() throws {
        let width = 9, height = 6
        let mask = Self.patternMask(width: height, height: width)   // tensor: ROI H×W
        let roi = RotatedPixelRect(centerX: Double(width) / 2, centerY: Double(height) / 2,
                                   width: Double(height), height: Double(width), rotation: .pi / 2)
        let output = try SegmentationMaskWarp.toImage(mask, maskWidth: height, maskHeight: width, roi: roi,
                                                      imageWidth: width, imageHeight: height)
        for y in 0..<height {
            for x in 0..<width {
                let expected = x == 0 ? 0 : mask[(width - x) * height + y]
                #expect(output[y * width + x] == expected, "(\(x), \(y))")
            }
        }
    }

    @Test func outsideTheROIIsZero() throws {
        let mask = [Float](repeating: 1, count: 16 * 16)
        let roi = RotatedPixelRect(centerX: 20, centerY: 20, width: 8, height: 8)
        let output = try SegmentationMaskWarp.toImage(mask, maskWidth: 16, maskHeight: 16, roi: roi,
                                                      imageWidth: 40, imageHeight: 30)
        // The ROI spans x, y ∈ [16, 24): inside it the mask is 1, away from it 0.
        #expect(output[20 * 40 + 20] == 1)
        #expect(output[5 * 40 + 5] == 0 && output[29 * 40 + 39] == 0 && output[20 * 40 + 30] == 0)
        #expect(output.allSatisfy { $0 >= 0 && $0 <= 1 })
    }

    /// The inverse in MediaPipe's arithmetic is still an inverse: M⁻¹·M is the identity to float
    /// precision over random ROIs (any size, centre, rotation); a singular matrix has none.
    @Test func inverseRowsInvertTheROIMatrix() {
        var generator = SeededGenerator.announced()
        for _ in 0..<1_000 {
            let imageWidth = Int.random(in: 1...4096, using: &generator)
            let imageHeight = Int.random(in: 1...4096, using: &generator)
            let m = ROIGeometry.roiMatrix(
                centerX: Float.random(in: -500...4500, using: &generator), centerY: Float.random(in: -500...4500, using: &generator),
                width: Float.random(in: 1...5000, using: &generator), height: Float.random(in: 1...5000, using: &generator),
                rotation: Float.random(in: -7...7, using: &generator), imageWidth: imageWidth, imageHeight: imageHeight)
            guard let (i00, i01, i03, i10, i11, i13) = SegmentationMaskWarp.inverseAffineRows(of: m) else {
                Issue.record("no inverse for \(m)")
                continue
            }
            // Each entry of M⁻¹·M as its terms: off the identity by at most a few float32 roundings
            // of the largest term.
            let d = { (value: Float) in Double(value) }
            let entries: [(terms: [Double], expected: Double)] = [
                ([d(i00) * d(m[0]), d(i01) * d(m[4])], 1), ([d(i00) * d(m[1]), d(i01) * d(m[5])], 0),
                ([d(i00) * d(m[3]), d(i01) * d(m[7]), d(i03)], 0),
                ([d(i10) * d(m[0]), d(i11) * d(m[4])], 0), ([d(i10) * d(m[1]), d(i11) * d(m[5])], 1),
                ([d(i10) * d(m[3]), d(i11) * d(m[7]), d(i13)], 0),
            ]
            for (terms, expected) in entries {
                let error = abs(terms.reduce(0, +) - expected)
                let scale = terms.map(abs).max()!
                #expect(error <= 1e-5 * scale, "M⁻¹·M off the identity by \(error) (terms \(terms)) for \(m)")
            }
        }
        let singular: [Float] = [1, 2, 0, 3, 2, 4, 0, 5, 0, 0, 1, 0, 0, 0, 0, 1]
        #expect(SegmentationMaskWarp.inverseAffineRows(of: singular) == nil)
    }

    @Test func refusesInvalidArguments() {
        let roi = RotatedPixelRect.fullImage(width: 4, height: 4)
        let mask = [Float](repeating: 0, count: 16)
        #expect(throws: ImageWarpError.bufferTooSmall(count: 16, required: 25)) {
            try SegmentationMaskWarp.toImage(mask, maskWidth: 5, maskHeight: 5, roi: roi, imageWidth: 4, imageHeight: 4)
        }
        #expect(throws: ImageWarpError.invalidSize(width: 0, height: 4)) {
            try SegmentationMaskWarp.toImage(mask, maskWidth: 0, maskHeight: 4, roi: roi, imageWidth: 4, imageHeight: 4)
        }
        #expect(throws: ImageWarpError.invalidSize(width: Int.max, height: 2)) {
            try SegmentationMaskWarp.toImage(mask, maskWidth: 4, maskHeight: 4, roi: roi, imageWidth: Int.max, imageHeight: 2)
        }
        let flat = RotatedPixelRect(centerX: 2, centerY: 2, width: 4, height: 0)
        #expect(throws: ImageWarpError.invalidROI(flat)) {
            try SegmentationMaskWarp.toImage(mask, maskWidth: 4, maskHeight: 4, roi: flat, imageWidth: 4, imageHeight: 4)
        }
        var output = [Float](repeating: 0, count: 15)
        mask.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                _ = #expect(throws: ImageWarpError.bufferTooSmall(count: 15, required: 16)) {
                    try SegmentationMaskWarp.toImage(source, maskWidth: 4, maskHeight: 4, roi: roi,
                                                     imageWidth: 4, imageHeight: 4, into: destination)
                }
            }
        }
    }
}
