import Dispatch
import Foundation
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// Live-stream mode is video mode fed from another thread: when no frame is dropped (a feeder
/// that waits for each result before sending the next frame), every result equals video mode's
/// for the same frames and timestamps (`MLKitStreamModeTests` holds ML Kit's `.stream` mode to
/// the pose landmarker's video mode on one of these clips). The clips are the synthetic ones of `SampleClipTests`, chosen for the
/// paths tracking takes: two people passing each other (detections merged with tracked people),
/// a person hidden for one frame (a lost track), a hand moving (palm detection beside tracking).
@Suite struct LiveStreamEqualsVideoTests {
    /// How long the feeder waits for one result before the test fails.
    static let resultTimeout = DispatchTimeInterval.seconds(60)

    /// The path of a model bundle under `models/`; fails loudly when it is missing.
    static func bundle(_ name: String) throws -> String {
        let path = Fixtures.modelsRoot.appendingPathComponent(name).path
        try #require(FileManager.default.fileExists(atPath: path), "missing \(path): run models/fetch_models.sh")
        return path
    }

    /// The first `count` frames of a synthetic clip under `samples/`, with their timestamps
    /// (40 ms apart).
    static func clip(_ name: String, count: Int) throws -> [(image: MPImage, timestamp: Int)] {
        try (0..<count).map { index in
            let path = try Fixtures.sample("\(name)/" + String(format: "frame_%04d.png", index))
            return (try MPImage(contentsOfFile: path), index * 40)
        }
    }

    /// Collects live-stream results and lets the feeder wait for each.
    final class SlowFeederRecorder: PoseLandmarkerLiveStreamDelegate, HandLandmarkerLiveStreamDelegate,
        @unchecked Sendable
    {
        private let lock = NSLock()
        private let delivered = DispatchSemaphore(value: 0)
        private var poseResults: [Int: PoseLandmarkerResult] = [:]
        private var handResults: [Int: HandLandmarkerResult] = [:]
        private var errors: [String] = []

        var poses: [Int: PoseLandmarkerResult] { lock.withLock { poseResults } }
        var hands: [Int: HandLandmarkerResult] { lock.withLock { handResults } }
        var failures: [String] { lock.withLock { errors } }

        /// Waits for the next delivery; false on timeout.
        func waitForResult() -> Bool { delivered.wait(timeout: .now() + resultTimeout) == .success }

        func poseLandmarker(
            _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
            timestampInMilliseconds: Int, error: Error?
        ) {
            deliver(timestampInMilliseconds, error) { if let result { poseResults[timestampInMilliseconds] = result } }
        }

        func handLandmarker(
            _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
            timestampInMilliseconds: Int, error: Error?
        ) {
            deliver(timestampInMilliseconds, error) { if let result { handResults[timestampInMilliseconds] = result } }
        }

        /// Stores a delivery under the lock (`store` saves the result), then wakes the feeder.
        private func deliver(_ timestamp: Int, _ error: Error?, store: () -> Void) {
            lock.withLock {
                store()
                if let error { errors.append("\(timestamp) ms: \(error)") }
            }
            delivered.signal()
        }
    }

    static func poseOptions(_ mode: RunningMode, numPoses: Int) throws -> PoseLandmarkerOptions {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try bundle("pose_landmarker_full.task")
        options.baseOptions.numThreads = 2
        options.runningMode = mode
        options.numPoses = numPoses
        return options
    }

    /// The two people of `poses_two_pass` cross in the middle of its 30 frames; the man of
    /// `pose_hidden_1` is hidden on frame 10 of 15.
    @Test(arguments: [("poses_two_pass", 2, 30), ("pose_hidden_1", 1, 15)])
    func poseLiveStreamEqualsVideo(clipName: String, numPoses: Int, frameCount: Int) throws {
        let frames = try Self.clip(clipName, count: frameCount)
        let recorder = SlowFeederRecorder()
        let liveOptions = try Self.poseOptions(.liveStream, numPoses: numPoses)
        liveOptions.poseLandmarkerLiveStreamDelegate = recorder
        let live = try PoseLandmarker(options: liveOptions)
        for frame in frames {
            try live.detectAsync(image: frame.image, timestampInMilliseconds: frame.timestamp)
            try #require(recorder.waitForResult(), "\(clipName): no result for \(frame.timestamp) ms")
        }
        live.close()
        #expect(recorder.failures.isEmpty, "\(recorder.failures)")

        let video = try PoseLandmarker(options: try Self.poseOptions(.video, numPoses: numPoses))
        let results = recorder.poses
        var posesSeen = 0
        for frame in frames {
            let expected = try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            let delivered = try #require(results[frame.timestamp], "\(clipName): \(frame.timestamp) ms not delivered")
            #expect(delivered == expected, "\(clipName): live stream differs from video mode at \(frame.timestamp) ms")
            posesSeen += expected.landmarks.count
        }
        // The clip has someone to track on most frames, so equality compares landmarks.
        #expect(posesSeen >= frames.count - 1, "\(clipName): only \(posesSeen) poses over \(frames.count) frames")
    }

    @Test func handLiveStreamEqualsVideo() throws {
        let frames = try Self.clip("hand_right_5px", count: 15)
        func options(_ mode: RunningMode) throws -> HandLandmarkerOptions {
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = try Self.bundle("hand_landmarker_full.task")
            options.baseOptions.numThreads = 2
            options.runningMode = mode
            options.numHands = 2
            return options
        }
        let recorder = SlowFeederRecorder()
        let liveOptions = try options(.liveStream)
        liveOptions.handLandmarkerLiveStreamDelegate = recorder
        let live = try HandLandmarker(options: liveOptions)
        for frame in frames {
            try live.detectAsync(image: frame.image, timestampInMilliseconds: frame.timestamp)
            try #require(recorder.waitForResult(), "no result for \(frame.timestamp) ms")
        }
        live.close()
        #expect(recorder.failures.isEmpty, "\(recorder.failures)")

        let video = try HandLandmarker(options: try options(.video))
        let results = recorder.hands
        var handsSeen = 0
        for frame in frames {
            let expected = try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            let delivered = try #require(results[frame.timestamp], "\(frame.timestamp) ms not delivered")
            #expect(delivered == expected, "live stream differs from video mode at \(frame.timestamp) ms")
            handsSeen += expected.landmarks.count
        }
        #expect(handsSeen >= frames.count, "only \(handsSeen) hands over \(frames.count) frames")
    }
}
