/// Builds PNG files byte by byte (stored, uncompressed deflate blocks), so the decoder can be
/// tested on color types and bit depths that the simplified-API encoder never writes.
struct HandBuiltPNG {
    var width: UInt32
    var height: UInt32
    var bitDepth: UInt8
    var colorType: UInt8
    /// Filtered scanlines: each row is a filter-type byte (0 = None) followed by the packed samples.
    var scanlines: [UInt8]
    /// Extra chunks written between IHDR and IDAT (e.g. PLTE, tRNS).
    var extraChunks: [(type: String, data: [UInt8])] = []

    /// Rows of raw samples, each prefixed with filter type 0.
    static func unfiltered(rows: [[UInt8]]) -> [UInt8] {
        rows.flatMap { [0] + $0 }
    }

    var bytes: [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = Self.bigEndian(width) + Self.bigEndian(height)
        header += [bitDepth, colorType, 0, 0, 0]
        out += Self.chunk("IHDR", header)
        for extra in extraChunks { out += Self.chunk(extra.type, extra.data) }
        out += Self.chunk("IDAT", Self.zlibStored(scanlines))
        out += Self.chunk("IEND", [])
        return out
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian(UInt32(data.count)) + typeBytes + data + bigEndian(crc32(typeBytes + data))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// A zlib stream made of stored deflate blocks (RFC 1950/1951).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isLast: UInt8 = offset + length == data.count ? 1 : 0
            out.append(isLast)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}
