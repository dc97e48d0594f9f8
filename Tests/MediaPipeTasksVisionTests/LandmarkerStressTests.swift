import Dispatch
import Foundation
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// Records the live-stream results of one pose landmarker. They arrive on the landmarker's
/// queue while the test threads submit, so every field is guarded by `lock` (an `NSCondition`,
/// a pthread mutex whose hand-over the thread sanitizer sees).
final class PoseLiveStreamLog: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
    struct Delivery {
        let timestamp: Int
        let result: PoseLandmarkerResult?
        let error: (any Error)?
        /// The delegate's first argument, to check it is the landmarker that was fed.
        let landmarker: ObjectIdentifier
    }

    private let lock = NSCondition()
    private var log: [Delivery] = []
    private var isClosed = false
    private var lateCount = 0

    var deliveries: [Delivery] { lock.withLock { log } }
    /// Results that arrived after `markClosed()`.
    var deliveriesAfterClose: Int { lock.withLock { lateCount } }

    /// Call once `close()` has returned: any later result is counted as late.
    func markClosed() { lock.withLock { isClosed = true } }

    /// Waits until more than `count` results have arrived; false after `timeout` seconds.
    func waitForDeliveries(moreThan count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while log.count <= count {
            if !lock.wait(until: deadline) { return false }
        }
        return true
    }

    func poseLandmarker(
        _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        lock.withLock {
            if isClosed { lateCount += 1 }
            log.append(Delivery(timestamp: timestampInMilliseconds, result: result, error: error,
                                landmarker: ObjectIdentifier(poseLandmarker)))
            lock.broadcast()
        }
    }
}

/// Landmarkers shared between threads and landmarkers running side by side, with real models on
/// real frames. CI runs this suite under the thread sanitizer
/// (`swift test --sanitize=thread --filter LandmarkerStressTests`), so it also proves the
/// absence of data races in the task layer, the pipelines and the kernels' worker threads.
@Suite struct LandmarkerStressTests {
    static let liveSubmitters = 4
    static let liveFramesPerSubmitter = 2_500
    /// After each block of this many submissions a submitter waits for a result newer than the
    /// block's start, so submissions and deliveries overlap however slow the build is.
    static let liveSubmissionsPerCheckpoint = 250
    /// Every this many timestamps, the submitter pauses between taking it and submitting.
    static let delayedSubmissionPeriod = 16
    static let videoLandmarkers = 4
    static let videoFramesPerLandmarker = 24

    /// The frames of the fixture clip (a person reaching towards the camera) on which the
    /// detector finds the person, as MediaPipe's image mode does, decoded once.
    static func clipFrames() throws -> [MPImage] {
        try [15, 16, 20, 21, 22, 23, 26, 47].map { index in
            try MPImage(contentsOfFile: Fixtures.path(String(format: "video/t1_sweep/frame_%04d.png", index)))
        }
    }

    /// The pose landmarker bundle; a missing one fails the test with a message saying so.
    static func poseBundlePath() throws -> String {
        let path = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        try #require(FileManager.default.fileExists(atPath: path), "missing model \(path): run models/fetch_models.sh")
        return path
    }

    static func poseLandmarker(
        _ mode: RunningMode, threads: Int = 1, delegate: (any PoseLandmarkerLiveStreamDelegate)? = nil
    ) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try poseBundlePath()
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.poseLandmarkerLiveStreamDelegate = delegate
        return try PoseLandmarker(options: options)
    }

    /// Four threads feed 2,500 live-stream frames each to one landmarker, taking timestamps from
    /// one shared counter, while four more threads each load their own video-mode landmarker and
    /// run a few dozen frames through it. Every 250 frames a submitter waits for a new result
    /// (there always is one coming: the newest accepted frame is never dropped), so the
    /// submissions overlap at least ten deliveries instead of ending while the first frame runs.
    ///
    /// Timestamps: a thread may take a timestamp from the counter and be overtaken by another
    /// before it submits, so its frame arrives older than the last accepted one. The landmarker
    /// refuses such a frame at once with `TaskError.nonMonotonicTimestamp` (the documented
    /// contract for concurrent submitters); the test counts those. Every accepted frame is then
    /// either delivered exactly once, in increasing timestamp order, or dropped, which the caller
    /// can tell from a later timestamp being delivered first; the last accepted frame is always
    /// delivered, and nothing is delivered after `close()` returns.
    @Test func sharedLiveStreamLandmarkerBesidePrivateVideoLandmarkers() throws {
        let frames = try Self.clipFrames()
        // The clip's person is often cut off at the head; the photo gives clear poses.
        let liveFrames = try [MPImage(contentsOfFile: Fixtures.path("images/bus_man.png"))] + frames
        let log = PoseLiveStreamLog()
        let live = try Self.poseLandmarker(.liveStream, threads: 2, delegate: log)
        let counters = TasksCounters()
        let accepted = TasksRecorder<Int>()
        let refused = TasksRecorder<(timestamp: Int, previous: Int, received: Int)>()
        let failures = TasksRecorder<String>()
        let videoRuns = TasksRecorder<(landmarker: Int, results: [PoseLandmarkerResult])>()

        runOnThreads(Self.liveSubmitters + Self.videoLandmarkers) { thread in
            if thread < Self.liveSubmitters {
                var deliveriesAtCheckpoint = 0
                for submission in 0..<Self.liveFramesPerSubmitter {
                    if submission % Self.liveSubmissionsPerCheckpoint == 0 {
                        deliveriesAtCheckpoint = log.deliveries.count
                    }
                    let timestamp = counters.next.wrappingAdd(1, ordering: .relaxed).newValue
                    // Now and then a submitter is held up between taking its timestamp and
                    // submitting, as a preempted thread would be, so that others overtake it.
                    if timestamp % Self.delayedSubmissionPeriod == 0 { Thread.sleep(forTimeInterval: 0.0002) }
                    do {
                        try live.detectAsync(image: liveFrames[timestamp % liveFrames.count],
                                             timestampInMilliseconds: timestamp)
                        accepted.append(timestamp)
                    } catch TaskError.nonMonotonicTimestamp(let previous, let received) {
                        refused.append((timestamp, previous, received))
                    } catch {
                        failures.append("live submitter \(thread): \(error)")
                    }
                    if submission % Self.liveSubmissionsPerCheckpoint == Self.liveSubmissionsPerCheckpoint - 1,
                       !log.waitForDeliveries(moreThan: deliveriesAtCheckpoint, timeout: 120) {
                        failures.append("live submitter \(thread): no result within 120 s")
                    }
                }
            } else {
                do {
                    let landmarker = try Self.poseLandmarker(.video)
                    let results = try (0..<Self.videoFramesPerLandmarker).map { index in
                        try landmarker.detect(videoFrame: frames[index % frames.count], timestampInMilliseconds: index * 40)
                    }
                    landmarker.close()
                    videoRuns.append((thread, results))
                } catch {
                    failures.append("video landmarker \(thread): \(error)")
                }
            }
        }
        live.close()
        log.markClosed()
        #expect(failures.values.isEmpty, "\(failures.values)")

        // Live stream: every submitted frame was accepted or refused with the typed error.
        let submitted = Self.liveSubmitters * Self.liveFramesPerSubmitter
        let acceptedSet = Set(accepted.values)
        #expect(acceptedSet.count == accepted.values.count)
        #expect(acceptedSet.count + refused.values.count == submitted)
        #expect(acceptedSet.union(refused.values.map(\.timestamp)) == Set(1...submitted))
        #expect(refused.values.allSatisfy { $0.received == $0.timestamp && $0.previous > $0.timestamp })
        #expect(!refused.values.isEmpty, "no submitter was overtaken, although some pause before submitting")

        // Accepted frames: delivered once each in increasing order, or dropped before a newer one.
        let deliveries = log.deliveries
        let delivered = deliveries.map(\.timestamp)
        let dropped = acceptedSet.subtracting(delivered)
        print("live stream: \(submitted) submitted, \(acceptedSet.count) accepted, \(refused.values.count) refused "
              + "as out of order, \(delivered.count) delivered, \(dropped.count) dropped")
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0 < $1 }, "results out of timestamp order")
        #expect(Set(delivered).isSubset(of: acceptedSet))
        #expect(delivered.count + dropped.count == acceptedSet.count)
        #expect(delivered.count >= Self.liveFramesPerSubmitter / Self.liveSubmissionsPerCheckpoint)
        #expect(delivered.first == acceptedSet.min(), "the first accepted frame is always processed")
        #expect(delivered.last == acceptedSet.max(), "the last accepted frame is never dropped")
        #expect(deliveries.allSatisfy { $0.error == nil && $0.result?.timestampInMilliseconds == $0.timestamp })
        #expect(deliveries.allSatisfy { $0.landmarker == ObjectIdentifier(live) })
        #expect(deliveries.contains { $0.result?.landmarks.count == 1 }, "no pose found in any live frame")

        // Closed: refused at once, and nothing more arrives.
        #expect(throws: TaskError.closed) {
            try live.detectAsync(image: frames[0], timestampInMilliseconds: submitted + 1)
        }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(log.deliveriesAfterClose == 0)
        #expect(log.deliveries.count == deliveries.count)

        // Video: four landmarkers on four threads, same frames, same results.
        let runs = videoRuns.values
        try #require(runs.count == Self.videoLandmarkers)
        for run in runs {
            #expect(run.results.map(\.timestampInMilliseconds) == (0..<Self.videoFramesPerLandmarker).map { $0 * 40 })
            #expect(run.results == runs[0].results, "landmarker \(run.landmarker) differs from landmarker \(runs[0].landmarker)")
        }
        let framesWithPose = runs[0].results.filter { !$0.landmarks.isEmpty }.count
        print("video: \(runs.count) landmarkers, \(framesWithPose) of \(Self.videoFramesPerLandmarker) frames with a pose")
        #expect(framesWithPose > 0)
    }

    /// `detect(image:)` on one landmarker from four threads at once: the calls take turns (each
    /// blocks until the ones before it are done) and give exactly what the same calls give one at
    /// a time. The synthetic timestamps, one second apart, show no call was lost or doubled.
    @Test func imageModeCallsFromSeveralThreadsTakeTurns() throws {
        let frames = Array(try Self.clipFrames().prefix(4))
        let landmarker = try Self.poseLandmarker(.image, threads: 2)
        let expected = try frames.map { try landmarker.detect(image: $0).landmarks }
        let callsPerThread = 3
        let results = TasksRecorder<(frame: Int, result: PoseLandmarkerResult)>()
        let failures = TasksRecorder<String>()
        runOnThreads(frames.count) { thread in
            for _ in 0..<callsPerThread {
                do {
                    results.append((thread, try landmarker.detect(image: frames[thread])))
                } catch {
                    failures.append("thread \(thread): \(error)")
                }
            }
        }
        #expect(failures.values.isEmpty, "\(failures.values)")
        let values = results.values
        #expect(values.count == frames.count * callsPerThread)
        #expect(values.allSatisfy { $0.result.landmarks == expected[$0.frame] })
        let step = VisionTaskRunner<MPImage, PoseLandmarkerResult>.imageModeTimestampStepInMilliseconds
        #expect(Set(values.map(\.result.timestampInMilliseconds))
            == Set((frames.count..<(frames.count * (callsPerThread + 1))).map { $0 * step }))
    }

    /// Video frames from several threads on one landmarker, timestamps from a shared counter: each
    /// call either runs, or throws `TaskError.nonMonotonicTimestamp` because a call that took a
    /// later timestamp got in first. Every refused frame is older than a processed one.
    @Test func videoModeCallsFromSeveralThreadsRunOrAreRefused() throws {
        let frames = try Self.clipFrames()
        let landmarker = try Self.poseLandmarker(.video)
        let counters = TasksCounters()
        let processed = TasksRecorder<Int>()
        let refused = TasksRecorder<Int>()
        let failures = TasksRecorder<String>()
        let threads = 4
        let framesPerThread = 4
        runOnThreads(threads) { thread in
            for _ in 0..<framesPerThread {
                let timestamp = counters.next.wrappingAdd(1, ordering: .relaxed).newValue * 40
                do {
                    let result = try landmarker.detect(videoFrame: frames[timestamp / 40 % frames.count],
                                                       timestampInMilliseconds: timestamp)
                    processed.append(result.timestampInMilliseconds)
                } catch TaskError.nonMonotonicTimestamp(_, let received) where received == timestamp {
                    refused.append(timestamp)
                } catch {
                    failures.append("thread \(thread): \(error)")
                }
            }
        }
        #expect(failures.values.isEmpty, "\(failures.values)")
        #expect(processed.values.count + refused.values.count == threads * framesPerThread)
        // Recorded after the call returned, so the recording order may differ; the set may not.
        let sorted = processed.values.sorted()
        #expect(Set(sorted).count == sorted.count)
        #expect(refused.values.allSatisfy { $0 < sorted.last ?? 0 }, "a refused frame must be older than a processed one")
    }
}
