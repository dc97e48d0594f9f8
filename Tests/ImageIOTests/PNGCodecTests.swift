import Foundation
import TestSupport
import Testing
@testable import ImageIO

@Suite struct PNGCodecTests {
    private func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test(arguments: [(1, 1), (3, 2), (17, 5), (64, 33)])
    func rgbRoundTripIsExact(size: (width: Int, height: Int)) throws {
        let pixels = randomBytes(size.width * size.height * 3, seed: UInt64(size.width * 1000 + size.height))
        let encoded = try PNGCodec.encode(pixels: pixels, width: size.width, height: size.height, layout: .rgb8)
        #expect(ImageFormat.sniff(encoded) == .png)
        let decoded = try PNGCodec.decode(encoded)
        #expect(decoded.width == size.width)
        #expect(decoded.height == size.height)
        #expect(decoded.pixels == pixels)
    }

    @Test func rgbaIsDecodedByDroppingAlphaNotCompositing() throws {
        // Pixels with alpha 0, 1, 128 and 255 whose colors must survive unchanged.
        let rgba: [UInt8] = [
            200, 100, 50, 0,    10, 20, 30, 1,
            255, 0, 128, 128,   7, 8, 9, 255,
        ]
        let encoded = try PNGCodec.encode(pixels: rgba, width: 2, height: 2, layout: .rgba8)
        let decoded = try PNGCodec.decode(encoded)
        #expect(decoded.pixels == [200, 100, 50, 10, 20, 30, 255, 0, 128, 7, 8, 9])
    }

    @Test func grayIsReplicatedToRGB() throws {
        let gray: [UInt8] = [0, 1, 127, 128, 254, 255]
        let encoded = try PNGCodec.encode(pixels: gray, width: 3, height: 2, layout: .gray8)
        let decoded = try PNGCodec.decode(encoded)
        #expect(decoded.pixels == gray.flatMap { [$0, $0, $0] })
    }

    @Test func paletteWithTransparencyExpandsAndDropsAlpha() throws {
        let png = HandBuiltPNG(
            width: 3, height: 1, bitDepth: 8, colorType: 3,
            scanlines: HandBuiltPNG.unfiltered(rows: [[2, 0, 1]]),
            extraChunks: [("PLTE", [10, 20, 30, 40, 50, 60, 70, 80, 90]), ("tRNS", [0, 255, 17])])
        let decoded = try PNGCodec.decode(png.bytes)
        #expect(decoded.pixels == [70, 80, 90, 10, 20, 30, 40, 50, 60])
    }

    /// ffmpeg writes gAMA 0.51 and cHRM into every frame it extracts; libpng's simplified API
    /// would convert such samples to sRGB. They must come back exactly as stored.
    @Test func colorManagementChunksDoNotChangeTheSamples() throws {
        let samples: [UInt8] = [0, 1, 17, 64, 127, 128, 200, 254, 255]
        let gamma051 = HandBuiltPNG.bigEndian(50994)
        let chromaticities = [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000].flatMap {
            HandBuiltPNG.bigEndian(UInt32($0))
        }
        let variants: [[(type: String, data: [UInt8])]] = [
            [],
            [("gAMA", gamma051)],
            [("cHRM", chromaticities), ("gAMA", gamma051)],
            [("gAMA", HandBuiltPNG.bigEndian(100_000))],
            [("sRGB", [0])],
        ]
        for chunks in variants {
            let png = HandBuiltPNG(width: 3, height: 1, bitDepth: 8, colorType: 2,
                                   scanlines: HandBuiltPNG.unfiltered(rows: [samples]), extraChunks: chunks)
            let decoded = try PNGCodec.decode(png.bytes)
            #expect(decoded.pixels == samples, "chunks \(chunks.map(\.type))")
        }
    }

    @Test func strippingColorChunksKeepsEveryOtherByte() throws {
        let plain = HandBuiltPNG(width: 1, height: 1, bitDepth: 8, colorType: 2,
                                 scanlines: HandBuiltPNG.unfiltered(rows: [[1, 2, 3]]))
        var withGamma = plain
        withGamma.extraChunks = [("gAMA", HandBuiltPNG.bigEndian(50994))]
        #expect(PNGColorChunks.stripped(withGamma.bytes) == plain.bytes)
        #expect(PNGColorChunks.stripped(plain.bytes) == plain.bytes)
        // A chunk length running past the end stops the walk; the bytes go to libpng as they are.
        let truncated = Array(withGamma.bytes.prefix(40))
        #expect(PNGColorChunks.stripped(truncated) == truncated)
        #expect(throws: ImageIOError.self) { try PNGCodec.decode(truncated) }
    }

    @Test func sixteenBitRGBIsScaledToEightBits() throws {
        // 16-bit samples v*257 are exactly v in 8 bits.
        let samples: [UInt8] = [0, 1, 127, 200, 254, 255]
        let row = samples.flatMap { value -> [UInt8] in
            let wide = UInt16(value) * 257
            return [UInt8(wide >> 8), UInt8(wide & 0xFF)]
        }
        let png = HandBuiltPNG(width: 2, height: 1, bitDepth: 16, colorType: 2,
                               scanlines: HandBuiltPNG.unfiltered(rows: [row]))
        let decoded = try PNGCodec.decode(png.bytes)
        #expect(decoded.pixels == samples)
    }

    @Test func grayAlphaAndOneBitGrayAreConverted() throws {
        let grayAlpha = HandBuiltPNG(width: 2, height: 1, bitDepth: 8, colorType: 4,
                                     scanlines: HandBuiltPNG.unfiltered(rows: [[90, 0, 200, 255]]))
        #expect(try PNGCodec.decode(grayAlpha.bytes).pixels == [90, 90, 90, 200, 200, 200])

        // 1-bit gray, 3 pixels 1, 0, 1 packed MSB first: 0b1010_0000.
        let bilevel = HandBuiltPNG(width: 3, height: 1, bitDepth: 1, colorType: 0,
                                   scanlines: HandBuiltPNG.unfiltered(rows: [[0b1010_0000]]))
        #expect(try PNGCodec.decode(bilevel.bytes).pixels == [255, 255, 255, 0, 0, 0, 255, 255, 255])
    }

    @Test func sixteenBitGrayAlphaIsConverted() throws {
        let row: [UInt8] = [0x80, 0x80, 0xFF, 0xFF]   // gray 0x8080 = 128*257, alpha opaque
        let png = HandBuiltPNG(width: 1, height: 1, bitDepth: 16, colorType: 4,
                               scanlines: HandBuiltPNG.unfiltered(rows: [row]))
        #expect(try PNGCodec.decode(png.bytes).pixels == [128, 128, 128])
    }

    @Test func writesAndReadsAFile() throws {
        let path = temporaryFilePath(extension: "png")
        let pixels = randomBytes(5 * 4 * 3, seed: 7)
        try PNGCodec.write(pixels: pixels, width: 5, height: 4, layout: .rgb8, toFile: path)
        let decoded = try PNGCodec.decode(contentsOfFile: path)
        #expect(decoded.pixels == pixels)
        let viaDecoder = try ImageDecoder.decode(contentsOfFile: path)
        #expect(viaDecoder.format == .png)
        #expect(viaDecoder.exifOrientation == nil)
        #expect(viaDecoder.image == decoded)
    }

    @Test func encoderRejectsMismatchedBuffers() {
        #expect(throws: ImageIOError.self) {
            try PNGCodec.encode(pixels: [1, 2, 3], width: 2, height: 1, layout: .rgb8)
        }
        #expect(throws: ImageIOError.self) {
            try PNGCodec.encode(pixels: [], width: 0, height: 1, layout: .gray8)
        }
        #expect(throws: ImageIOError.self) {
            try PNGCodec.encode(pixels: [1, 2, 3, 4], width: 1, height: 1, layout: .rgb8)
        }
    }

    @Test func truncatedAndCorruptPNGsThrowCorruptData() throws {
        let encoded = try PNGCodec.encode(pixels: randomBytes(20 * 20 * 3, seed: 3), width: 20, height: 20, layout: .rgb8)
        for cut in [9, 20, 33, 50, encoded.count - 13] {
            let error = #expect(throws: ImageIOError.self) { try PNGCodec.decode(Array(encoded.prefix(cut))) }
            guard case .corruptData(.png, let message)? = error else {
                Issue.record("cut at \(cut): expected corruptData, got \(String(describing: error))")
                continue
            }
            #expect(!message.isEmpty)
        }
        // A damaged IHDR CRC.
        var damaged = encoded
        damaged[29] ^= 0xFF
        #expect(throws: ImageIOError.self) { try PNGCodec.decode(damaged) }
    }

    @Test func pixelCapIsCheckedBeforeDecoding() throws {
        let encoded = try PNGCodec.encode(pixels: [UInt8](repeating: 9, count: 100 * 100 * 3), width: 100, height: 100, layout: .rgb8)
        #expect(throws: ImageIOError.tooLarge(width: 100, height: 100, maxPixelCount: 9_999)) {
            try PNGCodec.decode(encoded, limits: DecodeLimits(maxPixelCount: 9_999))
        }
        #expect(try PNGCodec.decode(encoded, limits: DecodeLimits(maxPixelCount: 10_000)).width == 100)
        // A header claiming 100000 x 100000 pixels (within libpng's own limits) is refused
        // from the header, before any pixel buffer is allocated.
        let huge = HandBuiltPNG(width: 100_000, height: 100_000, bitDepth: 8, colorType: 2, scanlines: [0])
        #expect(throws: ImageIOError.tooLarge(width: 100_000, height: 100_000, maxPixelCount: 64_000_000)) {
            try PNGCodec.decode(huge.bytes)
        }
        // libpng's own default limit is 1,000,000 pixels a side: 3 TB of RGB, which no
        // allocation could survive, so a pass here shows the cap comes first.
        let largest = HandBuiltPNG(width: 1_000_000, height: 1_000_000, bitDepth: 8, colorType: 2, scanlines: [0])
        #expect(throws: ImageIOError.tooLarge(width: 1_000_000, height: 1_000_000, maxPixelCount: 64_000_000)) {
            try PNGCodec.decode(largest.bytes)
        }
    }

    @Test func zeroDimensionsAreRefused() throws {
        #expect(throws: ImageIOError.zeroDimension(width: 0, height: 5)) {
            try DecodeLimits().check(width: 0, height: 5)
        }
        let zeroWide = HandBuiltPNG(width: 0, height: 1, bitDepth: 8, colorType: 2, scanlines: [0])
        #expect(throws: ImageIOError.self) { try PNGCodec.decode(zeroWide.bytes) }
    }
}
