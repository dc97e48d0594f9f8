import Foundation
import ImageIO
import TestSupport
import Testing
@testable import Pipeline
@testable import MediaPipeTasksVision

@Suite struct ImageMPImageTests {
    /// 2×1 image with pixels P = (1, 2, 3) and Q = (4, 5, 6) in each supported layout.
    static let rgb: [UInt8] = [1, 2, 3, 4, 5, 6]

    @Test func convertsEveryPixelFormat() throws {
        let layouts: [(PixelFormat, [UInt8], [UInt8])] = [
            (.rgb8, [1, 2, 3, 4, 5, 6], Self.rgb),
            (.rgba8, [1, 2, 3, 200, 4, 5, 6, 0], Self.rgb),
            (.bgra8, [3, 2, 1, 255, 6, 5, 4, 9], Self.rgb),
            (.gray8, [7, 250], [7, 7, 7, 250, 250, 250]),
        ]
        for (format, bytes, expected) in layouts {
            let image = try MPImage(pixels: bytes, width: 2, height: 1, format: format)
            #expect(image.rgbImage.pixels == expected, "\(format)")
            #expect(image.width == 2 && image.height == 1)
            #expect(image.orientation == .up)
        }
    }

    @Test func honoursRowStrideAndReadsOnlyWhatItNeeds() throws {
        // 2×2 RGBA with 3 bytes of padding per row; the last row's padding is absent.
        let bytes: [UInt8] = [1, 2, 3, 0, 4, 5, 6, 0, 99, 99, 99,
                              7, 8, 9, 0, 10, 11, 12, 0]
        let image = try MPImage(pixels: bytes, width: 2, height: 2, format: .rgba8, rowStride: 11)
        #expect(image.rgbImage.pixels == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        let viaPointer = try bytes.withUnsafeBytes { buffer in
            try MPImage(pixels: buffer, width: 2, height: 2, format: .rgba8, rowStride: 11)
        }
        #expect(viaPointer.rgbImage == image.rgbImage)
    }

    @Test func refusesInvalidBuffers() {
        let bytes = [UInt8](repeating: 0, count: 12)
        #expect(throws: MPImageError.invalidDimensions(width: 0, height: 1)) {
            try MPImage(pixels: bytes, width: 0, height: 1, format: .rgb8)
        }
        #expect(throws: MPImageError.rowStrideTooSmall(rowStride: 5, minimum: 6)) {
            try MPImage(pixels: bytes, width: 2, height: 2, format: .rgb8, rowStride: 5)
        }
        #expect(throws: MPImageError.bufferTooSmall(byteCount: 12, required: 13)) {
            try MPImage(pixels: bytes, width: 2, height: 2, format: .rgb8, rowStride: 7)
        }
        #expect(throws: MPImageError.tooLarge(width: 4, height: 3, maxPixelCount: 11)) {
            try MPImage(pixels: bytes, width: 4, height: 3, format: .gray8, limits: DecodeLimits(maxPixelCount: 11))
        }
        #expect(throws: MPImageError.tooLarge(width: Int.max, height: 2, maxPixelCount: 64_000_000)) {
            try MPImage(pixels: bytes, width: Int.max, height: 2, format: .rgb8)
        }
        #expect(throws: MPImageError.sizeOverflow) {
            try MPImage(pixels: bytes, width: 2, height: 3, format: .rgb8, rowStride: Int.max / 2,
                        limits: DecodeLimits(maxPixelCount: .max))
        }
        for orientation in ImageOrientation.allCases where orientation.isMirrored {
            #expect(throws: MPImageError.mirroredOrientationUnsupported(orientation)) {
                try MPImage(pixels: bytes, width: 2, height: 2, format: .rgb8, orientation: orientation)
            }
        }
        #expect(MPImageError.rowStrideTooSmall(rowStride: 5, minimum: 6).description.contains("5"))
    }

    @Test func sizesFollowTheOrientation() throws {
        let stored = try RGBImage(width: 3, height: 2, pixels: [UInt8](repeating: 1, count: 18))
        for orientation in [ImageOrientation.up, .down, .left, .right] {
            let image = try MPImage(rgbImage: stored, orientation: orientation)
            let swapped = orientation == .left || orientation == .right
            #expect(image.width == (swapped ? 2 : 3) && image.height == (swapped ? 3 : 2), "\(orientation)")
            #expect(image.uprightRGBImage().width == image.width && image.uprightRGBImage().height == image.height)
        }
    }

    /// Stored 2×1 [A B]; `.right` means "turn 90° clockwise to show", giving the column A over B;
    /// `.left` gives B over A; `.down` gives [B A].
    @Test func uprightPixelsTurnAsTheOrientationSays() throws {
        let stored = try RGBImage(width: 2, height: 1, pixels: [1, 1, 1, 2, 2, 2])
        #expect(try MPImage(rgbImage: stored, orientation: .right).uprightRGBImage().pixels == [1, 1, 1, 2, 2, 2])
        #expect(try MPImage(rgbImage: stored, orientation: .right).uprightRGBImage().width == 1)
        #expect(try MPImage(rgbImage: stored, orientation: .left).uprightRGBImage().pixels == [2, 2, 2, 1, 1, 1])
        #expect(try MPImage(rgbImage: stored, orientation: .down).uprightRGBImage().pixels == [2, 2, 2, 1, 1, 1])
        #expect(try MPImage(rgbImage: stored, orientation: .up).uprightRGBImage() == stored)
    }

    @Test func fullImageROIFollowsTheTasksConvention() throws {
        let stored = try RGBImage(width: 40, height: 30, pixels: [UInt8](repeating: 0, count: 3600))
        let up = try MPImage(rgbImage: stored).fullImageROI
        #expect(up == RotatedPixelRect(centerX: 20, centerY: 15, width: 40, height: 30, rotation: 0))
        let expectedRotations: [ImageOrientation: Double] = [.right: 3 * .pi / 2, .down: .pi, .left: .pi / 2]
        for (orientation, rotation) in expectedRotations {
            let roi = try MPImage(rgbImage: stored, orientation: orientation).fullImageROI
            #expect(abs(roi.rotation - rotation) < 1e-6, "\(orientation)")
            #expect(roi.centerX == 20 && roi.centerY == 15)
            let swapped = orientation != .down
            #expect(abs(roi.width - (swapped ? 30 : 40)) < 1e-4 && abs(roi.height - (swapped ? 40 : 30)) < 1e-4)
        }
    }

    /// The crop of `.right`'s full-image ROI is the upright image, shifted right by one column by
    /// MediaPipe's corner-to-corner mapping: tensor (i, j) samples stored (j, H − i), while the
    /// upright pixel (i, j) is stored (j, H − 1 − i); column 0 reads the replicated edge.
    @Test func rightOrientationCropIsTheUprightImage() throws {
        var random = SeededGenerator(seed: 31)
        let image = try MPImage(rgbImage: random.image(width: 12, height: 7), orientation: .right)
        let upright = image.uprightRGBImage()
        let crop = try ImageToTensor.crop(image.rgbImage, roi: image.fullImageROI, options: ImageToTensor.Options(
            outputWidth: image.width, outputHeight: image.height, rangeMin: 0, rangeMax: 1, keepAspectRatio: false)).image
        for y in 0..<image.height {
            for x in 0..<image.width {
                let cropped = crop[x, y]!, expected = upright[max(x - 1, 0), y]!
                #expect(cropped == expected, "(\(x), \(y))")
            }
        }
    }

    @Test func decodesFilesAndBakesTheEXIFOrientation() throws {
        var random = SeededGenerator(seed: 12)
        let source = random.image(width: 16, height: 8)
        let png = try PNGCodec.encode(source)
        #expect(try MPImage(data: png).rgbImage == source)
        let path = NSTemporaryDirectory() + "landmarker-mpimage-\(UInt32.random(in: 0...UInt32.max)).png"
        try Data(png).write(to: URL(fileURLWithPath: path))
        #expect(try MPImage(contentsOfFile: path, orientation: .left).rgbImage == source)

        // A JPEG tagged EXIF 6 (rotate 90° clockwise to display) loads upright: the decoded
        // pixels turned exactly as ExifOrientation.rightTop says, with width and height swapped.
        let jpeg = try JPEGCodec.encode(source, quality: 90)
        let tagged = Array(jpeg.prefix(2)) + Self.exifOrientationSegment(6) + jpeg.dropFirst(2)
        let loaded = try MPImage(data: tagged)
        #expect(loaded.rgbImage.width == 8 && loaded.rgbImage.height == 16)
        #expect(loaded.rgbImage == (try JPEGCodec.decode(jpeg)).applyingExifOrientation(.rightTop))
        #expect(loaded.orientation == .up)
        // Mirrored EXIF values are baked into the pixels too, so they load.
        let mirrored = Array(jpeg.prefix(2)) + Self.exifOrientationSegment(2) + jpeg.dropFirst(2)
        #expect(try MPImage(data: mirrored).rgbImage == (try JPEGCodec.decode(jpeg)).applyingExifOrientation(.topRight))
    }

    @Test func reportsDecodeFailures() {
        let error = #expect(throws: MPImageError.self) { try MPImage(data: Array("not an image".utf8)) }
        guard case .decodeFailed(.unknownFormat)? = error else {
            Issue.record("expected decodeFailed(unknownFormat), got \(String(describing: error))")
            return
        }
        let missing = #expect(throws: MPImageError.self) { try MPImage(contentsOfFile: NSTemporaryDirectory() + "landmarker-missing/x.png") }
        guard case .decodeFailed(.fileUnreadable)? = missing else {
            Issue.record("expected decodeFailed(fileUnreadable), got \(String(describing: missing))")
            return
        }
    }

    @Test func exifMappingMatchesUIKit() {
        let expected: [ExifOrientation: ImageOrientation] = [
            .topLeft: .up, .topRight: .upMirrored, .bottomRight: .down, .bottomLeft: .downMirrored,
            .leftTop: .leftMirrored, .rightTop: .right, .rightBottom: .rightMirrored, .leftBottom: .left,
        ]
        for (exif, orientation) in expected { #expect(ImageOrientation(exif: exif) == orientation) }
    }

    /// A big-endian APP1 "Exif" segment whose IFD0 holds only the orientation tag.
    static func exifOrientationSegment(_ value: UInt8) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01,
                             0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, value, 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        return [0xFF, 0xE1, 0x00, UInt8(payload.count + 2)] + payload
    }
}
