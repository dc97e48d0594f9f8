import Foundation
import Testing
@testable import ImageIO

@Suite struct ImageDecoderTests {
    @Test func sniffsByMagicBytesOnly() {
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00]) == .png)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF]) == .jpeg)
        #expect(ImageFormat.sniff([0xFF, 0xD8]) == nil)
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A]) == nil)
        #expect(ImageFormat.sniff(Array("GIF89a".utf8)) == nil)
        #expect(ImageFormat.sniff([]) == nil)
    }

    @Test func sniffingIgnoresTheFileName() throws {
        // A PNG saved under a .jpg name is still decoded as PNG.
        let path = temporaryFilePath(extension: "jpg")
        try PNGCodec.write(pixels: [1, 2, 3], width: 1, height: 1, layout: .rgb8, toFile: path)
        let decoded = try ImageDecoder.decode(contentsOfFile: path)
        #expect(decoded.format == .png)
        #expect(decoded.image.pixels == [1, 2, 3])
    }

    @Test func reportsEachErrorWithItsOwnCase() throws {
        #expect(throws: ImageIOError.emptyData) { try ImageDecoder.decode([]) }
        #expect(throws: ImageIOError.emptyData) { try PNGCodec.decode([]) }
        #expect(throws: ImageIOError.emptyData) { try JPEGCodec.decode([]) }
        let gif = Array("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8)
        #expect(throws: ImageIOError.unknownFormat(leadingBytes: Array(gif.prefix(8)))) {
            try ImageDecoder.decode(gif)
        }
        let missing = NSTemporaryDirectory() + "landmarker-no-such-dir/none.png"
        let readError = #expect(throws: ImageIOError.self) { try ImageDecoder.decode(contentsOfFile: missing) }
        guard case .fileUnreadable(missing, let reason)? = readError else {
            Issue.record("expected fileUnreadable, got \(String(describing: readError))")
            return
        }
        #expect(reason.contains("No such file"))
        let directoryError = #expect(throws: ImageIOError.self) { try ImageDecoder.decode(contentsOfFile: "/tmp") }
        #expect(directoryError == .fileUnreadable(path: "/tmp", reason: "not a regular file"))
        let writeError = #expect(throws: ImageIOError.self) {
            try PNGCodec.write(pixels: [0], width: 1, height: 1, layout: .gray8, toFile: missing)
        }
        guard case .fileUnwritable(missing, _)? = writeError else {
            Issue.record("expected fileUnwritable, got \(String(describing: writeError))")
            return
        }
        // Oversized files are refused before being read.
        let path = temporaryFilePath(extension: "png")
        try PNGCodec.write(pixels: [UInt8](repeating: 0, count: 300), width: 10, height: 10, layout: .rgb8, toFile: path)
        let size = try PNGCodec.encode(pixels: [UInt8](repeating: 0, count: 300), width: 10, height: 10, layout: .rgb8).count
        #expect(throws: ImageIOError.encodedDataTooLarge(byteCount: size, limit: 16)) {
            try ImageDecoder.decode(contentsOfFile: path, limits: DecodeLimits(maxEncodedByteCount: 16))
        }
    }

    @Test func errorDescriptionsNameTheProblem() {
        #expect(ImageIOError.unknownFormat(leadingBytes: [0x47, 0x0A]).description.contains("47 0A"))
        #expect(ImageIOError.tooLarge(width: 9, height: 9, maxPixelCount: 80).description.contains("9x9"))
        #expect(ImageIOError.corruptData(format: .png, message: "IDAT: CRC error").description.contains("IDAT: CRC error"))
    }

    @Test func rgbImageValidatesItsBuffer() {
        #expect(throws: ImageIOError.self) { try RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 0, count: 11)) }
        #expect(throws: ImageIOError.self) { try RGBImage(width: 0, height: 2, pixels: []) }
        #expect(throws: ImageIOError.self) { try RGBImage(width: Int.max, height: 2, pixels: []) }
        let image = try? RGBImage(width: 1, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        #expect(image?[0, 1]?.red == 4)
        #expect(image?[1, 0] == nil)
    }
}
