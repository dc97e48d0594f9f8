import Foundation
import Testing
@testable import ImageIO

/// A smooth RGB test pattern (gradients), which JPEG reproduces closely.
func gradientImage(width: Int, height: Int) throws -> RGBImage {
    var pixels = [UInt8]()
    pixels.reserveCapacity(width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            pixels.append(UInt8(x * 255 / max(width - 1, 1)))
            pixels.append(UInt8(y * 255 / max(height - 1, 1)))
            pixels.append(UInt8((x + y) * 255 / max(width + height - 2, 1)))
        }
    }
    return try RGBImage(width: width, height: height, pixels: pixels)
}

@Suite struct JPEGCodecTests {
    @Test(arguments: [(1, 1), (8, 8), (33, 17), (64, 48)])
    func roundTripIsClose(size: (width: Int, height: Int)) throws {
        let original = try gradientImage(width: size.width, height: size.height)
        let encoded = try JPEGCodec.encode(original, quality: 100)
        #expect(ImageFormat.sniff(encoded) == .jpeg)
        let decoded = try JPEGCodec.decode(encoded)
        #expect(decoded.width == size.width)
        #expect(decoded.height == size.height)
        let differences = zip(decoded.pixels, original.pixels).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(differences.max()! <= 6, "max abs difference \(differences.max()!)")
        #expect(mean < 1.5, "mean abs difference \(mean)")
    }

    @Test func decodesThroughTheFormatAgnosticDecoderAndFromAFile() throws {
        let original = try gradientImage(width: 20, height: 10)
        let encoded = try JPEGCodec.encode(original, quality: 90)
        let decoded = try ImageDecoder.decode(encoded)
        #expect(decoded.format == .jpeg)
        #expect(decoded.exifOrientation == nil)
        #expect(decoded.image == (try JPEGCodec.decode(encoded)))

        let path = temporaryFilePath(extension: "dat")
        try FileBytes.writeAll(encoded, path: path)
        #expect(try ImageDecoder.decode(contentsOfFile: path).image == decoded.image)
        #expect(try JPEGCodec.decode(contentsOfFile: path) == decoded.image)
    }

    @Test func truncatedJPEGIsCorruptNotGrayPadded() throws {
        let encoded = try JPEGCodec.encode(try gradientImage(width: 64, height: 64), quality: 90)
        for cut in [3, 20, 200, encoded.count / 2, encoded.count - 2] {
            let error = #expect(throws: ImageIOError.self) { try JPEGCodec.decode(Array(encoded.prefix(cut))) }
            guard case .corruptData(.jpeg, let message)? = error else {
                Issue.record("cut at \(cut): expected corruptData, got \(String(describing: error))")
                continue
            }
            #expect(!message.isEmpty)
        }
    }

    @Test func pixelCapIsCheckedFromTheHeader() throws {
        let encoded = try JPEGCodec.encode(try gradientImage(width: 40, height: 30), quality: 80)
        #expect(throws: ImageIOError.tooLarge(width: 40, height: 30, maxPixelCount: 1_199)) {
            try JPEGCodec.decode(encoded, limits: DecodeLimits(maxPixelCount: 1_199))
        }
        #expect(throws: ImageIOError.encodedDataTooLarge(byteCount: encoded.count, limit: 10)) {
            try JPEGCodec.decode(encoded, limits: DecodeLimits(maxEncodedByteCount: 10))
        }
    }

    @Test func largestDeclaredSizeIsRefusedFromTheHeader() throws {
        // A valid 16x8 JPEG whose frame header (SOF0: FF C0, length, precision, then height
        // and width, big-endian) is patched to the largest size libjpeg accepts, 65500x65500
        // (JPEG_MAX_DIMENSION): 12.9 GB of RGB. The default cap refuses it from the header,
        // before the pixel buffer is allocated or TurboJPEG decodes a single scan.
        var jpeg = try JPEGCodec.encode(try gradientImage(width: 16, height: 8), quality: 80)
        let frameHeader = try #require(jpeg.indices.dropLast().first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        #expect(Array(jpeg[(frameHeader + 5)..<(frameHeader + 9)]) == [0, 8, 0, 16])
        jpeg.replaceSubrange((frameHeader + 5)..<(frameHeader + 9), with: [0xFF, 0xDC, 0xFF, 0xDC])
        #expect(throws: ImageIOError.tooLarge(width: 65500, height: 65500, maxPixelCount: 64_000_000)) {
            try JPEGCodec.decode(jpeg)
        }
        #expect(throws: ImageIOError.tooLarge(width: 65500, height: 65500, maxPixelCount: 64_000_000)) {
            try ImageDecoder.decode(jpeg)
        }
    }

    @Test func encoderValidatesItsArguments() throws {
        let image = try gradientImage(width: 4, height: 4)
        #expect(throws: ImageIOError.self) { try JPEGCodec.encode(image, quality: 0) }
        #expect(throws: ImageIOError.self) { try JPEGCodec.encode(image, quality: 101) }
    }
}
