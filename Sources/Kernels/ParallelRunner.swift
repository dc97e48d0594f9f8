import Dispatch

/// Splits independent work items over a fixed number of threads: the calling
/// thread plus the helper threads of a `WorkerPool`.
///
/// Work item `i` is always computed the same way whatever the thread count
/// (threads split the output, never a reduction), so results are
/// bit-identical for any `threadCount`.
///
/// A runner made with `init(threadCount:)` owns its pool; copies and
/// `limited(to:)` share it. One runner serves one caller at a time (an
/// interpreter invokes its operators one after another).
public struct ParallelRunner: Sendable {
    /// Number of threads work is spread over (at least 1).
    public let threadCount: Int
    private let pool: WorkerPool?

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

    /// Calls `body(i)` for every `i` in `0..<count`, spread over the threads in
    /// contiguous chunks. `body` must only write memory that item `i` owns.
    /// Allocates nothing.
    public func forEach(_ count: Int, _ body: (Int) -> Void) {
        guard count > 0 else { return }
        let workers = min(threadCount, count)
        guard workers > 1, let pool else {
            for i in 0..<count { body(i) }
            return
        }
        pool.run(workers: workers) { worker in
            let start = count * worker / workers
            let end = count * (worker + 1) / workers
            for i in start..<end { body(i) }
        }
    }
}
