import SystemInterface
import Tensor

/// The packed weights of one model load, kept so that a later load of the
/// same model can take them as they are instead of packing them again (the
/// weight cache of `Inference`).
///
/// A load names the part of the model that each packing belongs to
/// (`withScope(of:id:_:)`: an operator's index), and within a scope the
/// packers take their storage in a fixed order (`packedWeights(count:)`),
/// so a buffer's `Key` is the same in every load of the same model by the same
/// build with the same options, whatever the thread count. A buffer that
/// the store was given under that key, of the same size, is handed out as it
/// is and not packed again; otherwise fresh storage is, for the packer to
/// fill. The store records every buffer it hands out (`buffers`), to be saved
/// once the load has succeeded.
///
/// A packer outside any scope (a kernel prepared on its own, a test) gets
/// fresh storage, recorded nowhere.
///
/// Thread safety: `Sendable`; buffers are handed out under a lock, to any
/// number of loading threads at once.
public final class PackedWeightStore: @unchecked Sendable {
    /// Where a buffer belongs in a load.
    public struct Key: Hashable, Comparable, Sendable {
        /// The scope's `id` (`withScope(of:id:_:)`).
        public let scope: Int
        /// How many buffers the scope took before this one.
        public let ordinal: Int

        public init(scope: Int, ordinal: Int) {
            self.scope = scope
            self.ordinal = ordinal
        }

        public static func < (a: Key, b: Key) -> Bool { (a.scope, a.ordinal) < (b.scope, b.ordinal) }
    }

    /// Buffers packed by an earlier load and not handed out yet, by key.
    private var reusable: [Key: AlignedBuffer]
    /// Whether the store was given any earlier load's buffers.
    public let hasReusableBuffers: Bool
    /// The keys of the buffers handed out from `reusable`.
    private var reusedKeys: Set<Key> = []
    /// Every buffer handed out so far, by key.
    private var handedOut: [Key: AlignedBuffer] = [:]
    /// How many of them were packed afresh.
    private var freshCount = 0
    private let lock = ConditionLock()

    /// A store that hands out `reusable` (an earlier load's buffers, by key)
    /// where a packer asks for a buffer of the same key and size.
    public init(reusable: [Key: AlignedBuffer] = [:]) {
        self.reusable = reusable
        self.hasReusableBuffers = !reusable.isEmpty
    }

    /// Every buffer handed out, in key order.
    public var buffers: [(key: Key, buffer: AlignedBuffer)] {
        lock.lock()
        defer { lock.unlock() }
        return handedOut.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// How many of the buffers handed out were fresh storage, packed by this load.
    public var freshlyPackedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return freshCount
    }

    /// How many of the buffers handed out were an earlier load's, not packed again.
    public var reusedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return reusedKeys.count
    }

    /// Takes out of resident memory the pages of the reused buffers that only
    /// this store still holds: those a load packed but then replaced (a
    /// depthwise filter that a channel-major kernel took over), which a mapped
    /// cache file would otherwise keep resident for as long as the model is
    /// loaded. Call it once the load is done and saved.
    public func releasePagesOfUnusedBuffers() {
        lock.lock()
        defer { lock.unlock() }
        for key in reusedKeys where isKnownUniquelyReferenced(&handedOut[key]!) {
            let buffer = handedOut[key]!
            releasePages(of: UnsafeMutableRawBufferPointer(
                start: buffer.baseAddress, count: buffer.capacity * MemoryLayout<Float>.stride))
        }
    }

    /// Runs `body` with the packings it makes on this thread taking their
    /// storage from `store` under scope `id` (nothing changes when `store`
    /// is nil). A scope's packings must happen in the same order in every
    /// load: on one thread, in program order.
    public static func withScope<R>(of store: PackedWeightStore?, id: Int, _ body: () throws -> R) rethrows -> R {
        guard let store else { return try body() }
        return try $currentScope.withValue(Scope(store: store, id: id), operation: body)
    }

    /// Storage for `count` floats of packed weights: the current scope's
    /// next buffer, either one of an earlier load (`needsPacking` false: it
    /// holds the packed weights already) or fresh and zeroed, its pages
    /// resident (`needsPacking` true: the caller writes the weights).
    static func packedWeights(count: Int) -> (buffer: AlignedBuffer, needsPacking: Bool) {
        guard let scope = currentScope else { return (AlignedBuffer(count: count, populated: true), true) }
        let key = Key(scope: scope.id, ordinal: scope.nextOrdinal)
        scope.nextOrdinal += 1
        return scope.store.buffer(for: key, count: count)
    }

    /// Packed weights whose size is known only once they are packed (a
    /// sparse kernel's weight lists), under the current scope's next key:
    /// what `reuse` makes of an earlier load's buffer of that key (nil when it
    /// does not hold valid weights), else what `pack` packs afresh (nil when
    /// there is nothing to pack), whose storage (never empty) the store then
    /// keeps. When `pack` declines, the store keeps an empty buffer under the
    /// key instead, so that a later load given it returns nil at once,
    /// without calling `pack` (a dense filter is then not scanned again at
    /// every load to find it too dense for a sparse kernel). Outside any
    /// scope, `pack`'s, recorded nowhere.
    static func weights<Packed>(
        reusing reuse: (AlignedBuffer) -> Packed?, packing pack: () -> (Packed, storage: AlignedBuffer)?
    ) -> Packed? {
        guard let scope = currentScope else { return pack()?.0 }
        let key = Key(scope: scope.id, ordinal: scope.nextOrdinal)
        scope.nextOrdinal += 1
        let store = scope.store
        if let earlier = store.takeReusable(key) {
            if earlier.count == 0 {
                store.record(earlier, for: key, reused: true)
                return nil
            }
            if let reused = reuse(earlier) {
                store.record(earlier, for: key, reused: true)
                return reused
            }
        }
        guard let (packed, storage) = pack() else {
            store.record(AlignedBuffer(count: 0), for: key, reused: false)
            return nil
        }
        precondition(storage.count > 0, "packed weights in an empty buffer read as declined")
        store.record(storage, for: key, reused: false)
        return packed
    }

    private func buffer(for key: Key, count: Int) -> (buffer: AlignedBuffer, needsPacking: Bool) {
        if let reused = takeReusable(key), reused.count == count {
            record(reused, for: key, reused: true)
            return (reused, false)
        }
        // Allocated and populated outside the lock: other threads' packings go on meanwhile.
        let fresh = AlignedBuffer(count: count, populated: true)
        record(fresh, for: key, reused: false)
        return (fresh, true)
    }

    /// The earlier load's buffer under `key`, taken out of `reusable`.
    private func takeReusable(_ key: Key) -> AlignedBuffer? {
        lock.lock()
        defer { lock.unlock() }
        return reusable.removeValue(forKey: key)
    }

    /// Records `buffer` as handed out under `key`: an earlier load's, or fresh.
    private func record(_ buffer: AlignedBuffer, for key: Key, reused: Bool) {
        lock.lock()
        defer { lock.unlock() }
        precondition(handedOut[key] == nil, "two packings under one key: a scope id used twice")
        handedOut[key] = buffer
        if reused { reusedKeys.insert(key) } else { freshCount += 1 }
    }

    /// A scope of one thread's packings. Its counter is only touched by the
    /// thread that runs the scope's body.
    private final class Scope: @unchecked Sendable {
        let store: PackedWeightStore
        let id: Int
        var nextOrdinal = 0

        init(store: PackedWeightStore, id: Int) {
            self.store = store
            self.id = id
        }
    }

    @TaskLocal private static var currentScope: Scope?
}
