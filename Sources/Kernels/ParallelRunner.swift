import Dispatch

/// Splits independent work items over a fixed number of threads with
/// `DispatchQueue.concurrentPerform`.
///
/// Work item `i` is always computed the same way whatever the thread count
/// (threads split the output, never a reduction), so results are
/// bit-identical for any `threadCount`.
public struct ParallelRunner: Sendable {
    /// Number of threads work is spread over (at least 1).
    public let threadCount: Int

    public init(threadCount: Int) {
        self.threadCount = max(1, threadCount)
    }

    /// A runner that does everything on the calling thread.
    public static let serial = ParallelRunner(threadCount: 1)

    /// Calls `body(i)` for every `i` in `0..<count`, spread over the threads in
    /// contiguous chunks. `body` must only write memory that item `i` owns.
    public func forEach(_ count: Int, _ body: (Int) -> Void) {
        guard count > 0 else { return }
        let workers = min(threadCount, count)
        if workers == 1 {
            for i in 0..<count { body(i) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let shared = UncheckedSendableBox(body)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let start = count * worker / workers
                let end = count * (worker + 1) / workers
                for i in start..<end { shared.value(i) }
            }
        }
    }
}

/// Carries a value into a `@Sendable` closure. Contract: every concurrent
/// user touches disjoint memory through it ("disjoint writes").
@usableFromInline
struct UncheckedSendableBox<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @usableFromInline init(_ value: Value) { self.value = value }
}
