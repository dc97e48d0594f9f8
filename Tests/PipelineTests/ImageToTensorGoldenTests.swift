import Foundation
import ImageIO
import TestSupport
import Testing
@testable import Pipeline

/// Reads the golden fixtures (`Fixtures.path`) for the image-to-tensor tests.
enum ImageFixtures {
    /// The absolute path of a fixture file (`Fixtures.path`); throws naming the file when it is missing.
    static func path(_ relative: String) throws -> String {
        try Fixtures.path(relative)
    }

    /// A NormalizedRect from a legacy golden JSON, as decimal doubles.
    static func rect(file: String, keyPath: [Any]) throws -> (xCenter: Double, yCenter: Double, width: Double, height: Double, rotation: Double) {
        let data = try Data(contentsOf: URL(fileURLWithPath: try path(file)))
        var node: Any = try JSONSerialization.jsonObject(with: data)
        for key in keyPath {
            if let name = key as? String, let object = node as? [String: Any], let child = object[name] {
                node = child
            } else if let index = key as? Int, let array = node as? [Any], index < array.count {
                node = array[index]
            } else {
                throw CocoaError(.coderValueNotFound, userInfo: [NSDebugDescriptionErrorKey: "\(file): no \(key)"])
            }
        }
        guard let rect = node as? [String: Any],
              let x = (rect["x_center"] as? NSNumber)?.doubleValue, let y = (rect["y_center"] as? NSNumber)?.doubleValue,
              let w = (rect["width"] as? NSNumber)?.doubleValue, let h = (rect["height"] as? NSNumber)?.doubleValue,
              let r = (rect["rotation"] as? NSNumber)?.doubleValue else {
            throw CocoaError(.coderValueNotFound, userInfo: [NSDebugDescriptionErrorKey: "\(file): malformed rect"])
        }
        return (x, y, w, h, r)
    }
}

/// The model-level golden inputs (`Tests/Fixtures/tensors/<model>/input.png`, made by
/// `scripts/make_fixtures.py`): rotated square ROI crops (border replicate, side = max(w·W, h·H))
/// of a legacy golden's rect, cut with the OpenCV arithmetic of MediaPipe's
/// `ImageToTensorCalculator` (`cv::boxPoints`, `cv::getPerspectiveTransform`,
/// `cv::warpPerspective` INTER_LINEAR, fixed point), which ``ImageToTensor`` reproduces.
@Suite struct ImageToTensorGoldenTests {
    struct Case: Sendable, CustomStringConvertible {
        let image: String
        /// The model whose golden input this is (`Fixtures.modelInput`).
        let tensor: String
        let rectFile: String
        let rectPath: [String]
        let rectIndex: Int?
        let side: Int
        var description: String { tensor }
    }

    static let cases = [
        Case(image: "images/bus_man.png", tensor: "pose_landmark_full",
             rectFile: "legacy/pose_full/bus_man.json", rectPath: ["intermediate", "pose_rect_from_detection"],
             rectIndex: nil, side: 256),
        Case(image: "images/t1_chip.png", tensor: "hand_landmark_full",
             rectFile: "legacy/hands_full/t1_chip.json", rectPath: ["intermediate", "hand_rects_from_palm_detections"],
             rectIndex: 0, side: 224),
    ]

    struct Comparison {
        var maxLevelDifference = 0
        var differingValues = 0
        var valueCount = 0
        var maxFloatDifference: Float = 0
    }

    static func compare(_ testCase: Case) throws -> Comparison {
        let image = try PNGCodec.decode(contentsOfFile: try ImageFixtures.path(testCase.image))
        let golden = try Fixtures.modelInput(testCase.tensor)
        try #require(golden.count == testCase.side * testCase.side * 3)
        let keyPath: [Any] = testCase.rectPath + (testCase.rectIndex.map { [$0] } ?? [])
        let rect = try ImageFixtures.rect(file: testCase.rectFile, keyPath: keyPath)
        let width = Double(image.width), height = Double(image.height)
        let side = max(rect.width * width, rect.height * height)
        let roi = RotatedPixelRect(centerX: rect.xCenter * width, centerY: rect.yCenter * height,
                                   width: side, height: side, rotation: rect.rotation)
        let options = ImageToTensor.Options(outputWidth: testCase.side, outputHeight: testCase.side,
                                            rangeMin: 0, rangeMax: 1, keepAspectRatio: true,
                                            borderMode: .replicate)
        let (tensor, transform) = try ImageToTensor.convert(image, roi: roi, options: options)
        #expect(transform.padding == .zero)
        var comparison = Comparison(valueCount: golden.count)
        for index in golden.indices {
            let goldenLevel = Int((golden[index] * 255).rounded())
            let ourLevel = Int((tensor[index] * 255).rounded())
            let difference = abs(goldenLevel - ourLevel)
            comparison.maxLevelDifference = max(comparison.maxLevelDifference, difference)
            if difference > 0 { comparison.differingValues += 1 }
            comparison.maxFloatDifference = max(comparison.maxFloatDifference, abs(golden[index] - tensor[index]))
        }
        print("\(testCase): max |Δ| = \(comparison.maxLevelDifference) uint8 levels, "
              + "\(comparison.differingValues) of \(comparison.valueCount) values differ, "
              + "max float |Δ| = \(comparison.maxFloatDifference)")
        return comparison
    }

    @Test(arguments: cases)
    func fixedPointArithmeticReproducesTheGoldenInputExactly(testCase: Case) throws {
        let comparison = try Self.compare(testCase)
        #expect(comparison.maxLevelDifference == 0)
        // Same uint8 levels; the float mapping v × (1/255) may differ from the golden's v / 255 by an ulp.
        #expect(comparison.maxFloatDifference <= 1e-7)
    }
}

/// The fixed-point arithmetic against OpenCV 4.10 (the fixed-point generation MediaPipe's
/// `ImageToTensorCalculator` runs on), called as MediaPipe calls it: `cv::boxPoints` of the
/// float32 ROI, `cv::getPerspectiveTransform` to the tensor corners, `cv::warpPerspective`
/// INTER_LINEAR. The expected values are FNV-1a-64 digests of the uint8 crops that
/// opencv-python-headless 4.10.0.84 produced (IPP disabled), in `Tests/Fixtures/opencv_crops.json`
/// (`scripts/make_opencv_crops.py`).
@Suite struct ImageToTensorOpenCVFixedPointTests {
    /// The entries of one list of `opencv_crops.json`.
    static func crops(_ list: String) throws -> [[String: Any]] {
        (try Fixtures.json("opencv_crops.json") as! [String: Any])[list] as! [[String: Any]]
    }

    @Test func rotatedLandmarkROIsMatchBitForBit() throws {
        let entries = try Self.crops("roi_crops")
        try #require(entries.count == 2 * ImageToTensorGoldenTests.cases.count)
        for entry in entries {
            let testCase = try #require(ImageToTensorGoldenTests.cases.first { $0.image == entry["image"] as! String })
            let border: ImageToTensor.BorderMode = entry["border"] as! String == "zero" ? .zero : .replicate
            let image = try PNGCodec.decode(contentsOfFile: try ImageFixtures.path(testCase.image))
            let keyPath: [Any] = testCase.rectPath + (testCase.rectIndex.map { [$0] } ?? [])
            let rect = try ImageFixtures.rect(file: testCase.rectFile, keyPath: keyPath)
            let width = Double(image.width), height = Double(image.height)
            let side = max(rect.width * width, rect.height * height)
            let roi = RotatedPixelRect(centerX: rect.xCenter * width, centerY: rect.yCenter * height,
                                       width: side, height: side, rotation: rect.rotation)
            let options = ImageToTensor.Options(outputWidth: testCase.side, outputHeight: testCase.side, rangeMin: 0,
                                                rangeMax: 1, keepAspectRatio: true, borderMode: border)
            let crop = try ImageToTensor.crop(image, roi: roi, options: options).image
            #expect(FNV1a.hash(crop.pixels) == entry["fnv1a64"] as! String, "\(testCase) \(border)")
        }
    }

    @Test func letterboxedDetectorInputsMatchBitForBit() throws {
        let entries = try Self.crops("letterboxes")
        try #require(entries.count >= 4)
        for entry in entries {
            let file = entry["image"] as! String
            let image = try PNGCodec.decode(contentsOfFile: try ImageFixtures.path(file))
            let options = ImageToTensor.Options(outputWidth: entry["width"] as! Int, outputHeight: entry["height"] as! Int,
                                                rangeMin: -1, rangeMax: 1, keepAspectRatio: true, borderMode: .zero)
            let crop = try ImageToTensor.crop(image, roi: .fullImage(width: image.width, height: image.height),
                                              options: options).image
            #expect(FNV1a.hash(crop.pixels) == entry["fnv1a64"] as! String, "\(file)")
        }
    }
}
