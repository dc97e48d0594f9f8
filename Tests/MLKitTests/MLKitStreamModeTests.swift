import Foundation
@testable import MLKit
@testable import MediaPipeTasksVision
import Synchronization
import TestSupport
import Testing

/// The detector's `.stream` mode: the pose landmarker's video mode, stamped by a clock.
@Suite struct MLKitStreamModeTests {
    /// A clock that advances 33 ms per reading, starting at 0.
    final class FrameClock: Sendable {
        private let nextReading = Mutex(0)
        func read() -> Int { nextReading.withLock { value in defer { value += 33 }; return value } }
    }

    /// Repeated frames of a still scene give exactly what the landmarker's video mode gives for
    /// the same timestamps: the first frame is a detection (it agrees with single-image mode up
    /// to float rounding), later frames come from the region tracked from the previous landmarks
    /// (so they move away from single-image detection) and a pose is present in every frame.
    @Test func streamModeIsTheLandmarkersVideoMode() throws {
        let path = try Fixtures.path("images/bus_man.png")
        let modelPath = MLKitPoseDetectorTests.modelPath
        try #require(FileManager.default.fileExists(atPath: modelPath), "missing model \(modelPath)")
        let clock = FrameClock()
        let detector = PoseDetector(mode: .stream, modelPath: modelPath, clock: { clock.read() })
        try #require(detector.loadError == nil)
        let visionImage = try VisionImage(contentsOfFile: path)
        let image = try MPImage(contentsOfFile: path)
        let single = try MLKitPoseDetectorTests.detector(.singleImage).results(in: visionImage)
        try #require(single.count == 1)

        let videoOptions = PoseLandmarkerOptions()
        videoOptions.baseOptions.modelAssetPath = modelPath
        videoOptions.runningMode = .video
        let video = try PoseLandmarker(options: videoOptions)

        for frame in 0..<6 {
            let poses = try detector.results(in: visionImage)
            let expected = try video.detect(videoFrame: image, timestampInMilliseconds: frame * 33)
            try #require(poses.count == 1, "frame \(frame): \(poses.count) poses")
            try #require(expected.landmarks.count == 1)
            try MLKitPoseDetectorTests.expectPixels(
                poses[0], equal: expected.landmarks[0], width: image.width, height: image.height)
            let offset = Self.largestOffset(poses[0], single[0])
            print(String(format: "stream frame %d: %.4f px from single-image detection", frame, offset))
            if frame == 0 {
                // Detection from the same ROI; stream mode differs only in float rounding.
                #expect(offset < 0.01, "the first stream frame is a plain detection; off by \(offset) px")
            } else {
                #expect(offset > 0.01, "frame \(frame) should come from the tracked region; off by \(offset) px")
            }
        }
    }

    /// The largest distance in pixels (x, y) between corresponding landmarks.
    static func largestOffset(_ a: Pose, _ b: Pose) -> Double {
        zip(a.landmarks, b.landmarks).map { first, second in
            let dx = Double(first.position.x - second.position.x)
            let dy = Double(first.position.y - second.position.y)
            return (dx * dx + dy * dy).squareRoot()
        }.max() ?? 0
    }

    /// A clock that reads the given timestamps in turn (then keeps adding 1 ms).
    final class ClipClock: Sendable {
        private let state: Mutex<(readings: [Int], next: Int)>
        init(_ readings: [Int]) { state = Mutex((readings, 0)) }
        func read() -> Int {
            state.withLock { state in
                defer { state.next += 1 }
                let last = state.readings.last ?? 0
                return state.next < state.readings.count ? state.readings[state.next] : last + state.next
            }
        }
    }

    /// A moving person (the first 15 frames of the synthetic clip `pose_right_5px` under
    /// `samples/`, stamped 40 ms apart as the clip's frames are) gives the pose landmarker's
    /// video-mode landmarks in pixels, frame by frame (`LiveStreamEqualsVideoTests` holds the
    /// landmarkers' live-stream mode to video mode on the same clips).
    @Test func streamModeEqualsPoseVideoModeOnAMovingPerson() throws {
        let frames = try (0..<15).map { index in
            let path = try Fixtures.sample("pose_right_5px/" + String(format: "frame_%04d.png", index))
            return (image: try MPImage(contentsOfFile: path), timestamp: index * 40)
        }
        let modelPath = MLKitPoseDetectorTests.modelPath
        try #require(FileManager.default.fileExists(atPath: modelPath), "missing model \(modelPath)")
        let clock = ClipClock(frames.map(\.timestamp))
        let detector = PoseDetector(mode: .stream, modelPath: modelPath, clock: { clock.read() })
        try #require(detector.loadError == nil)
        let videoOptions = PoseLandmarkerOptions()
        videoOptions.baseOptions.modelAssetPath = modelPath
        videoOptions.baseOptions.numThreads = 2
        videoOptions.runningMode = .video
        videoOptions.numPoses = 1
        let video = try PoseLandmarker(options: videoOptions)
        for frame in frames {
            let poses = try detector.results(in: VisionImage(image: frame.image))
            let expected = try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            try #require(poses.count == expected.landmarks.count, "\(frame.timestamp) ms: pose counts differ")
            if let pose = poses.first {
                try MLKitPoseDetectorTests.expectPixels(
                    pose, equal: expected.landmarks[0], width: frame.image.width, height: frame.image.height)
            }
        }
    }

    @Test func realClockStampsRapidCallsStrictlyIncreasing() throws {
        let detector = try MLKitPoseDetectorTests.detector(.stream)
        let image = try VisionImage(pixels: [UInt8](repeating: 90, count: 64 * 48 * 3), width: 64, height: 48, format: .rgb8)
        for _ in 0..<5 { #expect(try detector.results(in: image).isEmpty) }
    }

    @Test func timestampsAreForcedStrictlyIncreasing() {
        let timestamps = StreamTimestamps(clock: { 7 })
        let stamped = (0..<4).map { _ in timestamps.withNextTimestamp { $0 } }
        #expect(stamped == [7, 8, 9, 10])
        let monotonic = StreamTimestamps(clock: StreamTimestamps.monotonicMilliseconds())
        let first = monotonic.withNextTimestamp { $0 }
        #expect(first >= 0 && first < 1000)
        #expect(monotonic.withNextTimestamp { $0 } > first)
    }

    @Test func asyncStreamFramesAreTracked() async throws {
        let detector = try MLKitPoseDetectorTests.detector(.stream)
        let image = try VisionImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        for frame in 0..<3 {
            let (poses, error) = await withCheckedContinuation { continuation in
                detector.process(image) { poses, error in continuation.resume(returning: (poses, error)) }
            }
            #expect(error == nil, "frame \(frame)")
            #expect(poses?.count == 1, "frame \(frame)")
        }
    }
}
