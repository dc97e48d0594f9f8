import FuzzSupport
import ImageIO
import MediaPipeTasksVision

/// The starting corpus, built in code at start-up: small images from the
/// project's own encoders plus hand-built variants the encoders never write
/// (PNG palettes, 16-bit and interlaced PNGs, EXIF segments), Y4M streams of
/// every accepted chroma layout, `.task` bundles from `StoredZipWriter`, and
/// raw pixel buffers of every format.
enum Seeds {
    struct Seed {
        let name: String
        let input: [UInt8]
    }

    static func all() throws -> [Seed] {
        var seeds: [Seed] = []
        func add(_ kind: InputKind, _ name: String, _ payload: [UInt8]) {
            seeds.append(Seed(name: "\(kind)-\(name)", input: kind.input(payload)))
        }
        for (name, png) in try pngFiles() {
            add(.png, name, png)
            add(.pngWithFixedCRCs, name, png)
            add(.imageFile, name, png)
        }
        for (name, jpeg) in try jpegFiles() {
            add(.imageFile, name, jpeg)
            add(.jpegMarkers, name, jpeg)
        }
        for (name, tiff) in exifStructures() {
            add(.exifTIFF, name, tiff)
        }
        for (name, stream) in Y4MSeeds.streams() {
            add(.y4mStream, name, stream)
        }
        for (name, bundle) in try taskBundles() {
            add(.taskBundle, name, bundle)
        }
        for (name, raw) in rawPixelBuffers() {
            add(.rawPixels, name, raw)
        }
        return seeds
    }

    /// `count` bytes of a deterministic pattern (a gradient with some texture).
    static func pattern(_ count: Int, step: Int = 37) -> [UInt8] {
        SeedBytes.pattern(count, step: step)
    }

    // MARK: PNG

    private static func pngFiles() throws -> [(String, [UInt8])] {
        let rgb = try PNGCodec.encode(pixels: pattern(7 * 5 * 3), width: 7, height: 5, layout: .rgb8)
        let rgba = try PNGCodec.encode(pixels: pattern(6 * 4 * 4), width: 6, height: 4, layout: .rgba8)
        let gray = try PNGCodec.encode(pixels: pattern(5 * 3), width: 5, height: 3, layout: .gray8)
        // IHDR is the first chunk: 8 signature bytes, then 12 + 13 bytes.
        let afterHeader = 8 + 12 + 13
        let colourChunks = PNGChunkCRC.chunk("gAMA", PNGChunkCRC.bigEndian(51_000))
            + PNGChunkCRC.chunk("cHRM", (0..<8).flatMap { PNGChunkCRC.bigEndian(UInt32(30_000 + 1_000 * $0)) })
            + PNGChunkCRC.chunk("sRGB", [0])
            + PNGChunkCRC.chunk("iCCP", Array("profile".utf8) + [0, 0] + zlibStored(pattern(40)))
        let withColourChunks = Array(rgb[..<afterHeader]) + colourChunks + Array(rgb[afterHeader...])

        // 2-bit palette, 3x2, with transparency for two entries.
        let palette = handBuiltPNG(
            width: 3, height: 2, bitDepth: 2, colourType: 3,
            rows: [[0b0001_1000], [0b1110_0100]],
            chunks: [("PLTE", pattern(4 * 3)), ("tRNS", [0, 128])])
        let rgb16 = handBuiltPNG(width: 2, height: 2, bitDepth: 16, colourType: 2,
                                 rows: [pattern(12), pattern(12, step: 53)])
        let grayAlpha = handBuiltPNG(width: 3, height: 2, bitDepth: 8, colourType: 4,
                                     rows: [pattern(6), pattern(6, step: 91)])
        let gray1 = handBuiltPNG(width: 9, height: 2, bitDepth: 1, colourType: 0,
                                 rows: [[0b1010_1100, 0b1000_0000], [0b0101_0011, 0]])
        // 1x1 Adam7: only the first pass has a pixel.
        let interlaced = handBuiltPNG(width: 1, height: 1, bitDepth: 8, colourType: 2, interlaced: true,
                                      rows: [[200, 100, 50]])
        return [
            ("rgb", rgb), ("rgba", rgba), ("gray", gray), ("colour-chunks", withColourChunks),
            ("palette", palette), ("rgb16", rgb16), ("gray-alpha", grayAlpha), ("gray1", gray1),
            ("interlaced", interlaced),
        ]
    }

    /// A PNG of unfiltered `rows` (packed samples, filter type 0 added here)
    /// in one IDAT of stored deflate blocks, with `chunks` before it.
    private static func handBuiltPNG(
        width: UInt32, height: UInt32, bitDepth: UInt8, colourType: UInt8, interlaced: Bool = false,
        rows: [[UInt8]], chunks: [(String, [UInt8])] = []
    ) -> [UInt8] {
        let header = PNGChunkCRC.bigEndian(width) + PNGChunkCRC.bigEndian(height)
            + [bitDepth, colourType, 0, 0, interlaced ? 1 : 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + PNGChunkCRC.chunk("IHDR", header)
            + chunks.flatMap { PNGChunkCRC.chunk($0.0, $0.1) }
            + PNGChunkCRC.chunk("IDAT", zlibStored(rows.flatMap { [0] + $0 }))
            + PNGChunkCRC.chunk("IEND", [])
    }

    /// A zlib stream (RFC 1950) of one final stored deflate block (RFC 1951);
    /// `data` is under 64 KiB.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        let length = UInt16(data.count)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            + data + PNGChunkCRC.bigEndian(b << 16 | a)
    }

    // MARK: JPEG and EXIF

    private static func jpegFiles() throws -> [(String, [UInt8])] {
        let image = try RGBImage(width: 16, height: 8, pixels: pattern(16 * 8 * 3, step: 7))
        let odd = try RGBImage(width: 9, height: 7, pixels: pattern(9 * 7 * 3, step: 29))
        let jpeg = try JPEGCodec.encode(image, quality: 90)
        let oddJPEG = try JPEGCodec.encode(odd, quality: 40)
        /// `jpeg` with an APP1 "Exif" segment holding `tiff` right after SOI.
        func withExif(_ jpeg: [UInt8], _ tiff: [UInt8]) -> [UInt8] {
            let payload = Array("Exif".utf8) + [0, 0] + tiff
            let length = payload.count + 2
            return Array(jpeg[..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
                + Array(jpeg[2...])
        }
        var files = [("baseline", jpeg), ("baseline-odd", oddJPEG)]
        for (name, tiff) in exifStructures() {
            files.append(("exif-\(name)", withExif(jpeg, tiff)))
        }
        files.append(("exif-odd-rotated", withExif(oddJPEG, tiffStructure(littleEndian: false, entries: [(0x0112, 3, 1, 8)]))))
        return files
    }

    /// TIFF structures holding an orientation tag, in both byte orders, alone
    /// or after other IFD0 entries.
    private static func exifStructures() -> [(String, [UInt8])] {
        let otherEntries: [(UInt16, UInt16, UInt32, UInt32)] = [(0x010F, 2, 4, 0x4142_4300), (0x0110, 2, 4, 0x5859_5A00)]
        return [
            ("little-endian-6", tiffStructure(littleEndian: true, entries: [(0x0112, 3, 1, 6)])),
            ("big-endian-3", tiffStructure(littleEndian: false, entries: [(0x0112, 3, 1, 3)])),
            ("little-endian-after-others-5", tiffStructure(littleEndian: true, entries: otherEntries + [(0x0112, 3, 1, 5)])),
            ("big-endian-after-others-2", tiffStructure(littleEndian: false, entries: otherEntries + [(0x0112, 3, 1, 2)])),
        ]
    }

    /// A TIFF header and IFD0 with `entries` (tag, type, count, value); a SHORT
    /// value of count 1 sits in the first two bytes of the value field.
    private static func tiffStructure(littleEndian: Bool, entries: [(UInt16, UInt16, UInt32, UInt32)]) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] {
            littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let bytes = PNGChunkCRC.bigEndian(value)
            return littleEndian ? bytes.reversed() : bytes
        }
        var tiff = (littleEndian ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, count, value) in entries {
            tiff += u16(tag) + u16(type) + u32(count)
            tiff += type == 3 && count == 1 ? u16(UInt16(value)) + [0, 0] : u32(value)
        }
        return tiff + u32(0)
    }

    // MARK: .task bundles

    private static func taskBundles() throws -> [(String, [UInt8])] {
        func bundle(_ members: [(String, [UInt8])]) throws -> [UInt8] {
            var writer = StoredZipWriter()
            for (name, contents) in members {
                try writer.addEntry(named: name, contents: contents)
            }
            return try writer.finish()
        }
        let pose = LandmarkerBundleKind.poseLandmarker, hand = LandmarkerBundleKind.handLandmarker
        return [
            ("pose", try bundle([(pose.detectorModelName, pattern(40)), (pose.landmarksDetectorModelName, pattern(56, step: 3))])),
            ("hand-with-extra-member", try bundle([
                (hand.detectorModelName, pattern(24)), (hand.landmarksDetectorModelName, pattern(32, step: 5)),
                ("metadata/labels.txt", Array("left\nright\n".utf8)),
            ])),
            ("empty", try bundle([])),
        ]
    }

    // MARK: Raw pixels

    private static func rawPixelBuffers() -> [(String, [UInt8])] {
        var buffers: [(String, [UInt8])] = []
        let orientations: [ImageOrientation] = [.up, .right, .down, .left]
        for (index, format) in PixelFormat.allCases.enumerated() {
            let width = 5, height = 3, rowBytes = width * format.bytesPerPixel
            let packed = RawPixelHeader(format: format, orientation: orientations[index], width: width, height: height,
                                        rowStride: nil, fromArray: index % 2 == 0, uncapped: false)
            buffers.append(("\(format)-packed", packed.encoded(pixels: pattern(rowBytes * height))))
            let strided = RawPixelHeader(format: format, orientation: orientations[(index + 1) % 4], width: width,
                                         height: height, rowStride: rowBytes + 3, fromArray: index % 2 == 1,
                                         uncapped: index == 3)
            // The last row needs only `rowBytes`, not a whole stride.
            buffers.append(("\(format)-strided", strided.encoded(pixels: pattern((rowBytes + 3) * (height - 1) + rowBytes))))
        }
        return buffers
    }
}
