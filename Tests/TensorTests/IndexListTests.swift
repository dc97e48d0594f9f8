import Tensor
import TestSupport
import Testing

/// An index list reads the integers a file stores, in each width, as an array of them
/// would give them; its one-pass checks agree with plain loops over the values.
@Suite struct IndexListTests {
    /// Bytes held by an object, as a model file's are.
    final class Bytes: ImmutableBytes, @unchecked Sendable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }
    }

    /// `values` stored little-endian in `width` after `offset` bytes of padding, read in place.
    static func stored(_ values: [Int32], width: IndexList.Width, offset: Int) -> IndexList? {
        var bytes = [UInt8](repeating: 0xAB, count: offset)
        for value in values {
            let word = UInt32(bitPattern: value)
            bytes += (0..<width.rawValue).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        }
        return IndexList(stored: Bytes(bytes), offset: offset, count: values.count, width: width)
    }

    @Test func storedIntegersReadAsTheirValuesInEveryWidthAndAlignment() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for (width, limit) in [(IndexList.Width.uint8, 255), (.uint16, 65535), (.int32, Int(Int32.max))] {
            for offset in 0..<4 {
                let values = (0..<37).map { _ in Int32(Int.random(in: 0...limit, using: &rng)) }
                let list = try #require(Self.stored(values, width: width, offset: offset), "seed \(seed)")
                #expect(list.toArray() == values, "\(width) offset \(offset) seed \(seed)")
                #expect(list == IndexList(values) && list.hashValue == IndexList(values).hashValue)
                #expect(list.bounds() == values.min()!...values.max()!, "seed \(seed)")
                #expect(list.first == values.first && list.last == values.last)
            }
        }
        #expect(try #require(Self.stored([-5, 7], width: .int32, offset: 0)).bounds() == -5...7)
        #expect(IndexList([]).bounds() == nil && IndexList([]).first == nil)
    }

    /// The culprit searches (for error messages) name the first integer out of range and the
    /// first decrease, as plain searches do.
    @Test func firstOutsideAndFirstDecreaseAgreeWithPlainSearches() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<300 {
            let values = (0..<Int.random(in: 0...12, using: &rng)).map { _ in Int32.random(in: 0...9, using: &rng) }
            let list = try #require(Self.stored(values, width: .uint16, offset: 1))
            let range = 2..<8
            #expect(
                list.firstIndex(outside: range) == values.firstIndex { !range.contains(Int($0)) },
                "trial \(trial) \(values) seed \(seed)")
            #expect(
                list.firstDecrease() == values.indices.dropFirst().first { values[$0] < values[$0 - 1] },
                "trial \(trial) \(values) seed \(seed)")
        }
    }

    @Test func integersOutsideTheBytesAreRefused() {
        let bytes = Bytes([1, 2, 3, 4, 5, 6])
        #expect(IndexList(stored: bytes, offset: 2, count: 2, width: .uint16) != nil)
        #expect(IndexList(stored: bytes, offset: 2, count: 3, width: .uint16) == nil)
        #expect(IndexList(stored: bytes, offset: 7, count: 0, width: .uint8) == nil)
        #expect(IndexList(stored: bytes, offset: -1, count: 1, width: .uint8) == nil)
        #expect(IndexList(stored: bytes, offset: 0, count: Int.max, width: .int32) == nil)
    }

    /// Rows ascend when every step inside a segment climbs, whatever happens between
    /// segments (empty ones included); compared with a plain check over random lists.
    @Test func ascendingWithinSegmentsAgreesWithAPlainCheck() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<400 {
            let count = Int.random(in: 0...40, using: &rng)
            // Mostly climbing runs, so that both answers come up.
            var values: [Int32] = []
            for _ in 0..<count {
                let climbs = Int.random(in: 0..<8, using: &rng) > 0
                let step = Int32.random(in: 1...3, using: &rng), fresh = Int32.random(in: 0...20, using: &rng)
                values.append(climbs ? (values.last ?? 0) + step : fresh)
            }
            var segments: [Int32] = [0]
            while Int(segments.last!) < count {
                let step = Int32.random(in: 0...6, using: &rng)
                segments.append(min(Int32(count), segments.last! + step))
            }
            var plain = true
            for (start, end) in zip(segments, segments.dropFirst()) where end - start > 1 {
                for index in Int(start + 1)..<Int(end) where values[index] <= values[index - 1] { plain = false }
            }
            for width in [IndexList.Width.uint8, .int32] {
                let list = try #require(Self.stored(values, width: width, offset: 1))
                #expect(
                    list.ascendsStrictly(withinSegments: IndexList(segments)) == plain,
                    "trial \(trial) \(values) \(segments) seed \(seed)")
            }
        }
    }
}
