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
/// instead of waiting for a fixed share. The caller waits only for chunks
/// that helpers claimed and are still finishing.
///
/// Helpers learn of a job from one cache line the caller writes, and each
/// thread claims chunks through a cursor of its own segment tagged with the
/// job's generation, so that a job moves few lines between cores and a
/// helper that arrives late, however late, cannot claim a chunk of a job
/// that is over (`WorkerPoolState` has the protocol). The caller returns once
/// the helpers report having finished every chunk it did not do itself.
///
/// Between jobs a helper spins on the announcement for a short while
/// (operators of one invocation follow each other within microseconds, far
/// sooner than a sleeping thread wakes up), yielding its core now and then in
/// case the caller shares it, then sleeps on a condition variable. A caller left
/// waiting for a helper spins briefly, then sleeps until the helpers have
/// reported every chunk.
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
            let generation = state.publish(job)
            let ownChunks = state.claimChunks(of: Work.self, job: job, generation: generation, thread: 0)
            state.waitForHelpers(of: job, generation: generation, ownChunks: ownChunks)
        }
    }
}

/// One job as the caller publishes it to the helpers: pointers, a metatype and
/// integers only, so that it can be published as words (`Words`).
struct WorkerPoolJob {
    /// The caller's `ParallelWork` value, alive until every chunk is done.
    let work: UnsafeRawPointer
    /// Its type, so that a helper can call its `run`.
    let workType: any ParallelWork.Type
    let chunks: ParallelChunks
    /// Threads that may take part (the caller is thread 0).
    let threadCount: Int

    /// The job's six machine words, as `WorkerPoolState` publishes them.
    typealias Words = (UInt, UInt, UInt, UInt, UInt, UInt)
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

/// An atomic word alone in 128 bytes: in an array, no two share a cache line
/// (nor the pair of lines a core's adjacent-line prefetcher fetches together).
struct PaddedAtomic: ~Copyable {
    let value = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

/// The state the caller and the helpers share.
///
/// Jobs are numbered by generation (1, 2, …; the caller's count). Three kinds
/// of memory carry them, each written mostly by one thread so that a job moves
/// few cache lines between cores:
/// - the announcement, one cache line the caller writes and helpers spin on:
///   a sequence number (2g once job g is published, 2g − 1 while the caller
///   writes it) and the job's words, read by a helper as a seqlock;
/// - per thread, the cursor of its segment: the generation of the job that
///   last claimed from it and the next chunk. The owner claims from its own
///   segment without a line moving; only a thread that helps with another's
///   segment pulls that segment's line. A cursor of an older generation
///   stands at its segment's start, so nobody resets cursors between jobs;
/// - per helper, its completion count: the generation and how many chunks it
///   has finished in it. The caller reads these until the job's every chunk
///   is done.
/// A claim compares the cursor's generation with the job's, so a helper that
/// arrives late, even after the caller has published newer jobs, cannot
/// claim a chunk of a job that is over (every chunk of a finished job is
/// claimed, so its cursors stand at their ends or at newer generations).
final class WorkerPoolState: @unchecked Sendable {
    /// Word 0: the sequence number; words 1...6: the job (`WorkerPoolJob.Words`).
    private let announcement: UnsafeMutablePointer<Atomic<UInt>>
    /// Per thread: `tagged(generation, next chunk of its segment)`.
    private let cursors: UnsafeMutablePointer<PaddedAtomic>
    /// Per thread (the caller's unused): `tagged(generation, chunks finished)`.
    private let completions: UnsafeMutablePointer<PaddedAtomic>
    private let threadCapacity: Int
    private let stopping = Atomic<Bool>(false)
    /// Helpers asleep (or about to sleep) on `wakeUp`.
    private let sleepers = Atomic<Int>(0)
    private let wakeUp = ConditionLock()
    /// Whether the caller sleeps on `finished` until the helpers' last chunks are done.
    private let callerSleeps = Atomic<Bool>(false)
    private let finished = ConditionLock()

    /// Bits of a tagged word below the generation: chunk indices and counts
    /// stay under 2^16 (a job has at most 8 chunks a thread).
    static let tagShift = 16
    static let tagMask = (1 << tagShift) - 1
    /// Generations count from 1 to 2^47 − 1, the bits of a tagged word above
    /// the tag (the sign bit unused), then from 1 again: at a job a
    /// microsecond they wrap after four years, and helpers compare them as
    /// distances (`isOlder`), which stay right while none is 2^46 jobs late.
    static let generationMask = (1 << (63 - tagShift)) - 1
    static let announcementWords = 7

    @inline(__always)
    static func tagged(_ generation: Int, _ value: Int) -> Int { generation << tagShift | value }

    /// The generation of a tagged word.
    @inline(__always)
    static func generation(ofTagged word: Int) -> Int { word >> tagShift }

    /// Whether generation `earlier` came before `later` (modulo 2^47).
    @inline(__always)
    static func isOlder(_ earlier: Int, than later: Int) -> Bool {
        let distance = (later &- earlier) & generationMask
        return distance != 0 && distance <= generationMask / 2
    }

    /// State for jobs of at most `threadCapacity` threads.
    init(threadCapacity: Int) {
        self.threadCapacity = threadCapacity
        announcement = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 128)
            .bindMemory(to: Atomic<UInt>.self, capacity: Self.announcementWords)
        for word in 0..<Self.announcementWords { (announcement + word).initialize(to: Atomic(0)) }
        func paddedAtomics() -> UnsafeMutablePointer<PaddedAtomic> {
            let atomics = UnsafeMutableRawPointer.allocate(
                byteCount: threadCapacity * MemoryLayout<PaddedAtomic>.stride, alignment: 128
            ).bindMemory(to: PaddedAtomic.self, capacity: threadCapacity)
            for thread in 0..<threadCapacity { (atomics + thread).initialize(to: PaddedAtomic()) }
            return atomics
        }
        cursors = paddedAtomics()
        completions = paddedAtomics()
    }

    deinit {
        announcement.deinitialize(count: Self.announcementWords)
        UnsafeMutableRawPointer(announcement).deallocate()
        cursors.deinitialize(count: threadCapacity)
        UnsafeMutableRawPointer(cursors).deallocate()
        completions.deinitialize(count: threadCapacity)
        UnsafeMutableRawPointer(completions).deallocate()
    }

    /// Publishes `job` under the next generation, which it returns, and wakes
    /// sleeping helpers. The previous job must be done.
    func publish(_ job: WorkerPoolJob) -> Int {
        precondition(job.threadCount <= threadCapacity, "more threads than the pool has")
        precondition(job.chunks.chunkCount <= Self.tagMask, "more chunks than a cursor counts")
        // The latest generation is read from the sequence number, which only
        // the caller writes, not kept in a field of its own: any field of this
        // object shares a cache line with the flags the helpers read while they
        // spin (`stopping`, `callerSleeps`), so writing one for every job would
        // take that line from them and give it back at every hand-over.
        let latest = Int(announcement[0].load(ordering: .relaxed) / 2)
        // 1...generationMask: the sequence number 2g − 1 stays positive.
        let generation = latest == Self.generationMask ? 1 : latest + 1
        let words = unsafeBitCast(job, to: WorkerPoolJob.Words.self)
        announcement[0].store(UInt(2 * generation - 1), ordering: .relaxed)
        // The odd number is visible before any word of the new job.
        atomicMemoryFence(ordering: .releasing)
        announcement[1].store(words.0, ordering: .relaxed)
        announcement[2].store(words.1, ordering: .relaxed)
        announcement[3].store(words.2, ordering: .relaxed)
        announcement[4].store(words.3, ordering: .relaxed)
        announcement[5].store(words.4, ordering: .relaxed)
        announcement[6].store(words.5, ordering: .relaxed)
        // Releasing the words. Not ordered with the load of `sleepers` (a
        // fence here would hold the caller until every spinning helper's copy
        // of the line is invalidated): a helper that goes to sleep just as
        // this job opens may miss it, which costs nothing but its help, since
        // the caller waits only for chunks that helpers have claimed; the next
        // job's publication sees it asleep and wakes it.
        announcement[0].store(UInt(2 * generation), ordering: .releasing)
        if sleepers.load(ordering: .relaxed) > 0 {
            wakeUp.lock()
            wakeUp.broadcast()
            wakeUp.unlock()
        }
        return generation
    }

    /// The published job after generation `seen`, or nil while there is
    /// none (or the caller is writing one).
    private func newerJob(after seen: Int) -> (generation: Int, job: WorkerPoolJob)? {
        let sequence = announcement[0].load(ordering: .acquiring)
        guard sequence & 1 == 0, Int(sequence / 2) != seen else { return nil }
        let words = (
            announcement[1].load(ordering: .relaxed), announcement[2].load(ordering: .relaxed),
            announcement[3].load(ordering: .relaxed), announcement[4].load(ordering: .relaxed),
            announcement[5].load(ordering: .relaxed), announcement[6].load(ordering: .relaxed))
        // The words are read before the sequence number is read again: if it
        // has not changed, they are all the job's.
        atomicMemoryFence(ordering: .acquiring)
        guard announcement[0].load(ordering: .relaxed) == sequence else { return nil }
        return (Int(sequence / 2), unsafeBitCast(words, to: WorkerPoolJob.self))
    }

    /// Claims and runs chunks of job `generation` on `thread` until none is
    /// left: those of its own segment, then those left in the segments of
    /// threads `thread + 1`, `thread + 2`, … (wrapping). Returns how many it
    /// ran. Called by the caller with the job's type, by helpers through the
    /// job's `workType`; a helper reports each finished chunk.
    func claimChunks<Work: ParallelWork & ~Copyable>(
        of type: Work.Type, job: WorkerPoolJob, generation: Int, thread: Int
    ) -> Int {
        let work = job.work.assumingMemoryBound(to: Work.self)
        let threads = job.threadCount
        var finishedChunks = 0
        for offset in 0..<threads {
            let owner = (thread + offset) % threads
            let segment = job.chunks.segment(of: owner, threadCount: threads)
            if segment.isEmpty { continue }
            var cursor = cursors[owner].value.load(ordering: .relaxed)
            while true {
                let cursorGeneration = Self.generation(ofTagged: cursor)
                let chunk: Int
                if cursorGeneration == generation {
                    chunk = cursor & Self.tagMask
                } else if thread == 0 || Self.isOlder(cursorGeneration, than: generation) {
                    // The caller publishes every job: for it, any other
                    // generation is older, even one that a segment no thread
                    // has claimed from in 2^46 jobs still shows.
                    chunk = segment.lowerBound
                } else {
                    // A newer job's: this one is over, and a helper this late has nothing to do.
                    return finishedChunks
                }
                if chunk >= segment.upperBound { break }
                // Acquiring and releasing: claims of one segment are ordered,
                // so a claim of this generation is never undone by a late one.
                let (claimed, found) = cursors[owner].value.compareExchange(
                    expected: cursor, desired: Self.tagged(generation, chunk + 1),
                    ordering: .acquiringAndReleasing)
                guard claimed else {
                    cursor = found
                    continue
                }
                work.pointee.run(job.chunks.items(chunk), thread: thread)
                finishedChunks += 1
                if thread != 0 { reportFinished(finishedChunks, generation: generation, thread: thread) }
                cursor = Self.tagged(generation, chunk + 1)
            }
        }
        return finishedChunks
    }

    /// Helper `thread` has finished `count` chunks of job `generation`.
    private func reportFinished(_ count: Int, generation: Int, thread: Int) {
        // Releasing the chunk's writes (as sequentially consistent);
        // sequentially consistent with `callerSleeps`, as in `waitForHelpers`.
        completions[thread].value.store(Self.tagged(generation, count), ordering: .sequentiallyConsistent)
        if callerSleeps.load(ordering: .sequentiallyConsistent) {
            finished.lock()
            finished.signal()
            finished.unlock()
        }
    }

    /// Chunks of job `generation` the helpers have finished; each report is
    /// read acquiring, or sequentially consistent where `sequentiallyConsistent`.
    private func chunksFinishedByHelpers(
        generation: Int, threadCount: Int, sequentiallyConsistent: Bool = false
    ) -> Int {
        var count = 0
        for thread in 1..<threadCount {
            let completion = sequentiallyConsistent
                ? completions[thread].value.load(ordering: .sequentiallyConsistent)
                : completions[thread].value.load(ordering: .acquiring)
            if Self.generation(ofTagged: completion) == generation { count += completion & Self.tagMask }
        }
        return count
    }

    /// Returns once the helpers have finished the chunks of job `generation`
    /// that the caller did not (`ownChunks` of them); their writes are then
    /// visible here. Every chunk has been claimed.
    ///
    /// A helper still at work is usually one chunk from done, so the caller
    /// spins briefly; then it sleeps until the helpers report the rest.
    /// Sleeping matters on a busy machine: a helper that another process
    /// preempted in the middle of a chunk waits for its core while this one
    /// spins, but once this core is idle the kernel moves the helper onto it.
    func waitForHelpers(of job: WorkerPoolJob, generation: Int, ownChunks: Int) {
        let helperChunks = job.chunks.chunkCount - ownChunks
        if helperChunks == 0 { return }
        var spins = 0
        while chunksFinishedByHelpers(generation: generation, threadCount: job.threadCount) != helperChunks {
            spins += 1
            if spins > WorkerPool.callerSpinIterations {
                finished.lock()
                // Sequentially consistent with the helpers' reports: either
                // this sees the last one or its helper sees this flag and signals.
                callerSleeps.store(true, ordering: .sequentiallyConsistent)
                while chunksFinishedByHelpers(
                    generation: generation, threadCount: job.threadCount, sequentiallyConsistent: true)
                    != helperChunks {
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

    /// The body of helper `thread` (≥ 1): wait for a job of a newer
    /// generation, claim chunks of it if it is one for this thread; repeat
    /// until stopped.
    func helperLoop(thread: Int) {
        var seen = 0
        while let (generation, job) = waitForJob(after: seen) {
            seen = generation
            if thread < job.threadCount {
                _ = claimChunks(of: job.workType, job: job, generation: generation, thread: thread)
            }
        }
    }

    /// Spins, then sleeps, until a job newer than generation `seen` is
    /// published; returns it, or nil when the pool stops.
    private func waitForJob(after seen: Int) -> (generation: Int, job: WorkerPoolJob)? {
        var spins = 0
        while true {
            if stopping.load(ordering: .relaxed) { return nil }
            if let newer = newerJob(after: seen) { return newer }
            spins += 1
            // Costs about 0.35 µs (Zen 5) when no other thread wants the core.
            if spins % WorkerPool.spinsPerYield == 0 { sched_yield() }
            if spins > WorkerPool.helperSpinIterations {
                wakeUp.lock()
                sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
                while announcement[0].load(ordering: .sequentiallyConsistent) == UInt(2 * seen)
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
