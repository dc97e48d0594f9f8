import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MediaPipeTasksVision
import Synchronization

/// What came back from the frames fed to one landmarker during a soak run.
struct SoakOutcome {
    /// Frames the landmarker processed (video: every frame; live stream: every delivered result).
    var processed = 0
    /// Processed frames with at least one pose, hand or face.
    var withResult = 0
    /// Live-stream frames the landmarker dropped because a newer one displaced them.
    var dropped = 0
    /// Processed frames whose result was an error.
    var errors = 0
}

/// Feeds frames to one landmarker and counts what comes back.
protocol SoakFeeder {
    /// Runs (video mode) or submits (live-stream mode) one frame.
    func feed(_ image: MPImage, timestampInMilliseconds: Int) throws
    /// Closes the landmarker once every fed frame is settled, and says what came back.
    func finish() throws -> SoakOutcome
}

/// Video mode: each frame runs synchronously.
final class VideoSoakFeeder: SoakFeeder {
    /// Runs one frame; says whether it found at least one pose, hand or face.
    typealias Detect = (_ image: MPImage, _ timestampInMilliseconds: Int) throws -> Bool

    private let detect: Detect
    private let close: () -> Void
    private var outcome = SoakOutcome()

    init(detect: @escaping Detect, close: @escaping () -> Void) {
        self.detect = detect
        self.close = close
    }

    func feed(_ image: MPImage, timestampInMilliseconds: Int) throws {
        let found = try detect(image, timestampInMilliseconds)
        outcome.processed += 1
        if found { outcome.withResult += 1 }
    }

    func finish() throws -> SoakOutcome {
        close()
        return outcome
    }
}

/// Live-stream mode: frames are submitted with at most `LiveStreamSoakReceiver.maxPending`
/// outstanding; results arrive on the landmarker's queue.
final class LiveStreamSoakFeeder: SoakFeeder {
    /// Submits one frame; returns at once.
    typealias Submit = (_ image: MPImage, _ timestampInMilliseconds: Int) throws -> Void

    private let receiver: LiveStreamSoakReceiver
    private let submit: Submit
    private let close: () -> Void

    /// `receiver` must be the landmarker's delegate; the feeder keeps it alive (the landmarker
    /// holds its delegate weakly).
    init(receiver: LiveStreamSoakReceiver, submit: @escaping Submit, close: @escaping () -> Void) {
        self.receiver = receiver
        self.submit = submit
        self.close = close
    }

    func feed(_ image: MPImage, timestampInMilliseconds: Int) throws {
        receiver.willSubmit(timestampInMilliseconds)
        do {
            try submit(image, timestampInMilliseconds)
        } catch {
            receiver.didNotSubmit(timestampInMilliseconds)
            throw error
        }
    }

    func finish() throws -> SoakOutcome {
        // `close()` returns once every accepted frame is delivered or dropped.
        close()
        let (outcome, unsettled) = receiver.snapshot()
        guard unsettled.isEmpty else {
            throw CommandFailure("live stream: frames neither delivered nor dropped after close(): \(unsettled)")
        }
        return outcome
    }
}

/// The live-stream delegate of a soak run, for either landmarker.
///
/// Keeps the timestamps of submitted frames that are not settled yet. Results arrive in
/// increasing timestamp order and the newest accepted frame is never dropped, so a result for
/// timestamp t settles every pending frame up to t: t itself was delivered, the older ones were
/// dropped. Called on the landmarker's queue while the feeding thread waits for a free slot:
/// every field is guarded by `lock`.
final class LiveStreamSoakReceiver: PoseLandmarkerLiveStreamDelegate, HandLandmarkerLiveStreamDelegate,
    FaceLandmarkerLiveStreamDelegate, HolisticLandmarkerLiveStreamDelegate, @unchecked Sendable
{
    /// Frames outstanding at most: one running and one waiting, which keeps the landmarker busy
    /// while dropping a frame only when a result and the next submission cross.
    static let maxPending = 2

    private let lock = Mutex(())
    private let slots = DispatchSemaphore(value: LiveStreamSoakReceiver.maxPending)
    private var pending: [Int] = []
    private var outcome = SoakOutcome()

    /// Waits for a free slot, then records `timestamp` as pending.
    func willSubmit(_ timestamp: Int) {
        slots.wait()
        lock.withLock { _ in pending.append(timestamp) }
    }

    /// Forgets a frame the landmarker refused.
    func didNotSubmit(_ timestamp: Int) {
        lock.withLock { _ in pending.removeAll { $0 == timestamp } }
        slots.signal()
    }

    /// What came back so far, and the timestamps still pending.
    func snapshot() -> (SoakOutcome, [Int]) {
        lock.withLock { _ in (outcome, pending) }
    }

    func poseLandmarker(
        _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        settle(upTo: timestampInMilliseconds, found: result.map { !$0.landmarks.isEmpty } ?? false, failed: error != nil)
    }

    func handLandmarker(
        _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        settle(upTo: timestampInMilliseconds, found: result.map { !$0.landmarks.isEmpty } ?? false, failed: error != nil)
    }

    func faceLandmarker(
        _ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        settle(upTo: timestampInMilliseconds, found: result.map { !$0.faceLandmarks.isEmpty } ?? false, failed: error != nil)
    }

    func holisticLandmarker(
        _ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        settle(upTo: timestampInMilliseconds, found: result.map { !$0.poseLandmarks.isEmpty } ?? false, failed: error != nil)
    }

    private func settle(upTo timestamp: Int, found: Bool, failed: Bool) {
        let settled = lock.withLock { _ -> Int in
            let settled = pending.prefix { $0 <= timestamp }.count
            pending.removeFirst(settled)
            outcome.processed += 1
            // `settled` ≥ 1: the delivered frame itself was pending.
            outcome.dropped += max(0, settled - 1)
            if found { outcome.withResult += 1 }
            if failed { outcome.errors += 1 }
            return settled
        }
        for _ in 0..<settled { slots.signal() }
    }
}
