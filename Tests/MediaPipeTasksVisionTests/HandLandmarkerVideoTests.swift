import Foundation
import ImageIO
import Inference
import Kernels
import LandmarkTestSupport
@testable import Pipeline
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// The hand landmarker in video mode (tracking) on the fixture clip `video/t1_sweep`
/// (25 fps, timestamps round(i·40) ms), against MediaPipe's legacy tracking output.
/// The whole clip by default; `LANDMARKER_HAND_VIDEO_FRAMES=N` uses the first N frames.
@Suite struct HandLandmarkerVideoTests {
    static var frameCount: Int {
        let requested = ProcessInfo.processInfo.environment["LANDMARKER_HAND_VIDEO_FRAMES"].flatMap(Int.init) ?? 50
        return min(max(requested, 2), 50)
    }

    static func frame(_ index: Int) throws -> (name: String, image: MPImage, timestamp: Int) {
        let name = String(format: "frame_%04d", index)
        let image = try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(name).png"))
        return (name, image, Int((Double(index) * 40).rounded()))
    }

    static func landmarker(mode: RunningMode, numHands: Int, variant: String = "full") throws -> HandLandmarker {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_\(variant).task").path
        options.baseOptions.numThreads = 2
        options.runningMode = mode
        options.numHands = numHands
        return try HandLandmarker(options: options)
    }

    /// With one hand wanted, the hand found on the first frame is tracked from its landmarks: the
    /// palm detector does not run again while the track holds, which it does until the window
    /// of the clip slides past that hand on the last frame.
    @Test func trackingSkipsThePalmDetector() throws {
        let graph = try LandmarkGraphs.hand(.full, numHands: 1, streamMode: true)
        var counts: [Int] = []
        for index in 0..<Self.frameCount {
            counts.append(try graph.process(Self.frame(index).image.uprightRGBImage()).count)
        }
        print("tracking, numHands 1: detector ran \(graph.detectorRuns) times over \(counts.count) frames; hands per frame \(counts)")
        #expect(graph.detectorRuns < counts.count)
        #expect(graph.detectorRuns == 1, "the hand is in view until the last frame, so one detection suffices")
        #expect(counts.dropLast().allSatisfy { $0 == 1 }, "hands per frame: \(counts)")
    }

    /// `numHands = 2`: a tracked ROI wins over a new palm on the same hand, and the landmarks
    /// follow MediaPipe's legacy tracking graph (same 90° palm rotation; its later-wins
    /// association keeps the tracked ROI too).
    @Test func videoModeFollowsLegacyTracking() throws {
        let landmarker = try Self.landmarker(mode: .video, numHands: 2)
        var errors = LandmarkErrors()
        var countMismatches: [Int] = []
        for index in 0..<Self.frameCount {
            let (name, image, timestamp) = try Self.frame(index)
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
            #expect(result.timestampInMilliseconds == timestamp)
            let golden = try FixtureGoldens.hands("legacy/video/t1_sweep/hands_full_tracking/\(name).json")
            guard result.landmarks.count == golden.hands.count else {
                countMismatches.append(index)
                continue
            }
            let size = SIMD2(Double(image.width), Double(image.height))
            let ours = result.landmarks.map { $0.map { SIMD2(Double($0.x), Double($0.y)) * size } }
            let theirs = golden.hands.map { LandmarkComparison.points($0.landmarks, width: image.width, height: image.height) }
            for (i, j) in LandmarkMatching.pairs(ours, theirs).enumerated() {
                errors.addPoints(ours[i], theirs[j])
            }
        }
        print(String(format: "video, numHands 2, %d frames: %d landmarks compared, mean %.3f px, max %.3f px; count mismatches at %@",
                     Self.frameCount, errors.distances.count, errors.mean, errors.maxDistance, "\(countMismatches)"))
        #expect(countMismatches.isEmpty, "frames where the number of hands differs: \(countMismatches)")
        #expect(!errors.distances.isEmpty)
        #expect(errors.mean <= 1.5, "mean landmark distance \(errors.mean) px")
        if KernelInstructionSet.fusesMultiplyAdd {
            #expect(errors.maxDistance <= 0.001, "MediaPipe's landmarks to the goldens' precision: largest distance \(errors.maxDistance) px")
        }
    }

    /// Live stream: every accepted frame reaches the delegate once, in timestamp order, with
    /// the same hands as video mode gives for the same frames.
    @Test func liveStreamDeliversResultsInOrder() async throws {
        let recorder = LiveStreamRecorder()
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_lite.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = .liveStream
        options.handLandmarkerLiveStreamDelegate = recorder
        let landmarker = try HandLandmarker(options: options)
        let frames = try (0..<2).map { try Self.frame($0) }
        for frame in frames {
            try landmarker.detectAsync(image: frame.image, timestampInMilliseconds: frame.timestamp)
        }
        landmarker.close()
        let received = recorder.received
        #expect(received.map(\.timestamp) == frames.map(\.timestamp))
        #expect(received.allSatisfy { $0.error == nil && $0.hands == 1 })

        let video = try Self.landmarker(mode: .video, numHands: 1, variant: "lite")
        for (frame, live) in zip(frames, received) {
            let expected = try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            #expect(live.result == expected)
        }
    }
}

/// Records live-stream callbacks (which arrive on the landmarker's private queue).
final class LiveStreamRecorder: HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
    struct Call {
        let timestamp: Int
        let hands: Int
        let result: HandLandmarkerResult?
        let error: (any Error)?
    }

    private let lock = NSLock()
    private var calls: [Call] = []

    var received: [Call] { lock.withLock { calls } }

    func handLandmarker(
        _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        lock.withLock {
            calls.append(Call(timestamp: timestampInMilliseconds, hands: result?.landmarks.count ?? -1, result: result, error: error))
        }
    }
}

/// The public API's wiring, options and error paths.
@Suite struct HandLandmarkerAPITests {
    static var fullBundle: String { Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_full.task").path }

    /// Image mode through the public API on a one-hand image: the Tasks handedness label and
    /// index (`tasks/hands_full_n2`), category and display names set, no visibility or presence.
    @Test func imageModeReportsTasksHandedness() throws {
        let landmarker = try HandLandmarker(modelPath: Self.fullBundle)
        let image = try MPImage(contentsOfFile: Fixtures.path("images/t1_cards_right.png"))
        let result = try landmarker.detect(image: image)
        let tasks = try FixtureGoldens.hands("tasks/hands_full_n2/t1_cards_right.json")
        try #require(result.landmarks.count == 1 && tasks.hands.count == 1)
        #expect(result.landmarks[0].count == 21 && result.worldLandmarks[0].count == 21)
        #expect(result.landmarks[0].allSatisfy { $0.visibility == nil && $0.presence == nil })
        let category = try #require(result.handedness.first?.first)
        #expect(category.categoryName == tasks.hands[0].handednessLabel)
        #expect(category.displayName == category.categoryName)
        #expect(category.index == tasks.hands[0].handednessIndex)
        #expect(result.timestampInMilliseconds == 0)
        #expect(HandLandmarker.handConnections.count == 21)
        #expect(HandLandmarker.handPalmConnections.count == 6)
    }

    @Test func missingBundleIsReported() {
        #expect(throws: (any Error).self) { try HandLandmarker(modelPath: "/nonexistent/hand.task") }
    }

    @Test func bundleWithoutHandModelsIsRejected() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        #expect(throws: (any Error).self) { try HandLandmarker(options: options) }
    }

    @Test func modelsWithOtherShapesAreRejected() throws {
        let pose = try Interpreter(contentsOfFile: Fixtures.model("pose_detection"), options: .init(threadCount: 1))
        let hand = try Interpreter(contentsOfFile: Fixtures.model("hand_landmark_lite"), options: .init(threadCount: 1))
        let configuration = HandGraph.Configuration(
            numHands: 1, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5, minTrackingConfidence: 0.5,
            streamMode: false)
        #expect(throws: ModelShapeError.self) { try HandGraph(detector: pose, landmarkModel: hand, configuration: configuration) }
        #expect(throws: ModelShapeError.self) { try HandGraph(detector: hand, landmarkModel: hand, configuration: configuration) }
    }

    /// The landmarker reports a model of other tensor shapes as `TaskError.invalidModel`.
    @Test func bundleOfModelsWithOtherShapesIsAnInvalidModel() throws {
        var writer = StoredZipWriter()
        let kind = LandmarkerBundleKind.handLandmarker
        let poseDetector = try FileManager.default.contents(atPath: Fixtures.model("pose_detection")).map(Array.init)
        let handLandmarks = try FileManager.default.contents(atPath: Fixtures.model("hand_landmark_lite")).map(Array.init)
        try writer.addEntry(named: kind.detectorModelName, contents: try #require(poseDetector))
        try writer.addEntry(named: kind.landmarksDetectorModelName, contents: try #require(handLandmarks))
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = try writer.finish()
        #expect {
            try HandLandmarker(options: options)
        } throws: { error in
            guard case TaskError.invalidModel(let message) = error else { return false }
            return message.hasPrefix("the palm detector must have inputs [[1, 192, 192, 3]]")
        }
    }

    @Test func invalidOptionsAreRejected() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = Self.fullBundle
        for numHands in [0, -1, HandLandmarkerOptions.maximumNumHands + 1] {
            options.numHands = numHands
            #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
        }
        options.numHands = 2
        options.minHandDetectionConfidence = 1.5
        #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
        options.minHandDetectionConfidence = 0.5
        options.minHandPresenceConfidence = -0.1
        #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
        options.minHandPresenceConfidence = 0.5
        options.minTrackingConfidence = .nan
        #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
        options.minTrackingConfidence = 0.5
        options.baseOptions.numThreads = 0
        #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
        options.baseOptions.numThreads = 1
        options.runningMode = .liveStream
        #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
        let recorder = LiveStreamRecorder()
        options.handLandmarkerLiveStreamDelegate = recorder
        options.runningMode = .video
        #expect(throws: TaskError.self) { try HandLandmarker(options: options) }
    }

    @Test func timestampsMustIncreaseAndModesMustMatch() throws {
        let landmarker = try HandLandmarkerVideoTests.landmarker(mode: .video, numHands: 1, variant: "lite")
        let image = try MPImage(pixels: [UInt8](repeating: 128, count: 64 * 48 * 3), width: 64, height: 48, format: .rgb8)
        let first = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(first.landmarks.isEmpty && first.handedness.isEmpty && first.worldLandmarks.isEmpty)
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 10, received: 10)) {
            try landmarker.detect(videoFrame: image, timestampInMilliseconds: 10)
        }
        #expect(throws: TaskError.self) { try landmarker.detect(videoFrame: image, timestampInMilliseconds: 5) }
        #expect(throws: TaskError.self) { try landmarker.detect(image: image) }
        #expect(throws: TaskError.self) { try landmarker.detectAsync(image: image, timestampInMilliseconds: 20) }
        landmarker.close()
        #expect(throws: TaskError.closed) { try landmarker.detect(videoFrame: image, timestampInMilliseconds: 30) }
    }
}
