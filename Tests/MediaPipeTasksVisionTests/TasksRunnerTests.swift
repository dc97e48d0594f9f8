import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import MediaPipeTasksVision

/// Counters shared between test threads and processors.
final class TasksCounters: Sendable {
    let next = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    let active = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)

    /// Marks a processor call as running; counts an overlap if another one already was.
    func enter() {
        if active.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1 {
            overlaps.wrappingAdd(1, ordering: .relaxed)
        }
    }

    func leave() { active.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
}

/// Something a processor can capture, to observe when the runner releases it.
private final class Token: Sendable {}

private struct ProcessingFailure: Error, Equatable {
    let timestamp: Int
}

/// One live-stream callback.
private struct Delivery: Sendable {
    let output: String?
    let timestamp: Int
    let error: (any Error)?
}

private typealias Runner = VisionTaskRunner<Int, String>

/// Describes each call as "input@timestamp" plus "s" for stream modes or "i" for image mode.
private let describeFrame: Runner.Processor = { input, timestamp, isStreamMode in
    "\(input)@\(timestamp)\(isStreamMode ? "s" : "i")"
}

/// Runs `body(threadIndex)` on `count` dedicated threads that start together, and waits for
/// all of them. (Unlike `concurrentPerform`, which may run every iteration on one thread when
/// the shared pool is busy, this always has `count` threads contending.)
func runOnThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        Thread {
            ready.signal()
            start.wait()
            body(index)
            done.signal()
        }.start()
    }
    for _ in 0..<count { ready.wait() }
    for _ in 0..<count { start.signal() }
    for _ in 0..<count { done.wait() }
}

private func strictlyIncreasing(_ values: [Int]) -> Bool {
    zip(values, values.dropFirst()).allSatisfy { $0 < $1 }
}

/// A live-stream runner whose deliveries are recorded.
private func liveRunner(
    _ deliveries: TasksRecorder<Delivery>, processor: @escaping Runner.Processor = describeFrame
) -> Runner {
    Runner(mode: .liveStream({ output, timestamp, error in
        deliveries.append(Delivery(output: output, timestamp: timestamp, error: error))
    }), label: "test.live", processor: processor)
}

@Suite("Running-mode engine")
struct TasksRunnerTests {
    @Test("image mode: synthetic timestamps one second apart, not a stream")
    func imageMode() throws {
        let runner = Runner(mode: .image, label: "test.image", processor: describeFrame)
        #expect(runner.runningMode == .image)
        #expect(try runner.processImage(7) == "7@0i")
        #expect(try runner.processImage(8) == "8@1000i")
        #expect(try runner.processImage(9) == "9@2000i")
    }

    @Test("video mode: the caller's timestamps, a stream")
    func videoMode() throws {
        let runner = Runner(mode: .video, label: "test.video", processor: describeFrame)
        #expect(runner.runningMode == .video)
        #expect(try runner.processVideoFrame(1, timestampInMilliseconds: -40) == "1@-40s")
        #expect(try runner.processVideoFrame(2, timestampInMilliseconds: 0) == "2@0s")
        #expect(try runner.processVideoFrame(3, timestampInMilliseconds: 33) == "3@33s")
    }

    @Test("calls that do not match the running mode are refused")
    func modeMismatch() {
        let image = Runner(mode: .image, label: "test", processor: describeFrame)
        let video = Runner(mode: .video, label: "test", processor: describeFrame)
        let live = liveRunner(TasksRecorder())
        #expect(throws: TaskError.runningModeMismatch(required: .video, current: .image)) {
            try image.processVideoFrame(0, timestampInMilliseconds: 0)
        }
        #expect(throws: TaskError.runningModeMismatch(required: .liveStream, current: .image)) {
            try image.processLiveStreamFrame(0, timestampInMilliseconds: 0)
        }
        #expect(throws: TaskError.runningModeMismatch(required: .image, current: .video)) {
            try video.processImage(0)
        }
        #expect(throws: TaskError.runningModeMismatch(required: .liveStream, current: .video)) {
            try video.processLiveStreamFrame(0, timestampInMilliseconds: 0)
        }
        #expect(throws: TaskError.runningModeMismatch(required: .image, current: .liveStream)) {
            try live.processImage(0)
        }
        #expect(throws: TaskError.runningModeMismatch(required: .video, current: .liveStream)) {
            try live.processVideoFrame(0, timestampInMilliseconds: 0)
        }
    }

    @Test("video timestamps must increase strictly; rejected frames are not processed")
    func videoTimestamps() throws {
        let processed = TasksRecorder<Int>()
        let runner = Runner(mode: .video, label: "test") { _, timestamp, _ in
            processed.append(timestamp)
            return ""
        }
        _ = try runner.processVideoFrame(0, timestampInMilliseconds: 5)
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 5, received: 5)) {
            try runner.processVideoFrame(0, timestampInMilliseconds: 5)
        }
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 5, received: 4)) {
            try runner.processVideoFrame(0, timestampInMilliseconds: 4)
        }
        _ = try runner.processVideoFrame(0, timestampInMilliseconds: 6)
        #expect(processed.values == [5, 6])
    }

    @Test("timestamps must convert to microseconds")
    func timestampRange() throws {
        let runner = Runner(mode: .video, label: "test", processor: describeFrame)
        #expect(throws: TaskError.timestampOutOfRange(Int.min)) {
            try runner.processVideoFrame(0, timestampInMilliseconds: Int.min)
        }
        #expect(throws: TaskError.timestampOutOfRange(Int.max / 1000 + 1)) {
            try runner.processVideoFrame(0, timestampInMilliseconds: Int.max / 1000 + 1)
        }
        #expect(try runner.processVideoFrame(0, timestampInMilliseconds: Int.max / 1000) == "0@\(Int.max / 1000)s")
    }

    @Test("microsecond timestamps: one clock with milliseconds; millisecond processors see them rounded down")
    func microsecondTimestamps() throws {
        let runner = Runner(mode: .video, label: "test", processor: describeFrame)
        #expect(try runner.processVideoFrame(1, timestampInMicroseconds: -1500) == "1@-2s")
        #expect(try runner.processVideoFrame(2, timestampInMicroseconds: 33_333) == "2@33s")
        #expect(throws: TaskError.nonMonotonicMicrosecondTimestamp(previous: 33_333, received: 33_000)) {
            try runner.processVideoFrame(3, timestampInMicroseconds: 33_000)
        }
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 33, received: 33)) {
            try runner.processVideoFrame(4, timestampInMilliseconds: 33)
        }
        #expect(try runner.processVideoFrame(5, timestampInMilliseconds: 34) == "5@34s")

        let exact = Runner(microsecondMode: .video, label: "test") { input, microseconds, _ in "\(input)@\(microseconds)" }
        #expect(try exact.processVideoFrame(6, timestampInMilliseconds: 2) == "6@2000")
        #expect(try exact.processVideoFrame(7, timestampInMicroseconds: 2001) == "7@2001")

        let deliveries = TasksRecorder<Delivery>()
        let live = liveRunner(deliveries)
        try live.processLiveStreamFrame(8, timestampInMicroseconds: 66_666)
        #expect(throws: TaskError.nonMonotonicMicrosecondTimestamp(previous: 66_666, received: 66_666)) {
            try live.processLiveStreamFrame(9, timestampInMicroseconds: 66_666)
        }
        live.close()
        #expect(deliveries.values.map(\.timestamp) == [66])
        #expect(deliveries.values.map(\.output) == ["8@66s"])
    }

    @Test("a frame whose processing fails still uses up its timestamp")
    func failedFrameKeepsTimestamp() throws {
        let runner = Runner(mode: .video, label: "test") { _, timestamp, _ in
            throw ProcessingFailure(timestamp: timestamp)
        }
        #expect(throws: ProcessingFailure(timestamp: 10)) {
            try runner.processVideoFrame(0, timestampInMilliseconds: 10)
        }
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 10, received: 10)) {
            try runner.processVideoFrame(0, timestampInMilliseconds: 10)
        }
    }

    @Test("live stream: bad timestamps are refused at once and get no callback")
    func liveTimestamps() throws {
        let deliveries = TasksRecorder<Delivery>()
        let runner = liveRunner(deliveries)
        try runner.processLiveStreamFrame(1, timestampInMilliseconds: 100)
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 100, received: 100)) {
            try runner.processLiveStreamFrame(2, timestampInMilliseconds: 100)
        }
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 100, received: 99)) {
            try runner.processLiveStreamFrame(3, timestampInMilliseconds: 99)
        }
        try runner.processLiveStreamFrame(4, timestampInMilliseconds: 101)
        runner.close()
        #expect(deliveries.values.map(\.timestamp) == [100, 101])
        #expect(deliveries.values.map(\.output) == ["1@100s", "4@101s"])
    }

    @Test("live stream: one frame in flight, one queued; newer frames displace the queued one")
    func liveFlowLimiting() throws {
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let deliveries = TasksRecorder<Delivery>()
        let runner = liveRunner(deliveries) { input, timestamp, isStreamMode in
            if timestamp == 1 {
                started.signal()
                gate.wait()
            }
            return try describeFrame(input, timestamp, isStreamMode)
        }
        try runner.processLiveStreamFrame(10, timestampInMilliseconds: 1)
        #expect(started.wait(timeout: .now() + 10) == .success)
        // Frame 1 is blocked in the processor: these calls return at once, each displacing
        // the queued frame.
        for timestamp in 2...4 {
            try runner.processLiveStreamFrame(10 * timestamp, timestampInMilliseconds: timestamp)
        }
        #expect(deliveries.values.isEmpty)
        gate.signal()
        runner.close()
        #expect(deliveries.values.map(\.timestamp) == [1, 4])
        #expect(deliveries.values.map(\.output) == ["10@1s", "40@4s"])
        #expect(deliveries.values.allSatisfy { $0.error == nil })
    }

    @Test("live stream: processing errors go to the callback")
    func liveErrors() throws {
        let deliveries = TasksRecorder<Delivery>()
        let delivered = DispatchSemaphore(value: 0)
        let runner = Runner(mode: .liveStream({ output, timestamp, error in
            deliveries.append(Delivery(output: output, timestamp: timestamp, error: error))
            delivered.signal()
        }), label: "test") { input, timestamp, _ in
            if timestamp % 2 == 1 { throw ProcessingFailure(timestamp: timestamp) }
            return "\(input)"
        }
        for timestamp in 0..<4 {
            try runner.processLiveStreamFrame(timestamp, timestampInMilliseconds: timestamp)
            #expect(delivered.wait(timeout: .now() + 10) == .success)
        }
        let values = deliveries.values
        #expect(values.map(\.timestamp) == [0, 1, 2, 3])
        #expect(values.map(\.output) == ["0", nil, "2", nil])
        #expect(values.map { $0.error as? ProcessingFailure }
            == [nil, ProcessingFailure(timestamp: 1), nil, ProcessingFailure(timestamp: 3)])
    }

    @Test("live stream under load from several threads: ordered, each at most once, some dropped")
    func liveUnderLoad() {
        let counters = TasksCounters()
        let accepted = TasksRecorder<Int>()
        let processed = TasksRecorder<Int>()
        let deliveries = TasksRecorder<Delivery>()
        let runner = liveRunner(deliveries) { input, timestamp, _ in
            counters.enter()
            defer { counters.leave() }
            processed.append(timestamp)
            Thread.sleep(forTimeInterval: 0.002)
            return String(input)
        }
        let threads = 4
        let framesPerThread = 100
        runOnThreads(threads) { _ in
            for _ in 0..<framesPerThread {
                let timestamp = counters.next.wrappingAdd(1, ordering: .relaxed).newValue
                do {
                    try runner.processLiveStreamFrame(timestamp, timestampInMilliseconds: timestamp)
                    accepted.append(timestamp)
                } catch TaskError.nonMonotonicTimestamp {
                    counters.rejected.wrappingAdd(1, ordering: .relaxed)
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
        }
        runner.close()

        let acceptedSet = Set(accepted.values)
        let delivered = deliveries.values.map(\.timestamp)
        #expect(acceptedSet.count + counters.rejected.load(ordering: .relaxed) == threads * framesPerThread)
        #expect(counters.overlaps.load(ordering: .relaxed) == 0)
        #expect(strictlyIncreasing(delivered))
        #expect(delivered == processed.values)
        #expect(Set(delivered).isSubset(of: acceptedSet))
        #expect(delivered.count < acceptedSet.count, "nothing was dropped")
        #expect(delivered.first == acceptedSet.min(), "the first accepted frame is always processed")
        #expect(delivered.last == acceptedSet.max(), "the last accepted frame is never displaced")
        #expect(deliveries.values.allSatisfy { $0.error == nil && $0.output == String($0.timestamp) })
    }

    @Test("synchronous calls from several threads are serialised and ordered")
    func synchronousConcurrency() {
        let counters = TasksCounters()
        let processed = TasksRecorder<Int>()
        let returned = TasksRecorder<Int>()
        let runner = Runner(mode: .video, label: "test") { input, timestamp, _ in
            counters.enter()
            defer { counters.leave() }
            processed.append(timestamp)
            // Long enough that unserialised calls would overlap.
            Thread.sleep(forTimeInterval: 0.0002)
            return String(input)
        }
        let threads = 4
        let framesPerThread = 200
        runOnThreads(threads) { _ in
            for _ in 0..<framesPerThread {
                let timestamp = counters.next.wrappingAdd(1, ordering: .relaxed).newValue
                do {
                    let output = try runner.processVideoFrame(timestamp, timestampInMilliseconds: timestamp)
                    #expect(output == String(timestamp))
                    returned.append(timestamp)
                } catch TaskError.nonMonotonicTimestamp(let previous, let received) {
                    #expect(previous >= received)
                    counters.rejected.wrappingAdd(1, ordering: .relaxed)
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
        }
        #expect(counters.overlaps.load(ordering: .relaxed) == 0)
        #expect(strictlyIncreasing(processed.values))
        #expect(Set(processed.values) == Set(returned.values))
        #expect(returned.values.count + counters.rejected.load(ordering: .relaxed) == threads * framesPerThread)
    }

    @Test("image mode from several threads: every call gets its own synthetic timestamp")
    func imageConcurrency() {
        let processed = TasksRecorder<Int>()
        let runner = Runner(mode: .image, label: "test") { _, timestamp, isStreamMode in
            #expect(!isStreamMode)
            processed.append(timestamp)
            return ""
        }
        runOnThreads(4) { _ in
            for _ in 0..<25 {
                do { _ = try runner.processImage(0) } catch { Issue.record("unexpected \(error)") }
            }
        }
        #expect(processed.values == (0..<100).map { $0 * 1000 })
    }

    @Test("close refuses further calls and releases the processor")
    func closeSynchronous() throws {
        weak var weakToken: Token?
        let runner: Runner
        do {
            let token = Token()
            weakToken = token
            runner = Runner(mode: .video, label: "test") { _, _, _ in
                withExtendedLifetime(token) { "" }
            }
        }
        _ = try runner.processVideoFrame(0, timestampInMilliseconds: 0)
        #expect(weakToken != nil)
        runner.close()
        #expect(weakToken == nil)
        #expect(throws: TaskError.closed) { try runner.processVideoFrame(0, timestampInMilliseconds: 1) }
        runner.close()

        let image = Runner(mode: .image, label: "test", processor: describeFrame)
        image.close()
        #expect(throws: TaskError.closed) { try image.processImage(0) }
    }

    @Test("close waits for the live-stream frames in flight and queued")
    func closeWaitsForLiveFrames() throws {
        let deliveries = TasksRecorder<Delivery>()
        let runner = liveRunner(deliveries) { input, timestamp, isStreamMode in
            Thread.sleep(forTimeInterval: 0.05)
            return try describeFrame(input, timestamp, isStreamMode)
        }
        try runner.processLiveStreamFrame(1, timestampInMilliseconds: 1)
        try runner.processLiveStreamFrame(2, timestampInMilliseconds: 2)
        runner.close()
        #expect(deliveries.values.map(\.timestamp) == [1, 2])
        #expect(throws: TaskError.closed) { try runner.processLiveStreamFrame(3, timestampInMilliseconds: 3) }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(deliveries.values.count == 2)
    }

    @Test("the live-stream handler may close the runner or submit more frames")
    func reentrantHandler() throws {
        let owner = WeakReference<Runner>(nil)
        let deliveries = TasksRecorder<Int>()
        let finished = DispatchSemaphore(value: 0)
        let runner = Runner(mode: .liveStream({ _, timestamp, _ in
            deliveries.append(timestamp)
            guard let runner = owner.object else { return }
            if timestamp < 5 {
                do {
                    try runner.processLiveStreamFrame(0, timestampInMilliseconds: timestamp + 1)
                } catch {
                    Issue.record("unexpected \(error)")
                }
            } else {
                runner.close()
                finished.signal()
            }
        }), label: "test", processor: describeFrame)
        owner.object = runner
        try runner.processLiveStreamFrame(0, timestampInMilliseconds: 0)
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(throws: TaskError.closed) { try runner.processLiveStreamFrame(0, timestampInMilliseconds: 100) }
        runner.close()
        #expect(deliveries.values == [0, 1, 2, 3, 4, 5])
    }

    @Test("releasing a live-stream runner lets accepted frames finish, then frees it")
    func releaseWithoutClose() throws {
        let gate = DispatchSemaphore(value: 0)
        let delivered = DispatchSemaphore(value: 0)
        weak var weakRunner: Runner?
        do {
            let runner = Runner(mode: .liveStream({ _, _, _ in delivered.signal() }), label: "test") { _, _, _ in
                gate.wait()
                return ""
            }
            weakRunner = runner
            try runner.processLiveStreamFrame(0, timestampInMilliseconds: 0)
        }
        #expect(weakRunner != nil, "the frame in flight keeps the runner alive")
        gate.signal()
        #expect(delivered.wait(timeout: .now() + 10) == .success)
        let deadline = Date().addingTimeInterval(10)
        while weakRunner != nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(weakRunner == nil)
    }
}
