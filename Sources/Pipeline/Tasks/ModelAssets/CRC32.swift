/// CRC-32 as used by zip (IEEE 802.3 polynomial, reflected: 0xEDB88320; initial value and final
/// XOR 0xFFFFFFFF).
enum CRC32 {
    /// One entry per byte value: the CRC register after shifting that byte through it.
    private static let table: [UInt32] = (0...255).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
