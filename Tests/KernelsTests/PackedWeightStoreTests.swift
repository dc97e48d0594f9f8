#if canImport(Glibc)
import Glibc
#endif
import Tensor
import Testing

@testable import Kernels

/// A store hands the packers their storage by scope and order: an earlier load's buffer of
/// the same key and size as it is, fresh storage otherwise; and it gives back the pages of
/// the reused buffers that only it still holds.
@Suite struct PackedWeightStoreTests {
    /// A mapping of `floats` floats owned by the returned object, filled with 1, 2, 3, ….
    final class Mapping {
        let floats: Int
        let base: UnsafeMutablePointer<Float>

        init(floats: Int) {
            self.floats = floats
            let raw = mmap(nil, floats * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
            base = raw.assumingMemoryBound(to: Float.self)
            for i in 0..<floats { base[i] = Float(i + 1) }
        }

        deinit { munmap(base, floats * 4) }
    }

    @Test func buffersAreHandedOutByScopeAndOrderAndReusedOnlyAtTheirSize() {
        let mapping = Mapping(floats: 4096)
        let first = AlignedBuffer(borrowing: mapping.base, count: 32, owner: mapping)
        let second = AlignedBuffer(borrowing: mapping.base + 64, count: 48, owner: mapping)
        let store = PackedWeightStore(reusable: [
            .init(scope: 7, ordinal: 0): first, .init(scope: 7, ordinal: 1): second,
        ])
        let handedOut = PackedWeightStore.withScope(of: store, id: 7) {
            // The second asks for another size than the stored one: fresh storage.
            [32, 40, 16].map { PackedWeightStore.packedWeights(count: $0) }
        }
        #expect(handedOut[0].buffer === first && !handedOut[0].needsPacking)
        #expect(handedOut[1].buffer !== second && handedOut[1].needsPacking && handedOut[1].buffer.count == 40)
        #expect(handedOut[2].needsPacking && handedOut[2].buffer.buffer.allSatisfy { $0 == 0 })
        #expect(store.reusedCount == 1 && store.freshlyPackedCount == 2)
        #expect(store.buffers.map(\.key) == (0..<3).map { PackedWeightStore.Key(scope: 7, ordinal: $0) })
        // Outside any scope: fresh storage, recorded nowhere.
        let outside = PackedWeightStore.packedWeights(count: 32)
        #expect(outside.needsPacking && store.buffers.count == 3)
    }

    @Test func aDeclinedPackingIsRecordedAndNotTriedAgain() {
        // A first load: the packer declines (a filter too dense for a sparse kernel).
        let first = PackedWeightStore()
        let declined: Int? = PackedWeightStore.withScope(of: first, id: 3) {
            PackedWeightStore.weights(reusing: { _ in 1 }, packing: { nil })
        }
        #expect(declined == nil)
        let recorded = first.buffers
        #expect(recorded.count == 1 && recorded[0].key == .init(scope: 3, ordinal: 0) && recorded[0].buffer.count == 0)
        #expect(first.freshlyPackedCount == 1)
        // A later load given that record declines again without packing or reusing.
        let later = PackedWeightStore(reusable: Dictionary(uniqueKeysWithValues: recorded.map { ($0.key, $0.buffer) }))
        var calls = 0
        let again: Int? = PackedWeightStore.withScope(of: later, id: 3) {
            PackedWeightStore.weights(
                reusing: { _ in calls += 1; return 1 },
                packing: { calls += 1; return (2, AlignedBuffer(count: 4)) })
        }
        #expect(again == nil && calls == 0)
        #expect(later.reusedCount == 1 && later.freshlyPackedCount == 0)
    }

    @Test func theUnusedReusedBuffersGiveBackTheirPages() throws {
        let pageFloats = Int(sysconf(Int32(_SC_PAGESIZE))) / 4
        let mapping = Mapping(floats: 4 * pageFloats)
        let store = PackedWeightStore(reusable: [
            .init(scope: 0, ordinal: 0): AlignedBuffer(borrowing: mapping.base, count: 2 * pageFloats, owner: mapping),
            .init(scope: 1, ordinal: 0): AlignedBuffer(
                borrowing: mapping.base + 2 * pageFloats, count: 2 * pageFloats, owner: mapping),
        ])
        var kept: AlignedBuffer? = PackedWeightStore.withScope(of: store, id: 0) {
            PackedWeightStore.packedWeights(count: 2 * pageFloats).buffer
        }
        _ = PackedWeightStore.withScope(of: store, id: 1) { PackedWeightStore.packedWeights(count: 2 * pageFloats) }
        store.releasePagesOfUnusedBuffers()
        // The kept buffer's pages hold their values; the dropped one's read as an anonymous
        // mapping's fresh pages, zeros.
        #expect((0..<(2 * pageFloats)).allSatisfy { mapping.base[$0] == Float($0 + 1) })
        #expect((2 * pageFloats..<(4 * pageFloats)).allSatisfy { mapping.base[$0] == 0 })
        kept = nil
        _ = kept
    }
}
