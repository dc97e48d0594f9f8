import Foundation
import ImageIO
import Pipeline
import TestSupport
import Testing

/// The pose landmarker in video mode (tracking and smoothing) against
/// MediaPipe's Tasks VIDEO-mode output on the fixture clip.
@Suite struct PoseLandmarkerVideoTests {
    static let frameCount = 50

    static func landmarker(mode: RunningMode) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = mode
        return try PoseLandmarker(options: options)
    }

    @Test func videoModeFollowsMediaPipe() throws {
        let landmarker = try Self.landmarker(mode: .video)
        var distances: [Double] = []
        var countMismatches: [Int] = []
        for index in 0..<Self.frameCount {
            let name = String(format: "frame_%04d", index)
            let image = try MPImage(contentsOfFile: Fixtures.path("video/mp_hand_reach/\(name).png"))
            let golden = try Fixtures.json("tasks/video/mp_hand_reach/pose_full_n1_video/\(name).json") as! [String: Any]
            let timestamp = (golden["video"] as! [String: Any])["timestamp_ms"] as! Int
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
            let expected = golden["poses"] as! [[String: Any]]
            if result.landmarks.count != expected.count {
                countMismatches.append(index)
                continue
            }
            guard let pose = result.landmarks.first, let expectedPose = expected.first else { continue }
            for (i, e) in (expectedPose["landmarks"] as! [[String: NSNumber]]).enumerated() {
                let dx = (Double(pose[i].x) - e["x"]!.doubleValue) * Double(image.width)
                let dy = (Double(pose[i].y) - e["y"]!.doubleValue) * Double(image.height)
                distances.append((dx * dx + dy * dy).squareRoot())
            }
        }
        let mean = distances.reduce(0, +) / Double(max(distances.count, 1))
        print(String(format: "video: %d landmarks compared, mean %.3f px, max %.3f px; count mismatches at %@",
                     distances.count, mean, distances.max() ?? 0, "\(countMismatches)"))
        #expect(countMismatches.isEmpty, "frames where the number of poses differs: \(countMismatches)")
        #expect(!distances.isEmpty)
        #expect(mean <= 1.0, "mean landmark distance \(mean) px")
    }
}

/// Bad options, calls and timestamps give typed errors.
@Suite struct PoseLandmarkerErrorTests {
    @Test func missingBundleIsReported() {
        #expect(throws: (any Error).self) { try PoseLandmarker(modelPath: "/nonexistent/pose.task") }
    }

    @Test func bundleWithoutPoseModelsIsRejected() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_full.task").path
        #expect(throws: (any Error).self) { try PoseLandmarker(options: options) }
    }

    @Test func invalidOptionsAreRejected() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        options.numPoses = 0
        #expect(throws: TaskError.self) { try PoseLandmarker(options: options) }
        options.numPoses = 1
        options.minPoseDetectionConfidence = 1.5
        #expect(throws: TaskError.self) { try PoseLandmarker(options: options) }
        options.minPoseDetectionConfidence = 0.5
        options.baseOptions.numThreads = 0
        #expect(throws: TaskError.self) { try PoseLandmarker(options: options) }
        options.baseOptions.numThreads = 1
        options.runningMode = .liveStream
        #expect(throws: TaskError.self) { try PoseLandmarker(options: options) }
    }

    @Test func timestampsMustIncreaseAndModesMustMatch() throws {
        let landmarker = try PoseLandmarkerVideoTests.landmarker(mode: .video)
        let image = try MPImage(pixels: [UInt8](repeating: 128, count: 64 * 48 * 3), width: 64, height: 48, format: .rgb8)
        _ = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 10, received: 10)) {
            try landmarker.detect(videoFrame: image, timestampInMilliseconds: 10)
        }
        #expect(throws: TaskError.self) { try landmarker.detect(videoFrame: image, timestampInMilliseconds: 5) }
        #expect(throws: TaskError.self) { try landmarker.detect(image: image) }
        #expect(throws: TaskError.self) { try landmarker.detectAsync(image: image, timestampInMilliseconds: 20) }
    }

    @Test func emptyImageGivesEmptyResult() throws {
        let landmarker = try PoseLandmarkerVideoTests.landmarker(mode: .image)
        let image = try MPImage(pixels: [UInt8](repeating: 0, count: 32 * 32 * 3), width: 32, height: 32, format: .rgb8)
        let result = try landmarker.detect(image: image)
        #expect(result.landmarks.isEmpty && result.worldLandmarks.isEmpty)
    }
}
