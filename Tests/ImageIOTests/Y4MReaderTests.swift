import Foundation
import Testing
@testable import ImageIO

/// Builds Y4M byte streams in memory and reads them back from temporary files.
@Suite struct Y4MReaderTests {
    /// BT.601 limited-range Y'CbCr of saturated colours, from Y = 16 + 219·(0.299R + 0.587G + 0.114B),
    /// Cb = 128 + 112·(B − Y′)/0.886, Cr = 128 + 112·(R − Y′)/0.701 (Y′ in [0, 1]), rounded.
    private static let white: (y: UInt8, cb: UInt8, cr: UInt8) = (235, 128, 128)
    private static let black: (y: UInt8, cb: UInt8, cr: UInt8) = (16, 128, 128)
    private static let red: (y: UInt8, cb: UInt8, cr: UInt8) = (81, 90, 240)
    private static let green: (y: UInt8, cb: UInt8, cr: UInt8) = (145, 54, 34)
    private static let blue: (y: UInt8, cb: UInt8, cr: UInt8) = (41, 240, 110)

    private func writeTemporary(_ bytes: [UInt8]) throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("y4m-\(UUID().uuidString).y4m")
        try Data(bytes).write(to: url)
        return url.path
    }

    private func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A 4:2:0 frame of one colour, `width × height`.
    private func solidFrame420(
        _ colour: (y: UInt8, cb: UInt8, cr: UInt8), width: Int, height: Int, frameLine: String = "FRAME"
    ) -> [UInt8] {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        return Array((frameLine + "\n").utf8)
            + [UInt8](repeating: colour.y, count: width * height)
            + [UInt8](repeating: colour.cb, count: chroma)
            + [UInt8](repeating: colour.cr, count: chroma)
    }

    private func expectColour(
        _ image: RGBImage, x: Int, y: Int, _ expected: (Int, Int, Int), tolerance: Int = 2,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let pixel = image[x, y] else {
            Issue.record("pixel (\(x), \(y)) outside \(image.width)x\(image.height)", sourceLocation: sourceLocation)
            return
        }
        let actual = (Int(pixel.red), Int(pixel.green), Int(pixel.blue))
        #expect(
            abs(actual.0 - expected.0) <= tolerance && abs(actual.1 - expected.1) <= tolerance
                && abs(actual.2 - expected.2) <= tolerance,
            "pixel (\(x), \(y)) is \(actual), expected \(expected) ± \(tolerance)",
            sourceLocation: sourceLocation)
    }

    private func readerError(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws -> Y4MError? {
        let path = try writeTemporary(bytes)
        defer { remove(path) }
        do {
            _ = try Y4MReader(path: path, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsSuccessiveSolidFramesThenEndsCleanly() throws {
        let colours = [Self.white, Self.black, Self.red, Self.green, Self.blue]
        let expected = [(255, 255, 255), (0, 0, 0), (255, 0, 0), (0, 255, 0), (0, 0, 255)]
        var bytes = Array("YUV4MPEG2 W4 H2 F30000:1001 Ip A1:1 C420jpeg XYSCSS=420JPEG\n".utf8)
        for colour in colours {
            bytes += solidFrame420(colour, width: 4, height: 2)
        }
        let path = try writeTemporary(bytes)
        defer { remove(path) }

        let reader = try Y4MReader(path: path)
        #expect(reader.width == 4)
        #expect(reader.height == 2)
        #expect(abs(reader.framesPerSecond - 30000.0 / 1001.0) < 1e-9)
        #expect(reader.chromaSampling == .yuv420)
        for (index, colour) in expected.enumerated() {
            let frame = try #require(try reader.nextFrame(), "frame \(index) missing")
            #expect(frame.width == 4 && frame.height == 2)
            for y in 0..<2 {
                for x in 0..<4 {
                    expectColour(frame, x: x, y: y, colour)
                }
            }
        }
        #expect(reader.framesRead == 5)
        #expect(try reader.nextFrame() == nil)
        #expect(try reader.nextFrame() == nil)
    }

    @Test func chromaIsUpsampledLinearlyIncludingOddSizes() throws {
        // 3×3 luma, 2×2 chroma: one colour per chroma sample, each pixel's luma that of the
        // sample nearest to it.
        let quadrants = [Self.red, Self.blue, Self.green, Self.white]  // (0,0), (1,0), (0,1), (1,1)
        var luma = [UInt8](repeating: 0, count: 9)
        for y in 0..<3 {
            for x in 0..<3 {
                luma[y * 3 + x] = quadrants[(y / 2) * 2 + x / 2].y
            }
        }
        let planes = luma + quadrants.map(\.cb) + quadrants.map(\.cr)
        let bytes = Array("YUV4MPEG2 W3 H3 F25:1 C420mpeg2\nFRAME\n".utf8) + planes
        let path = try writeTemporary(bytes)
        defer { remove(path) }

        let frame = try #require(try Y4MReader(path: path).nextFrame())
        // The frame is the library conversion of its planes: BT.601 limited, linear chroma.
        let converted = try planes.withUnsafeBytes {
            try YUVConversion.rgbImage(buffer: $0, format: .i420, width: 3, height: 3, chromaUpsampling: .linear)
        }
        #expect(frame == converted)
        // The first row takes its chroma samples as is (the last column of an odd width too)…
        expectColour(frame, x: 0, y: 0, (255, 0, 0))
        expectColour(frame, x: 2, y: 0, (0, 0, 255))
        // …below, chroma rows are blended ¼ : ¾ (the last row of an odd height lies a quarter
        // of the way from the second chroma row back to the first), so red shows in green's row.
        let bottomLeft = try #require(frame[0, 2])
        #expect(bottomLeft.green > 180 && bottomLeft.red > 40, "bottom-left pixel \(bottomLeft)")
        // The centre pixel mixes all four samples: far from pure red, its own nearest sample.
        let centre = try #require(frame[1, 1])
        #expect(centre.red < 200 && centre.blue > 30 && centre.green > 30, "centre pixel \(centre)")
    }

    @Test func reads444AndMonoStreams() throws {
        let colours = [Self.red, Self.green, Self.blue, Self.white]
        let full = Array("YUV4MPEG2 W2 H2 C444\nFRAME\n".utf8)
            + colours.map(\.y) + colours.map(\.cb) + colours.map(\.cr)
        let fullPath = try writeTemporary(full)
        defer { remove(fullPath) }
        let fullReader = try Y4MReader(path: fullPath)
        #expect(fullReader.chromaSampling == .yuv444)
        let fullFrame = try #require(try fullReader.nextFrame())
        expectColour(fullFrame, x: 0, y: 0, (255, 0, 0))
        expectColour(fullFrame, x: 1, y: 0, (0, 255, 0))
        expectColour(fullFrame, x: 0, y: 1, (0, 0, 255))
        expectColour(fullFrame, x: 1, y: 1, (255, 255, 255))

        // Mid grey: Y = 16 + 219 · 0.5 ≈ 126 → 128.
        let mono = Array("YUV4MPEG2 W2 H1 Cmono\nFRAME\n".utf8) + [16, 126]
        let monoPath = try writeTemporary(mono)
        defer { remove(monoPath) }
        let monoReader = try Y4MReader(path: monoPath)
        #expect(monoReader.chromaSampling == .mono)
        let monoFrame = try #require(try monoReader.nextFrame())
        expectColour(monoFrame, x: 0, y: 0, (0, 0, 0))
        expectColour(monoFrame, x: 1, y: 0, (128, 128, 128))
    }

    @Test func framesLargerThanTheReadBufferAreReadExactly() throws {
        // 200×150 4:2:0 frames are 45,000 bytes: several frames straddle the 64 KiB buffer.
        let colours = [Self.red, Self.green, Self.blue, Self.black, Self.white]
        let expected = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (0, 0, 0), (255, 255, 255)]
        var bytes = Array("YUV4MPEG2 W200 H150 F24:1 C420\n".utf8)
        for (index, colour) in colours.enumerated() {
            bytes += solidFrame420(colour, width: 200, height: 150, frameLine: index == 2 ? "FRAME Ixyz" : "FRAME")
        }
        let path = try writeTemporary(bytes)
        defer { remove(path) }

        let reader = try Y4MReader(path: path)
        #expect(reader.framesPerSecond == 24)
        for (index, colour) in expected.enumerated() {
            let frame = try #require(try reader.nextFrame(), "frame \(index) missing")
            expectColour(frame, x: 0, y: 0, colour)
            expectColour(frame, x: 199, y: 149, colour)
            expectColour(frame, x: 101, y: 77, colour)
        }
        #expect(try reader.nextFrame() == nil)
    }

    @Test func missingOrUnknownFrameRateIsTheDefault() throws {
        for header in ["YUV4MPEG2 W2 H2\n", "YUV4MPEG2 W2 H2 F0:0\n"] {
            let path = try writeTemporary(Array(header.utf8))
            defer { remove(path) }
            let reader = try Y4MReader(path: path)
            #expect(reader.framesPerSecond == Y4MReader.defaultFramesPerSecond, "\(header)")
            #expect(try reader.nextFrame() == nil, "a stream with no frames ends cleanly")
        }
    }

    @Test func truncatedFrameIsATypedErrorAndStaysOne() throws {
        let full = solidFrame420(Self.white, width: 4, height: 4)
        let bytes = Array("YUV4MPEG2 W4 H4 F25:1\n".utf8) + full + full.dropLast(5)
        let path = try writeTemporary(bytes)
        defer { remove(path) }

        let reader = try Y4MReader(path: path)
        #expect(try reader.nextFrame() != nil)
        let expected = Y4MError.truncatedFrame(frameIndex: 1, expectedBytes: 24, receivedBytes: 19)
        #expect(throws: expected) { try reader.nextFrame() }
        #expect(throws: expected) { try reader.nextFrame() }
    }

    @Test func streamEndingInsideAFrameLineIsTruncated() throws {
        let path = try writeTemporary(Array("YUV4MPEG2 W4 H4\nFRA".utf8))
        defer { remove(path) }
        let reader = try Y4MReader(path: path)
        #expect(throws: Y4MError.truncatedFrame(frameIndex: 0, expectedBytes: 24, receivedBytes: 0)) {
            try reader.nextFrame()
        }
    }

    @Test func badFrameLineIsRejected() throws {
        let path = try writeTemporary(Array("YUV4MPEG2 W1 H1\nFRAMES\n".utf8) + [16, 128, 128])
        defer { remove(path) }
        let reader = try Y4MReader(path: path)
        #expect(throws: Y4MError.malformedFrameHeader(frameIndex: 0)) { try reader.nextFrame() }
    }

    @Test(arguments: [
        ("", Y4MError.notY4M),
        ("YUV4MPEG3 W2 H2\n", Y4MError.notY4M),
        ("YUV4MPEG2W2 H2\n", Y4MError.notY4M),
        ("\u{89}PNG\r\n", Y4MError.notY4M),
        ("YUV4MPEG2 W2 H2", Y4MError.malformedHeader("the stream ends inside the header line")),
        ("YUV4MPEG2 H2\n", Y4MError.malformedHeader("missing width parameter W")),
        ("YUV4MPEG2 W2\n", Y4MError.malformedHeader("missing height parameter H")),
        ("YUV4MPEG2 W0 H2\n", Y4MError.malformedHeader("W0 is not a positive integer")),
        ("YUV4MPEG2 W-2 H2\n", Y4MError.malformedHeader("W-2 is not a positive integer")),
        ("YUV4MPEG2 W2 H99999999999999999999\n",
         Y4MError.malformedHeader("H99999999999999999999 is not a positive integer")),
        ("YUV4MPEG2 W2 H2 F25\n", Y4MError.malformedHeader("frame rate F25 is not of the form num:den")),
        ("YUV4MPEG2 W2 H2 F25:0\n",
         Y4MError.malformedHeader("frame rate F25:0 must have a positive numerator and denominator")),
    ])
    func badHeadersAreRejected(header: String, expected: Y4MError) throws {
        #expect(try readerError(Array(header.utf8)) == expected)
    }

    @Test func headerTextInMessagesIsShortAndPrintable() throws {
        // A frame rate of 100 bytes of binary data (control characters, an escape sequence, bytes
        // that are not UTF-8), as mutated files carry: the message quotes its first 32 bytes,
        // escaped, and its length, not 100 raw bytes.
        let binary: [UInt8] = (0..<100).map { [0x01, 0x1B, 0x5B, 0xFF, 0x33][$0 % 5] }
        let expectedText = (0..<32).map { ["\\x01", "\\x1B", "[", "\\xFF", "3"][$0 % 5] }.joined()
        let header = Array("YUV4MPEG2 W2 H2 F".utf8) + binary + [0x0A]
        let error = try #require(try readerError(header))
        #expect(error == .malformedHeader("frame rate F\(expectedText)... (100 bytes) is not of the form num:den"))
        #expect(error.description.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }, "\(error)")

        let colourSpace = Array("YUV4MPEG2 W2 H2 C420\t".utf8) + [0x0A]
        #expect(try readerError(colourSpace) == .unsupportedColourSpace("420\\x09"))
        let width = Array("YUV4MPEG2 W".utf8) + [0xC3, 0xA9] + Array(" H2\n".utf8)
        #expect(try readerError(width) == .malformedHeader("W\\xC3\\xA9 is not a positive integer"))
    }

    @Test func overlongHeaderLineIsRejected() throws {
        let header = "YUV4MPEG2 W2 H2 X" + String(repeating: "a", count: 10_000) + "\n"
        #expect(try readerError(Array(header.utf8)) == .headerTooLong(limit: Y4MReader.maxHeaderLineLength))
    }

    @Test(arguments: ["422", "411", "444alpha", "420p10", "444p16", ""])
    func unsupportedColourSpacesAreRejected(name: String) throws {
        let header = "YUV4MPEG2 W2 H2 F25:1 C\(name)\n"
        #expect(try readerError(Array(header.utf8)) == .unsupportedColourSpace(name))
    }

    @Test func absurdSizesAreRejectedBeforeAllocating() throws {
        let huge = "YUV4MPEG2 W9999999999 H9999999999 C420jpeg\n"
        #expect(try readerError(Array(huge.utf8))
            == .tooLarge(width: 9_999_999_999, height: 9_999_999_999, maxPixelCount: 64_000_000))
        // 8e18 pixels: the product fits in Int, so only the cap refuses it (a frame buffer of
        // 1.2e19 bytes could not be allocated).
        let largeButNotOverflowing = "YUV4MPEG2 W4000000000 H2000000000 Cmono\n"
        #expect(try readerError(Array(largeButNotOverflowing.utf8))
            == .tooLarge(width: 4_000_000_000, height: 2_000_000_000, maxPixelCount: 64_000_000))
        let small = DecodeLimits(maxPixelCount: 100)
        #expect(try readerError(Array("YUV4MPEG2 W11 H10\n".utf8), limits: small)
            == .tooLarge(width: 11, height: 10, maxPixelCount: 100))
        #expect(try readerError(Array("YUV4MPEG2 W10 H10\n".utf8), limits: small) == nil)
    }

    @Test func missingFileIsATypedError() throws {
        let path = "/nonexistent-\(UUID().uuidString)/video.y4m"
        #expect(throws: Y4MError.cannotOpen(path: path, reason: "No such file or directory")) {
            try Y4MReader(path: path)
        }
    }
}
