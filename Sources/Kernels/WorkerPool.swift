import Dispatch
import Synchronization
import SystemInterface
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Helper threads that share one parallel job at a time with the calling
/// thread, with low wake-up latency and no allocation per job.
///
/// A job is `count` items of a `ParallelWork` value cut into `chunkCount`
/// contiguous chunks, and the chunks into one contiguous segment per thread.
/// Each thread claims the chunks of its own segment first, one at a time,
/// then helps with what is left of the others' segments. So when every
/// thread is on time, thread t computes the same part of the output in every
/// operator: the rows one layer writes are, mostly, read by the next layer on
/// the core whose cache holds them. (With one shared counter, chunks went to
/// whichever thread asked first, so a layer's input was as likely to sit in
/// another core's cache; `Benchmarks/JOURNAL.md`, the "Threads" entries, has the
/// measurements.) When a helper is late (asleep, or descheduled
/// by another process on a busy machine) the caller simply does its chunks
/// instead of waiting for a fixed share. The caller waits only for helpers
/// that joined the job and are still finishing a chunk.
///
/// Helpers are told about a job through `gate`, one word that holds the job's
/// generation, a closed flag and the number of helpers taking part. A helper
/// joins by incrementing that number while the generation it saw is still
/// open; the caller closes the job once every chunk is claimed and returns
/// when the number is back to zero. A helper that arrives after the close,
/// however late, sees a closed or newer generation and cannot claim chunks of
/// a job it did not join, nor read a job that is being replaced.
///
/// Between jobs a helper spins on `gate` for a short while (operators of one
/// invocation follow each other within microseconds, far sooner than a
/// sleeping thread wakes up), yielding its core now and then in case the
/// caller shares it, then sleeps on a condition variable. A caller left
/// waiting for a helper spins briefly, then sleeps until the last helper
/// leaves.
final class WorkerPool: @unchecked Sendable {
    /// Spin iterations an idle helper waits for the next job before it
    /// sleeps. It yields its core every `spinsPerYield` iterations, so that a
    /// thread sharing the core (the caller, or another process) is not held
    /// up for more than about a microsecond and a half; on an otherwise idle
    /// core all of them take about 0.17 ms (Zen 5: an iteration 1.3 ns, a
    /// `sched_yield` 0.35 µs).
    static let helperSpinIterations = 100_000
    /// A helper inside `sched_yield` when a job opens joins it only once the
    /// call returns: yielding every 64 iterations kept it there four fifths
    /// of its spin, and every 1024 made face_detection_short_range and
    /// hand_recrop 3–4 % faster at two threads (`Benchmarks/JOURNAL.md`, "The
    /// helper's yields"), and no slower beside a process that keeps a core busy.
    static let spinsPerYield = 1024
    /// Spin iterations a caller waits for helpers to finish their chunks
    /// before it sleeps (about 15 µs).
    static let callerSpinIterations = 20_000

    private let state: WorkerPoolState

    /// Starts `helperCount` helper threads; they are threads `1...helperCount`
    /// of every job, the calling thread being thread 0.
    init(helperCount: Int) {
        state = WorkerPoolState(threadCapacity: helperCount + 1)
        for helper in 1...helperCount {
            let state = self.state
            DispatchQueue(label: "landmarker.kernels.worker.\(helper)").async {
                state.helperLoop(thread: helper)
            }
        }
    }

    deinit { state.stop() }

    /// Runs `work` over `0..<count` in `chunkCount` chunks on threads
    /// `0..<threadCount` — thread 0 being the calling thread — and returns
    /// when every chunk is done. `threadCount` must be at most
    /// `helperCount + 1`. Allocates nothing: helpers read `work` through a
    /// pointer to the caller's value.
    func run<Work: ParallelWork>(_ work: Work, count: Int, chunkCount: Int, threadCount: Int) {
        withUnsafePointer(to: work) { pointer in
            let job = WorkerPoolJob(
                work: UnsafeRawPointer(pointer), workType: Work.self,
                chunks: ParallelChunks(count: count, chunkCount: chunkCount), threadCount: threadCount)
            state.open(job)
            state.claimChunks(of: Work.self, job: job, thread: 0)
            state.closeAndWait()
        }
    }
}

/// One job as the caller publishes it to the helpers.
struct WorkerPoolJob {
    /// The caller's `ParallelWork` value, alive until the job is closed.
    let work: UnsafeRawPointer
    /// Its type, so that a helper can call its `run`.
    let workType: any ParallelWork.Type
    let chunks: ParallelChunks
    /// Threads that may take part (the caller is thread 0).
    let threadCount: Int
}

/// `count` items cut into `chunkCount` contiguous chunks whose sizes differ by
/// at most one.
struct ParallelChunks {
    let count: Int
    let chunkCount: Int

    init(count: Int, chunkCount: Int) {
        precondition(count >= 0 && chunkCount >= 1, "no chunks to cut")
        self.count = count
        self.chunkCount = chunkCount
    }

    /// The items of chunk `index` (`0..<chunkCount`).
    func items(_ index: Int) -> Range<Int> {
        let base = count / chunkCount, extra = count % chunkCount
        // index·base ≤ count and min(index, extra) < chunkCount: no overflow.
        let start = index * base + min(index, extra)
        return start..<(start + base + (index < extra ? 1 : 0))
    }

    /// The chunks that thread `thread` of `threadCount` claims first: one
    /// contiguous segment per thread, in thread order, whose sizes differ by
    /// at most one.
    func segment(of thread: Int, threadCount: Int) -> Range<Int> {
        // thread < threadCount and chunkCount is a chunk count of items in
        // memory: these products do not overflow.
        (chunkCount * thread / threadCount)..<(chunkCount * (thread + 1) / threadCount)
    }
}

/// A chunk counter padded to 128 bytes: in an array, no two counters share a
/// cache line, so threads claiming from their own segments do not contend.
struct SegmentCursor: ~Copyable {
    /// The next chunk to claim in the segment.
    let next = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

/// The state the caller and the helpers share.
final class WorkerPoolState: @unchecked Sendable {
    /// Bits 32–63: generation of the latest job; bit 31: that job is closed
    /// to helpers that have not joined; bits 0–30: helpers taking part.
    private let gate = Atomic<Int>(WorkerPoolState.closedBit)
    /// Per thread of the current job, the next chunk to claim in its segment.
    private let cursors: UnsafeMutablePointer<SegmentCursor>
    private let threadCapacity: Int
    private let stopping = Atomic<Bool>(false)
    /// Helpers asleep (or about to sleep) on `wakeUp`.
    private let sleepers = Atomic<Int>(0)
    private let wakeUp = ConditionLock()
    /// Whether the caller sleeps on `finished` until the last helper leaves.
    private let callerSleeps = Atomic<Bool>(false)
    private let finished = ConditionLock()
    /// The current job: written by the caller while no helper takes part,
    /// read by helpers only between joining and leaving.
    private let job = UnsafeMutablePointer<WorkerPoolJob?>.allocate(capacity: 1)

    static let closedBit = 1 << 31
    static let participantMask = closedBit - 1
    static let generationShift = 32

    /// State for jobs of at most `threadCapacity` threads.
    init(threadCapacity: Int) {
        self.threadCapacity = threadCapacity
        cursors = .allocate(capacity: threadCapacity)
        for thread in 0..<threadCapacity { (cursors + thread).initialize(to: SegmentCursor()) }
        job.initialize(to: nil)
    }

    deinit {
        job.deinitialize(count: 1)
        job.deallocate()
        cursors.deinitialize(count: threadCapacity)
        cursors.deallocate()
    }

    private static func generation(_ gate: Int) -> Int { gate >> generationShift }

    /// Publishes `job` under a new generation and wakes sleeping helpers.
    /// The previous job must be closed and left by every helper.
    func open(_ job: WorkerPoolJob) {
        let previous = gate.load(ordering: .relaxed)
        precondition(previous & Self.participantMask == 0, "a job is still running")
        precondition(job.threadCount <= threadCapacity, "more threads than the pool has")
        self.job.pointee = job
        for thread in 0..<job.threadCount {
            cursors[thread].next.store(
                job.chunks.segment(of: thread, threadCount: job.threadCount).lowerBound, ordering: .relaxed)
        }
        // The generation wraps after 2^31 jobs; a helper only compares it
        // for equality with the one it last saw.
        let generation = (Self.generation(previous) &+ 1) & ((1 << 31) - 1)
        // Sequentially consistent with `sleepers` below, and with the
        // sleeping helper's increment and re-check: either this sees the
        // sleeper or the sleeper sees this generation.
        gate.store(generation << Self.generationShift, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            wakeUp.lock()
            wakeUp.broadcast()
            wakeUp.unlock()
        }
    }

    /// Claims and runs chunks of the current job on `thread` until none is
    /// left: those of its own segment, then those left in the segments of
    /// threads `thread + 1`, `thread + 2`, … (wrapping). Called by the caller
    /// with the job's type, by helpers through the job's `workType`.
    func claimChunks<Work: ParallelWork & ~Copyable>(of type: Work.Type, job: WorkerPoolJob, thread: Int) {
        let work = job.work.assumingMemoryBound(to: Work.self)
        let threads = job.threadCount
        for offset in 0..<threads {
            let owner = (thread + offset) % threads
            let end = job.chunks.segment(of: owner, threadCount: threads).upperBound
            while true {
                // A claim past the segment's end is harmless: the cursor is
                // reset when the next job opens.
                let chunk = cursors[owner].next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard chunk < end else { break }
                work.pointee.run(job.chunks.items(chunk), thread: thread)
            }
        }
    }

    /// Stops helpers from joining the current job, then waits until those
    /// that joined have left; their writes are then visible here.
    ///
    /// A helper still at work is usually one chunk from done, so the caller
    /// spins briefly; then it sleeps until the last helper leaves. Sleeping
    /// matters on a busy machine: a helper that another process preempted in
    /// the middle of a chunk waits for its core while this one spins, but
    /// once this core is idle the kernel moves the helper onto it.
    func closeAndWait() {
        gate.bitwiseOr(Self.closedBit, ordering: .acquiringAndReleasing)
        var spins = 0
        while gate.load(ordering: .acquiring) & Self.participantMask != 0 {
            spins += 1
            if spins > WorkerPool.callerSpinIterations {
                finished.lock()
                // Sequentially consistent with the leaving helper's
                // decrement and check: either this sees no participant or
                // the last one sees this flag and signals.
                callerSleeps.store(true, ordering: .sequentiallyConsistent)
                while gate.load(ordering: .sequentiallyConsistent) & Self.participantMask != 0 {
                    finished.wait()
                }
                callerSleeps.store(false, ordering: .relaxed)
                finished.unlock()
                return
            }
        }
    }

    func stop() {
        wakeUp.lock()
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    /// The body of helper `thread` (≥ 1): wait for a job of a new
    /// generation, join it if it is still open, claim chunks, leave; repeat
    /// until stopped.
    func helperLoop(thread: Int) {
        var seen = 0
        while let observed = waitForGeneration(after: seen) {
            seen = Self.generation(observed)
            guard join(observed) else { continue }
            if let job = job.pointee, thread < job.threadCount {
                claimChunks(of: job.workType, job: job, thread: thread)
            }
            // Releasing (as sequentially consistent): the caller's acquiring
            // load of a zero count sees this helper's writes. Sequentially
            // consistent with `callerSleeps`, as in `closeAndWait`.
            let before = gate.wrappingSubtract(1, ordering: .sequentiallyConsistent).oldValue
            if before & Self.participantMask == 1 && callerSleeps.load(ordering: .sequentiallyConsistent) {
                finished.lock()
                finished.signal()
                finished.unlock()
            }
        }
    }

    /// Joins the job of `observed`'s generation if it is still open.
    private func join(_ observed: Int) -> Bool {
        var current = observed
        while current & Self.closedBit == 0
            && Self.generation(current) == Self.generation(observed) {
            // Acquiring: the job fields written before the gate was opened
            // are visible after joining.
            let (joined, found) = gate.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiring)
            if joined { return true }
            current = found
        }
        return false
    }

    /// Spins, then sleeps, until the gate shows a generation other than
    /// `seen`; returns the gate, or nil when the pool stops.
    private func waitForGeneration(after seen: Int) -> Int? {
        var spins = 0
        while true {
            if stopping.load(ordering: .relaxed) { return nil }
            let current = gate.load(ordering: .acquiring)
            if Self.generation(current) != seen { return current }
            spins += 1
            // Costs about 0.35 µs (Zen 5) when no other thread wants the core.
            if spins % WorkerPool.spinsPerYield == 0 { sched_yield() }
            if spins > WorkerPool.helperSpinIterations {
                wakeUp.lock()
                sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
                while Self.generation(gate.load(ordering: .sequentiallyConsistent)) == seen
                    && !stopping.load(ordering: .sequentiallyConsistent) {
                    wakeUp.wait()
                }
                sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                wakeUp.unlock()
                spins = 0
            }
        }
    }
}
