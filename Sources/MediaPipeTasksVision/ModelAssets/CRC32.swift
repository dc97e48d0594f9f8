/// CRC-32 as used by zip (IEEE 802.3 polynomial, reflected: 0xEDB88320; initial value and final
/// XOR 0xFFFFFFFF).
///
/// Contiguous bytes are processed eight at a time ("slicing by 8": eight table lookups fold
/// eight bytes into the register at once), several times faster than one byte at a time, which
/// matters for a `.task` bundle's models (megabytes each, checked before every load).
enum CRC32 {
    /// `tables[t · 256 + b]`: the CRC register after shifting byte `b` followed by `t` zero bytes
    /// through it. Table 0 is the classic byte-at-a-time table.
    private static let tables: [UInt32] = {
        var tables = (0...255).map { byte -> UInt32 in
            var value = UInt32(byte)
            for _ in 0..<8 {
                value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
            }
            return value
        }
        for t in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(t - 1) * 256 + byte]
                tables.append((previous >> 8) ^ tables[Int(previous & 0xFF)])
            }
        }
        return tables
    }()

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0)) }) {
            return crc
        }
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum of the contiguous `bytes`, eight bytes per step.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { table in
            let count = bytes.count
            var offset = 0
            while offset + 8 <= count {
                // The register absorbs the first four bytes; table t then holds the effect of a
                // byte followed by t more bytes of the eight.
                let low = crc ^ UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let high = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(bytes[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
