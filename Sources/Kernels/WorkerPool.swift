import Dispatch
import Foundation
import Synchronization

/// Helper threads that run one parallel job at a time with low wake-up latency.
///
/// Each helper is a long-lived block on its own serial dispatch queue. Between
/// jobs a helper spins on the job counter for a short while (operators of one
/// invocation follow each other within microseconds, far sooner than a
/// sleeping thread wakes up), then sleeps on a condition variable until the
/// next job. Starting a job and waiting for it allocate nothing.
final class WorkerPool: @unchecked Sendable {
    /// How long an idle helper spins before sleeping, in spin iterations
    /// (about 50 µs).
    static let spinIterations = 20_000

    private let state: WorkerPoolState

    /// Starts `helperCount` helper threads.
    init(helperCount: Int) {
        state = WorkerPoolState(helperCount: helperCount)
        for helper in 1...helperCount {
            let state = self.state
            DispatchQueue(label: "landmarker.kernels.worker.\(helper)").async {
                state.helperLoop(index: helper)
            }
        }
    }

    deinit { state.stop() }

    /// Runs `body(worker)` for every worker in `0..<workers` — worker 0 on the
    /// calling thread, the others on helpers — and returns when all are done.
    /// `workers` must be at most `helperCount + 1`.
    func run(workers: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            state.start(job: body, workers: workers)
            body(0)
            state.waitForHelpers()
        }
    }
}

/// The state the caller and the helpers share. The job closure and worker
/// count are written before the generation counter is released and read after
/// it is acquired, so the counter orders them.
final class WorkerPoolState: @unchecked Sendable {
    private let helperCount: Int
    /// Incremented (releasing) each time a job starts.
    private let generation = Atomic<Int>(0)
    /// Helpers that have not yet finished the current job. Every helper
    /// reports, also one the job does not use, so none still reads the job's
    /// fields when the caller moves on to the next.
    private let remaining = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// Wakes helpers that fell asleep between jobs.
    private let wakeUp = NSCondition()
    private var job: ((Int) -> Void)?
    private var activeWorkers = 0

    init(helperCount: Int) {
        self.helperCount = helperCount
    }

    func start(job: @escaping (Int) -> Void, workers: Int) {
        precondition(workers >= 1 && workers <= helperCount + 1, "more workers than threads")
        self.job = job
        activeWorkers = workers
        remaining.store(helperCount, ordering: .relaxed)
        wakeUp.lock()
        generation.wrappingAdd(1, ordering: .releasing)
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    /// Waits until every helper of the current job is done, then drops the job.
    func waitForHelpers() {
        var spins = 0
        while remaining.load(ordering: .acquiring) > 0 {
            spins += 1
            if spins % 1024 == 0 { sched_yield() }
        }
        job = nil
    }

    func stop() {
        wakeUp.lock()
        stopping.store(true, ordering: .releasing)
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    /// The body of helper `index` (1...helperCount): wait for a job, do this
    /// helper's share if the job uses it, report, repeat until stopped.
    func helperLoop(index: Int) {
        var seen = 0
        while true {
            var current = generation.load(ordering: .acquiring)
            var spins = 0
            while current == seen && !stopping.load(ordering: .acquiring) {
                spins += 1
                if spins > WorkerPool.spinIterations {
                    wakeUp.lock()
                    while generation.load(ordering: .acquiring) == seen && !stopping.load(ordering: .acquiring) {
                        wakeUp.wait()
                    }
                    wakeUp.unlock()
                    spins = 0
                }
                current = generation.load(ordering: .acquiring)
            }
            if stopping.load(ordering: .acquiring) { return }
            seen = current
            if index < activeWorkers, let job {
                job(index)
            }
            remaining.subtract(1, ordering: .releasing)
        }
    }
}
