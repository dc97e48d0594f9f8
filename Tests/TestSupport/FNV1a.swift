/// FNV-1a 64, the hash by which the reference scripts (`scripts/fnv1a.py`) record bytes (images,
/// crops, tensors) and the tests check their own: 16 lowercase hex digits.
public enum FNV1a {
    /// The hash of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> String {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            value = (value ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash of `values` as little-endian float32 bytes.
    public static func hash(_ values: [Float]) -> String {
        values.withUnsafeBytes { raw in
            // The bytes as stored: little-endian on every platform this package builds for.
            hash(raw.bindMemory(to: UInt8.self))
        }
    }
}
