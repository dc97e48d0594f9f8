/// PNG chunk checksums: recomputing them in a mutated file, and writing
/// chunks for the seeds.
///
/// A chunk is a 4-byte big-endian data length, a 4-byte type, the data, and
/// the CRC-32 (ISO 3309, reflected polynomial 0xEDB88320) of type and data.
enum PNGChunkCRC {
    private static let signatureLength = 8
    /// Length (4), type (4) and CRC (4) around each chunk's data.
    private static let chunkOverhead = 12

    private static let table: [UInt32] = (0...255).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The CRC-32 of `bytes`.
    static func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// `bytes` with the CRC of every whole chunk after the signature
    /// recomputed, up to the first length that runs past the end.
    static func fixed(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        var offset = signatureLength
        while bytes.count - offset >= chunkOverhead {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - offset - chunkOverhead else { break }
            let crcOffset = offset + 8 + length
            result.replaceSubrange(crcOffset..<crcOffset + 4, with: bigEndian(crc32(bytes[offset + 4..<crcOffset])))
            offset = crcOffset + 4
        }
        return result
    }

    /// A whole chunk: length, `type` (4 ASCII letters), `data`, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc32(typeAndData))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
