/// Work over the items `0..<count` that `ParallelRunner.forEach` spreads over
/// threads.
///
/// A conforming value holds what the work reads and writes (pointers, sizes,
/// packed weights) and computes items in `run(_:thread:)`. The runner lends
/// its helper threads a pointer to the caller's value — no copy, no closure —
/// so handing work to another thread allocates nothing (a closure that
/// reaches another thread needs a heap-allocated context).
///
/// Conform with a concrete, non-generic type: helper threads call `run`
/// through the conformance, so a generic type's `run` would run there
/// unspecialised. The protocol does not require `Copyable` so that the
/// pool's generic code can call `run` on the caller's value in place: a
/// generic call on a copyable value first copies it, retaining every
/// reference it holds, from every thread at once.
public protocol ParallelWork: ~Copyable {
    /// Computes `items`, a contiguous part of `0..<count`, on thread `thread`
    /// (`0..<threadCount` of the runner, 0 being the calling thread), which
    /// may pick per-thread scratch. It must write only memory that these
    /// items own, and an item's result must not depend on which range or
    /// thread computes it.
    func run(_ items: Range<Int>, thread: Int)
}

/// Splits independent work items over a fixed number of threads: the calling
/// thread plus the helper threads of a `WorkerPool`.
///
/// Items are cut into contiguous chunks that threads claim one at a time, so
/// a thread that starts late or is descheduled delays the others by at most
/// one chunk. Work item `i` is always computed the same way whatever the
/// thread count or the chunk that holds it (threads split the output, never
/// a reduction), so results are bit-identical for any `threadCount`.
///
/// A runner made with `init(threadCount:)` owns its pool; copies and
/// `limited(to:)` share it. One runner serves one caller at a time (an
/// interpreter invokes its operators one after another).
public struct ParallelRunner: Sendable {
    /// Number of threads work is spread over (at least 1).
    public let threadCount: Int
    private let pool: WorkerPool?

    /// Chunks per thread: enough that a thread that falls behind leaves
    /// little for the others to wait for, few enough that claiming them costs
    /// nothing next to the work.
    static let chunksPerThread = 8

    /// A runner over `threadCount` threads; above 1 it starts
    /// `threadCount − 1` helper threads that live as long as the runner.
    public init(threadCount: Int) {
        let count = max(1, threadCount)
        self.threadCount = count
        self.pool = count > 1 ? WorkerPool(helperCount: count - 1) : nil
    }

    private init(threadCount: Int, pool: WorkerPool?) {
        self.threadCount = threadCount
        self.pool = pool
    }

    /// A runner that does everything on the calling thread.
    public static let serial = ParallelRunner(threadCount: 1)

    /// The same pool, using at most `count` threads (for work too small to split further).
    public func limited(to count: Int) -> ParallelRunner {
        ParallelRunner(threadCount: max(1, min(count, threadCount)), pool: pool)
    }

    /// Calls `work.run` over every item of `0..<count`, in chunks of at least
    /// `minimumPerChunk` items (when there are at least that many) spread
    /// over the threads; with one thread, or one chunk, in a single call
    /// on the calling thread. Returns when all items are done. Allocates
    /// nothing.
    public func forEach<Work: ParallelWork>(_ count: Int, minimumPerChunk: Int = 1, _ work: Work) {
        guard count > 0 else { return }
        let (perThread, overflow) = threadCount.multipliedReportingOverflow(by: Self.chunksPerThread)
        let chunkCount = min(count / max(1, minimumPerChunk), overflow ? count : perThread)
        guard chunkCount > 1, let pool else {
            work.run(0..<count, thread: 0)
            return
        }
        pool.run(work, count: count, chunkCount: chunkCount, threadCount: threadCount)
    }
}
