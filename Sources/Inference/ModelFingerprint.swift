/// A 128-bit fingerprint of a model's bytes, or of its source's identity,
/// which names and checks the model's weight cache file (`WeightCache`): two
/// inputs that differ in any byte get different fingerprints but for a
/// chance of about 2⁻¹²⁸ a pair.
/// Not cryptographic: made to be quick (a few GB/s) rather than to resist a
/// file built to collide with another.
///
/// Each of 32 lanes of 32 bits takes every 32nd 4-byte word through a
/// multiply-rotate-multiply round (xxHash32's), eight lanes a SIMD vector,
/// four vectors apart, so that the multiplies of the four overlap; the tail
/// is zero-padded to a whole block, and the byte count and every lane are
/// then mixed into two 64-bit halves.
struct ModelFingerprint: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    /// The fingerprint of `bytes`.
    init(of bytes: UnsafeRawBufferPointer) {
        typealias Lanes = SIMD8<UInt32>
        let prime1: UInt32 = 0x9E37_79B1, prime2: UInt32 = 0x85EB_CA77
        let laneSeeds = Lanes(1, 2, 3, 4, 5, 6, 7, 8) &* prime1
        var accumulators = (laneSeeds, laneSeeds &+ 8, laneSeeds &+ 16, laneSeeds &+ 24)
        @inline(__always) func round(_ accumulator: inout Lanes, _ words: Lanes) {
            let mixed = accumulator &+ words &* prime2
            accumulator = ((mixed &<< 13) | (mixed &>> 19)) &* prime1
        }
        @inline(__always) func block(_ start: UnsafeRawPointer) {
            let vector = MemoryLayout<Lanes>.size
            round(&accumulators.0, start.loadUnaligned(as: Lanes.self))
            round(&accumulators.1, start.loadUnaligned(fromByteOffset: vector, as: Lanes.self))
            round(&accumulators.2, start.loadUnaligned(fromByteOffset: 2 * vector, as: Lanes.self))
            round(&accumulators.3, start.loadUnaligned(fromByteOffset: 3 * vector, as: Lanes.self))
        }
        let blockSize = 4 * MemoryLayout<Lanes>.size
        let wholeBlocks = bytes.count / blockSize * blockSize
        if let base = bytes.baseAddress {
            for offset in stride(from: 0, to: wholeBlocks, by: blockSize) { block(base + offset) }
            if wholeBlocks < bytes.count {
                withUnsafeTemporaryAllocation(byteCount: blockSize, alignment: 32) { tail in
                    tail.initializeMemory(as: UInt8.self, repeating: 0)
                    tail.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[wholeBlocks...]))
                    block(UnsafeRawPointer(tail.baseAddress!))
                }
            }
        }
        var high = UInt64(bytes.count), low = ~UInt64(bytes.count)
        for vector in [accumulators.0, accumulators.1, accumulators.2, accumulators.3] {
            for lane in 0..<Lanes.scalarCount {
                high = Self.mix(high ^ UInt64(vector[lane]))
                low = Self.mix(low &+ UInt64(vector[lane]) &* 0xD6E8_FEB8_6659_FD93)
            }
        }
        self.high = high
        self.low = low
    }

    /// The fingerprint of a source identity (`ModelBytes.sourceIdentity`):
    /// its words, after a tag and their count, hashed as bytes.
    init(identity words: [UInt64]) {
        let tagged = [0x7974_6974_6E65_6469 /* "identity" */, UInt64(words.count)] + words
        self = tagged.map(\.littleEndian).withUnsafeBytes { Self(of: $0) }
    }

    /// SplitMix64's finaliser: every input bit reaches every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 32 lower-case hexadecimal digits, the high half first.
    var hexadecimal: String {
        [high, low].map { half in
            let digits = String(half, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
