import Foundation
import ImageIO
import TestSupport
import Testing
@testable import Pipeline

/// Locates the shared fixtures: `$LANDMARKER_FIXTURES`, else `../shared/fixtures` next to the package root.
enum ImageFixtures {
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["LANDMARKER_FIXTURES"], !override.isEmpty {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/fixtures", isDirectory: true).standardized
    }()

    /// The absolute path of a fixture file; records a loud failure naming the file when it is missing.
    static func path(_ relative: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let url = root.appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("Missing fixture file: \(url.path) (set LANDMARKER_FIXTURES to the fixtures folder)",
                         sourceLocation: sourceLocation)
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        return url.path
    }

    static func float32File(_ relative: String) throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: try path(relative)))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
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

extension SeededGenerator {
    /// A `width` × `height` RGB image of uniformly random bytes.
    mutating func image(width: Int, height: Int) -> RGBImage {
        let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &self) }
        return try! RGBImage(width: width, height: height, pixels: pixels)
    }
}

/// The model-level golden inputs (fixtures README, "Model tensors"): rotated square ROI crops made
/// with `cv2.warpAffine` (bilinear, border replicate, side = max(w·W, h·H)) from a legacy golden's
/// rect, mapped to [0, 1]. They were produced by an OpenCV with the float32 warp (≥ 4.11), which
/// ``ImageToTensor/Arithmetic/float32`` reproduces; MediaPipe's own fixed-point arithmetic
/// differs from them by a few uint8 levels on some pixels.
@Suite struct ImageToTensorGoldenTests {
    struct Case: Sendable, CustomStringConvertible {
        let image: String
        let tensor: String
        let rectFile: String
        let rectPath: [String]
        let rectIndex: Int?
        let side: Int
        var description: String { tensor }
    }

    static let cases = [
        Case(image: "images/mp_pose_sitting.png", tensor: "tensors/pose_landmark_full/real_input.bin",
             rectFile: "legacy/pose_full/mp_pose_sitting.json", rectPath: ["intermediate", "pose_rect_from_detection"],
             rectIndex: nil, side: 256),
        Case(image: "images/mp_hand_thumb_up.png", tensor: "tensors/hand_landmark_full/real_input.bin",
             rectFile: "legacy/hands_full/mp_hand_thumb_up.json", rectPath: ["intermediate", "hand_rects_from_palm_detections"],
             rectIndex: 0, side: 224),
    ]

    struct Comparison {
        var maxLevelDifference = 0
        var differingValues = 0
        var valueCount = 0
        var maxFloatDifference: Float = 0
    }

    static func compare(_ testCase: Case, arithmetic: ImageToTensor.Arithmetic) throws -> Comparison {
        let image = try PNGCodec.decode(contentsOfFile: try ImageFixtures.path(testCase.image))
        let golden = try ImageFixtures.float32File(testCase.tensor)
        try #require(golden.count == testCase.side * testCase.side * 3)
        let keyPath: [Any] = testCase.rectPath + (testCase.rectIndex.map { [$0] } ?? [])
        let rect = try ImageFixtures.rect(file: testCase.rectFile, keyPath: keyPath)
        let width = Double(image.width), height = Double(image.height)
        let side = max(rect.width * width, rect.height * height)
        let roi = RotatedPixelRect(centerX: rect.xCenter * width, centerY: rect.yCenter * height,
                                   width: side, height: side, rotation: rect.rotation)
        let options = ImageToTensor.Options(outputWidth: testCase.side, outputHeight: testCase.side,
                                            rangeMin: 0, rangeMax: 1, keepAspectRatio: true,
                                            borderMode: .replicate, arithmetic: arithmetic)
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
        print("\(testCase) \(arithmetic): max |Δ| = \(comparison.maxLevelDifference) uint8 levels, "
              + "\(comparison.differingValues) of \(comparison.valueCount) values differ, "
              + "max float |Δ| = \(comparison.maxFloatDifference)")
        return comparison
    }

    @Test(arguments: cases)
    func float32ArithmeticReproducesTheGoldenInputExactly(testCase: Case) throws {
        let comparison = try Self.compare(testCase, arithmetic: .float32)
        #expect(comparison.maxLevelDifference == 0)
        // Same uint8 levels; the float mapping v × (1/255) may differ from the golden's v / 255 by an ulp.
        #expect(comparison.maxFloatDifference <= 1e-7)
    }

    @Test(arguments: cases)
    func fixedPointArithmeticStaysWithinAFewLevelsOfTheGoldenInput(testCase: Case) throws {
        // Measured: pose 3 levels on 9.8 % of the values, hand 2 levels on 2.8 % (the golden was
        // made with OpenCV's float warp; MediaPipe rounds positions to 1/32 pixel).
        let comparison = try Self.compare(testCase, arithmetic: .fixedPoint)
        #expect(comparison.maxLevelDifference <= 3)
        #expect(Double(comparison.differingValues) / Double(comparison.valueCount) < 0.11)
    }
}

/// The fixed-point arithmetic against OpenCV 4.10 (the fixed-point generation MediaPipe's
/// `ImageToTensorCalculator` runs on), called as MediaPipe calls it: `cv::boxPoints` of the
/// float32 ROI, `cv::getPerspectiveTransform` to the tensor corners, `cv::warpPerspective`
/// INTER_LINEAR. The expected values are FNV-1a-64 digests of the uint8 crops that
/// opencv-python-headless 4.10.0.84 produced for these ROIs (IPP disabled).
@Suite struct ImageToTensorOpenCVFixedPointTests {
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    @Test(arguments: [
        (ImageToTensorGoldenTests.cases[0], ImageToTensor.BorderMode.replicate, UInt64(0x1BDA_4F00_E248_7024)),
        (ImageToTensorGoldenTests.cases[0], .zero, 0x44E9_62CA_0EFF_D04B),
        (ImageToTensorGoldenTests.cases[1], .replicate, 0x751D_914B_19A1_0434),
        (ImageToTensorGoldenTests.cases[1], .zero, 0xF4C3_DB93_1618_C0E6),
    ])
    func rotatedLandmarkROIsMatchBitForBit(testCase: ImageToTensorGoldenTests.Case, border: ImageToTensor.BorderMode,
                                           expectedDigest: UInt64) throws {
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
        #expect(Self.fnv1a64(crop.pixels) == expectedDigest)
    }

    @Test(arguments: [
        ("images/bus.png", 224, 224, UInt64(0xAE88_A65A_14C3_FA36)),
        ("images/zidane.png", 224, 224, 0x5F5E_C44E_8381_CDC8),
        ("images/hagrid_take_photo.png", 192, 192, 0xB732_67F5_0AEA_3840),
        ("images/mp_thumbs_up_black.png", 192, 128, 0x8E70_3642_AC3F_DC6A),
    ])
    func letterboxedDetectorInputsMatchBitForBit(file: String, tensorWidth: Int, tensorHeight: Int,
                                                 expectedDigest: UInt64) throws {
        let image = try PNGCodec.decode(contentsOfFile: try ImageFixtures.path(file))
        let options = ImageToTensor.Options(outputWidth: tensorWidth, outputHeight: tensorHeight, rangeMin: -1,
                                            rangeMax: 1, keepAspectRatio: true, borderMode: .zero)
        let crop = try ImageToTensor.crop(image, roi: .fullImage(width: image.width, height: image.height),
                                          options: options).image
        #expect(Self.fnv1a64(crop.pixels) == expectedDigest)
    }
}
