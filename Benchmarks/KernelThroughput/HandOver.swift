import Benchmark
import Kernels
import Synchronization

/// What handing one operator's work to the worker threads costs:
/// `ParallelRunner.forEach` over one chunk per thread, each chunk waiting
/// until every thread has started one, so that a job ends only once the
/// helpers have seen it and claimed their chunk. The runner (and
/// its spinning helpers) is kept from call to call, as an interpreter keeps
/// it. A model runs one such job per operator it splits (about 100 to 200 an
/// invoke for these models), so this time, times that count, is what the
/// hand-overs alone cost an invoke.
enum HandOver {
    /// Threads that have started a chunk, over all jobs so far.
    final class Arrivals: Sendable {
        let count = Atomic<Int>(0)
    }

    /// A job whose chunks only meet: each waits until `target` chunks of all
    /// jobs so far have started.
    struct Meeting: ParallelWork {
        let arrivals: Arrivals
        let target: Int

        func run(_ items: Range<Int>, thread: Int) {
            arrivals.count.wrappingAdd(1, ordering: .acquiringAndReleasing)
            while arrivals.count.load(ordering: .acquiring) < target {}
        }
    }

    /// Registers the benchmark at `threads` threads: 1 000 jobs per iteration
    /// (`scalingFactor`), the time given per job.
    static func register(threads: Int) {
        Benchmark(
            "hand-over of an empty job \(threads)t",
            configuration: .init(metrics: [.wallClock], timeUnits: .nanoseconds, scalingFactor: .kilo)
        ) { (benchmark, runner: ParallelRunner) in
            let arrivals = Arrivals()
            var target = 0
            for _ in benchmark.scaledIterations {
                target += threads
                runner.forEach(threads, Meeting(arrivals: arrivals, target: target))
            }
        } setup: {
            ParallelRunner(threadCount: threads)
        }
    }
}
