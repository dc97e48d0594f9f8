/// The EXIF/TIFF `Orientation` tag (0x0112): how the stored pixels must be transformed to be
/// shown upright. Names follow the TIFF specification: "where the 0th row and the 0th column
/// of the stored image appear when displayed".
public enum ExifOrientation: UInt16, Sendable, Hashable, CaseIterable {
    /// 1: stored upright.
    case topLeft = 1
    /// 2: mirrored left-right.
    case topRight = 2
    /// 3: rotated 180°.
    case bottomRight = 3
    /// 4: mirrored top-bottom.
    case bottomLeft = 4
    /// 5: transposed (mirrored along the top-left/bottom-right diagonal).
    case leftTop = 5
    /// 6: must be rotated 90° clockwise to display.
    case rightTop = 6
    /// 7: transversed (mirrored along the top-right/bottom-left diagonal).
    case rightBottom = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case leftBottom = 8

    /// Whether displaying swaps width and height (values 5–8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Reads the orientation tag from a JPEG's APP1 "Exif" segment.
    ///
    /// Walks the marker segments from SOI up to the first SOS, finds the first APP1 segment whose
    /// payload starts with `"Exif\0\0"`, and reads tag 0x0112 (type SHORT, count 1) from IFD0 of
    /// the embedded TIFF structure, in either byte order. Every offset and length is
    /// bounds-checked: malformed or truncated data gives `nil`, never a trap.
    /// - Returns: the orientation, or `nil` when the bytes are not a JPEG, carry no EXIF
    ///   orientation, or carry a value outside 1…8.
    public static func fromJPEG(_ bytes: UnsafeRawBufferPointer) -> ExifOrientation? {
        var reader = ByteReader(bytes)
        guard reader.readUInt16BE() == 0xFFD8 else { return nil }
        while true {
            // Markers may be preceded by any number of 0xFF fill bytes.
            guard reader.readByte() == 0xFF else { return nil }
            var marker = 0xFF as UInt8
            while marker == 0xFF {
                guard let next = reader.readByte() else { return nil }
                marker = next
            }
            // Standalone markers without a length field: TEM and RST0-7.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            // SOS (entropy-coded data follows) or EOI: no metadata past this point.
            if marker == 0xDA || marker == 0xD9 { return nil }
            guard let length = reader.readUInt16BE(), length >= 2,
                  let segment = reader.slice(count: Int(length) - 2) else { return nil }
            if marker == 0xE1, let orientation = orientation(inExifSegment: segment) {
                return orientation
            }
        }
    }

    /// Reads the orientation tag from a JPEG's APP1 "Exif" segment; see ``fromJPEG(_:)-(UnsafeRawBufferPointer)``.
    public static func fromJPEG(_ bytes: [UInt8]) -> ExifOrientation? {
        bytes.withUnsafeBytes { fromJPEG($0) }
    }

    /// Parses an APP1 payload: `"Exif\0\0"` then a TIFF header and IFD0.
    private static func orientation(inExifSegment segment: UnsafeRawBufferPointer) -> ExifOrientation? {
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        guard segment.count >= exifHeader.count,
              zip(segment, exifHeader).allSatisfy({ $0 == $1 }) else { return nil }
        let tiff = UnsafeRawBufferPointer(rebasing: segment[(segment.startIndex + exifHeader.count)...])
        var reader = ByteReader(tiff)
        let littleEndian: Bool
        switch reader.readUInt16BE() {
        case 0x4949: littleEndian = true    // "II"
        case 0x4D4D: littleEndian = false   // "MM"
        default: return nil
        }
        guard reader.readUInt16(littleEndian: littleEndian) == 42,
              let ifdOffset = reader.readUInt32(littleEndian: littleEndian),
              reader.seek(to: Int(ifdOffset)),
              let entryCount = reader.readUInt16(littleEndian: littleEndian) else { return nil }
        for _ in 0..<entryCount {
            guard let tag = reader.readUInt16(littleEndian: littleEndian),
                  let type = reader.readUInt16(littleEndian: littleEndian),
                  let count = reader.readUInt32(littleEndian: littleEndian),
                  let value = reader.readUInt16(littleEndian: littleEndian),
                  reader.skip(2) else { return nil }
            // A SHORT value of count 1 is stored left-aligned in the 4-byte value field.
            if tag == 0x0112 {
                guard type == 3, count == 1 else { return nil }
                return ExifOrientation(rawValue: value)
            }
        }
        return nil
    }
}

/// A cursor over a byte buffer whose reads return `nil` instead of running past the end.
private struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    /// Invariant: 0 ≤ position ≤ bytes.count.
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private var remaining: Int { bytes.count - position }

    mutating func readByte() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readUInt16BE() -> UInt16? { readUInt16(littleEndian: false) }

    mutating func readUInt16(littleEndian: Bool) -> UInt16? {
        guard remaining >= 2 else { return nil }
        let first = UInt16(bytes[position]), second = UInt16(bytes[position + 1])
        position += 2
        return littleEndian ? first | second << 8 : first << 8 | second
    }

    mutating func readUInt32(littleEndian: Bool) -> UInt32? {
        guard remaining >= 4 else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[position + (littleEndian ? 3 - index : index)])
            value = value << 8 | byte
        }
        position += 4
        return value
    }

    /// The next `count` bytes as a sub-buffer, advancing past them.
    mutating func slice(count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    mutating func skip(_ count: Int) -> Bool { slice(count: count) != nil }

    /// Moves to an absolute offset inside the buffer.
    mutating func seek(to offset: Int) -> Bool {
        guard offset >= 0, offset <= bytes.count else { return false }
        position = offset
        return true
    }
}
