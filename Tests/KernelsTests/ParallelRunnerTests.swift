import Testing

@testable import Kernels

/// `ParallelRunner.forEach` hands out every item exactly once, only to
/// threads the runner has, in ranges of at least the asked minimum; and its
/// pool stays correct over many back-to-back jobs, where a late helper must
/// not take part in a job it did not join.
@Suite struct ParallelRunnerTests {
    /// Records, per item, how often it was computed and by which thread, and
    /// the sizes of the ranges handed out. Each item also does a little work,
    /// so that helpers get a chance to claim chunks.
    struct Recorder: ParallelWork {
        let visits: UnsafeMutablePointer<Int>
        let threads: UnsafeMutablePointer<Int>
        /// Per item: the size of the range it came in.
        let rangeSizes: UnsafeMutablePointer<Int>
        let workPerItem: Int

        func run(_ items: Range<Int>, thread: Int) {
            for i in items {
                var x = Double(i)
                for _ in 0..<workPerItem { x = (x * 1.000001).squareRoot() + 1 }
                visits[i] += x >= 0 ? 1 : 2
                threads[i] = thread
                rangeSizes[i] = items.count
            }
        }
    }

    /// Runs `forEach(count, minimumPerChunk:)` once and checks what it did.
    func check(
        _ runner: ParallelRunner, count: Int, minimumPerChunk: Int, workPerItem: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let visits = UnsafeMutablePointer<Int>.allocate(capacity: max(1, count))
        let threads = UnsafeMutablePointer<Int>.allocate(capacity: max(1, count))
        let sizes = UnsafeMutablePointer<Int>.allocate(capacity: max(1, count))
        defer { visits.deallocate(); threads.deallocate(); sizes.deallocate() }
        visits.initialize(repeating: 0, count: count)
        threads.initialize(repeating: -1, count: count)
        sizes.initialize(repeating: 0, count: count)

        runner.forEach(
            count, minimumPerChunk: minimumPerChunk,
            Recorder(visits: visits, threads: threads, rangeSizes: sizes, workPerItem: workPerItem))

        let context = "\(runner.threadCount) threads, \(count) items, minimum \(minimumPerChunk)"
        let missedOrRepeated = (0..<count).filter { visits[$0] != 1 }
        #expect(
            missedOrRepeated.isEmpty,
            "\(context): items computed other than once (item, times): \(missedOrRepeated.prefix(8).map { ($0, visits[$0]) })",
            sourceLocation: sourceLocation)
        let strangers = (0..<count).filter { !(0..<runner.threadCount).contains(threads[$0]) }
        #expect(
            strangers.isEmpty, "\(context): items computed on a thread the runner lacks: \(strangers.prefix(8))",
            sourceLocation: sourceLocation)
        let small = (0..<count).filter { sizes[$0] < min(minimumPerChunk, count) }
        #expect(
            small.isEmpty, "\(context): items in ranges below the minimum: \(small.prefix(8))",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: [1, 2, 3, 7])
    func everyItemOnceOnAThreadOfTheRunner(threads: Int) {
        let runner = ParallelRunner(threadCount: threads)
        for count in [0, 1, 2, 3, 8, 15, 16, 17, 64, 1000, 4099] {
            for minimum in [1, 2, 5, 100] {
                check(runner, count: count, minimumPerChunk: minimum, workPerItem: 50)
            }
        }
    }

    /// The per-thread segments cut the chunks into contiguous runs, in
    /// thread order, that cover every chunk once and differ in size by at
    /// most one.
    @Test func segmentsPartitionTheChunksInThreadOrder() {
        for chunkCount in [1, 2, 3, 7, 16, 17, 64, 1000] {
            for threadCount in 1...9 {
                let chunks = ParallelChunks(count: chunkCount * 3, chunkCount: chunkCount)
                let segments = (0..<threadCount).map { chunks.segment(of: $0, threadCount: threadCount) }
                let context = "\(chunkCount) chunks, \(threadCount) threads: \(segments)"
                #expect(segments.first?.lowerBound == 0 && segments.last?.upperBound == chunkCount, "\(context)")
                #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound }, "\(context)")
                let sizes = segments.map(\.count)
                #expect(sizes.max()! - sizes.min()! <= 1, "\(context)")
            }
        }
    }

    /// A runner limited to fewer threads shares its pool: the other helpers
    /// must not compute items (their per-thread scratch would not exist).
    @Test func limitedRunnerUsesOnlyItsThreads() {
        let runner = ParallelRunner(threadCount: 7)
        for limit in 1...7 {
            for count in [5, 64, 1000] {
                check(runner.limited(to: limit), count: count, minimumPerChunk: 1, workPerItem: 200)
            }
        }
    }

    /// Many short jobs back to back: each one's items are all computed once,
    /// although helpers often arrive after the caller has done everything.
    @Test func manyShortJobsInARow() {
        let runner = ParallelRunner(threadCount: 2)
        for job in 0..<5000 {
            check(runner, count: 2 + job % 30, minimumPerChunk: 1, workPerItem: job % 7)
        }
    }

    /// More threads than cores, jobs of every size and of fewer threads in
    /// between: helpers are often descheduled in the middle of a claim and
    /// come back generations later, when their segment's cursor has moved on
    /// or was last claimed in a job they never saw; each item is still
    /// computed once, by a thread of its job. (A helper that claimed a chunk
    /// of a newer job as its own made this hang: hence the time limit.)
    @Test(.timeLimit(.minutes(1))) func lateHelpersAcrossGenerations() {
        let runner = ParallelRunner(threadCount: 5)
        var seed: UInt64 = 0x5EED_0F_1A7E
        print("lateHelpersAcrossGenerations seed \(seed)")
        for _ in 0..<20_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let limit = 1 + Int(seed >> 60) % 5
            let count = 1 + Int(seed >> 40) % 40
            check(runner.limited(to: limit), count: count, minimumPerChunk: 1, workPerItem: Int(seed >> 33) % 9)
        }
    }

    /// Generations wrap from 2^47 − 1 to 1; a helper tells an older one from
    /// a newer one by their distance, across the wrap too.
    @Test func generationsCompareAcrossTheWrap() {
        let last = WorkerPoolState.generationMask
        #expect(WorkerPoolState.isOlder(3, than: 4))
        #expect(!WorkerPoolState.isOlder(4, than: 3))
        #expect(!WorkerPoolState.isOlder(5, than: 5))
        #expect(WorkerPoolState.isOlder(last, than: 1))
        #expect(!WorkerPoolState.isOlder(1, than: last))
        #expect(WorkerPoolState.isOlder(0, than: last / 2))
        #expect(!WorkerPoolState.isOlder(0, than: last / 2 + 1))
        let tagged = WorkerPoolState.tagged(last, WorkerPoolState.tagMask)
        #expect(tagged > 0 && WorkerPoolState.generation(ofTagged: tagged) == last)
    }
}
