import TestSupport
import Testing
@testable import ImageIO

/// Builds APP1 "Exif" segments around a TIFF IFD0 holding the given entries.
enum ExifBuilder {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: UInt16
    }

    static func tiff(littleEndian: Bool, entries: [Entry]) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] {
            littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let bytes = [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        var out: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        out += u16(42) + u32(8) + u16(UInt16(entries.count))
        for entry in entries {
            out += u16(entry.tag) + u16(entry.type) + u32(entry.count) + u16(entry.value) + [0, 0]
        }
        return out + u32(0)
    }

    static func app1(payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static func exifSegment(orientation: UInt16, littleEndian: Bool) -> [UInt8] {
        let entries = [
            Entry(tag: 0x010F, type: 2, count: 4, value: 0),            // Make, ignored
            Entry(tag: 0x0112, type: 3, count: 1, value: orientation),  // Orientation
        ]
        return app1(payload: Array("Exif".utf8) + [0, 0] + tiff(littleEndian: littleEndian, entries: entries))
    }

    /// Inserts `segment` right after the SOI marker of a JPEG stream.
    static func inserting(_ segment: [UInt8], intoJPEG jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segment + jpeg.dropFirst(2)
    }
}

@Suite struct ExifOrientationTests {
    private let soi: [UInt8] = [0xFF, 0xD8]
    private let eoi: [UInt8] = [0xFF, 0xD9]

    @Test(arguments: 1...8, [true, false])
    func readsEveryOrientationInBothByteOrders(value: Int, littleEndian: Bool) {
        let bytes = soi + ExifBuilder.exifSegment(orientation: UInt16(value), littleEndian: littleEndian) + eoi
        #expect(ExifOrientation.fromJPEG(bytes)?.rawValue == UInt16(value))
    }

    @Test func findsTheSegmentAfterOtherSegmentsInARealJPEG() throws {
        // TurboJPEG writes an APP0 JFIF segment first; the Exif APP1 goes after it here.
        let jpeg = try JPEGCodec.encode(try gradientImage(width: 8, height: 8), quality: 50)
        #expect(ExifOrientation.fromJPEG(jpeg) == nil)
        let app0End = 2 + 2 + Int(jpeg[4]) << 8 + Int(jpeg[5])
        let withExif = Array(jpeg.prefix(app0End)) + ExifBuilder.exifSegment(orientation: 6, littleEndian: false)
            + jpeg.dropFirst(app0End)
        #expect(ExifOrientation.fromJPEG(withExif) == .rightTop)
        // The pixels are unaffected by the metadata.
        #expect(try JPEGCodec.decode(withExif) == (try JPEGCodec.decode(jpeg)))
        #expect(try ImageDecoder.decode(withExif).exifOrientation == .rightTop)
    }

    @Test func skipsFillBytesAndNonExifAPP1() {
        let xmp = ExifBuilder.app1(payload: Array("http://ns.adobe.com/xap/1.0/\0<x/>".utf8))
        let bytes = soi + [0xFF, 0xFF] + xmp + [0xFF] + ExifBuilder.exifSegment(orientation: 3, littleEndian: true) + eoi
        #expect(ExifOrientation.fromJPEG(bytes) == .bottomRight)
    }

    @Test func rejectsMalformedOrOutOfRangeData() {
        let valid = ExifBuilder.exifSegment(orientation: 8, littleEndian: true)
        #expect(ExifOrientation.fromJPEG(soi + valid + eoi) == .leftBottom)
        // Out-of-range values.
        for value: UInt16 in [0, 9, 0xFFFF] {
            #expect(ExifOrientation.fromJPEG(soi + ExifBuilder.exifSegment(orientation: value, littleEndian: true)) == nil)
        }
        // Wrong type (LONG) or count for the orientation tag.
        let wrongType = ExifBuilder.app1(payload: Array("Exif".utf8) + [0, 0] + ExifBuilder.tiff(
            littleEndian: true, entries: [.init(tag: 0x0112, type: 4, count: 1, value: 6)]))
        #expect(ExifOrientation.fromJPEG(soi + wrongType) == nil)
        let wrongCount = ExifBuilder.app1(payload: Array("Exif".utf8) + [0, 0] + ExifBuilder.tiff(
            littleEndian: false, entries: [.init(tag: 0x0112, type: 3, count: 2, value: 6)]))
        #expect(ExifOrientation.fromJPEG(soi + wrongCount) == nil)
        // Every truncation of a valid stream.
        for cut in 0..<(valid.count + 2) {
            let truncated = Array((soi + valid).prefix(cut))
            let result = ExifOrientation.fromJPEG(truncated)
            #expect(result == nil || cut >= soi.count + valid.count, "cut \(cut) gave \(String(describing: result))")
        }
        // A segment length pointing past the end, an IFD offset past the end, a bad TIFF magic.
        var longLength = valid
        longLength[2] = 0x7F
        #expect(ExifOrientation.fromJPEG(soi + longLength) == nil)
        var farIFD = valid
        farIFD[4 + 6 + 4] = 0xF0   // IFD0 offset (little-endian) low byte
        #expect(ExifOrientation.fromJPEG(soi + farIFD) == nil)
        var badMagic = valid
        badMagic[4 + 6 + 2] = 41
        #expect(ExifOrientation.fromJPEG(soi + badMagic) == nil)
        // Not a JPEG, or metadata after the start of scan.
        #expect(ExifOrientation.fromJPEG(Array("GIF89a".utf8)) == nil)
        #expect(ExifOrientation.fromJPEG(soi + [0xFF, 0xDA, 0x00, 0x02] + valid) == nil)
        #expect(ExifOrientation.fromJPEG([]) == nil)
    }

    @Test func randomBytesNeverTrap() {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        let valid = soi + ExifBuilder.exifSegment(orientation: 5, littleEndian: false)
        for _ in 0..<5_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            let result = ExifOrientation.fromJPEG(bytes)
            #expect(result == nil || (1...8).contains(result!.rawValue), "seed \(seed)")
        }
    }

    /// Stored 3×2 image with distinct pixels
    ///     A B C
    ///     D E F
    /// and, for each orientation, the displayed image written out by hand from the TIFF
    /// definition of where row 0 and column 0 appear.
    @Test func appliesEachOrientationToThePixels() throws {
        let (a, b, c, d, e, f): (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (10, 20, 30, 40, 50, 60)
        let stored = try RGBImage(width: 3, height: 2, pixels: [a, b, c, d, e, f].flatMap { [$0, $0 &+ 1, $0 &+ 2] })
        let expected: [ExifOrientation: (width: Int, rows: [UInt8])] = [
            .topLeft: (3, [a, b, c, d, e, f]),
            .topRight: (3, [c, b, a, f, e, d]),
            .bottomRight: (3, [f, e, d, c, b, a]),
            .bottomLeft: (3, [d, e, f, a, b, c]),
            .leftTop: (2, [a, d, b, e, c, f]),
            .rightTop: (2, [d, a, e, b, f, c]),
            .rightBottom: (2, [f, c, e, b, d, a]),
            .leftBottom: (2, [c, f, b, e, a, d]),
        ]
        for orientation in ExifOrientation.allCases {
            let shown = stored.applyingExifOrientation(orientation)
            let (width, values) = expected[orientation]!
            #expect(shown.width == width, "\(orientation)")
            #expect(shown.height == 6 / width, "\(orientation)")
            #expect(shown.pixels == values.flatMap { [$0, $0 &+ 1, $0 &+ 2] }, "\(orientation)")
        }
    }
}
