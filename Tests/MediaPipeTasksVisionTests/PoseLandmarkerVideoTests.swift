import Foundation
import ImageIO
import Inference
import Kernels
import LandmarkTestSupport
@testable import Pipeline
@testable import MediaPipeTasksVision
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
        var errors = LandmarkErrors()
        var countMismatches: [Int] = []
        var firstTrackedFrame: (index: Int, meanDistance: Double)?
        var firstGoldenPose: Int?
        for index in 0..<Self.frameCount {
            let name = String(format: "frame_%04d", index)
            let image = try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(name).png"))
            let golden = try Fixtures.json("tasks/video/t1_sweep/pose_full_n1_video/\(name).json") as! [String: Any]
            let timestamp = (golden["video"] as! [String: Any])["timestamp_ms"] as! Int
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
            let expected = golden["poses"] as! [[String: Any]]
            if firstGoldenPose == nil, !expected.isEmpty { firstGoldenPose = index }
            if result.landmarks.count != expected.count {
                countMismatches.append(index)
                continue
            }
            guard let pose = result.landmarks.first, let expectedPose = expected.first else { continue }
            let size = SIMD2(Double(image.width), Double(image.height))
            var frameErrors = LandmarkErrors()
            frameErrors.addPoints(
                pose.map { SIMD2(Double($0.x), Double($0.y)) * size },
                (expectedPose["landmarks"] as! [[String: NSNumber]]).map { SIMD2($0["x"]!.doubleValue, $0["y"]!.doubleValue) * size })
            if firstTrackedFrame == nil {
                firstTrackedFrame = (index, frameErrors.mean)
            }
            errors.distances += frameErrors.distances
        }
        let mean = errors.mean
        print(String(format: "video: %d landmarks compared, mean %.3f px, max %.3f px; count mismatches at %@",
                     errors.distances.count, mean, errors.maxDistance, "\(countMismatches)"))
        let first = try #require(firstTrackedFrame, "no frame where both found a pose")
        print(String(format: "first pose: frame %d, mean %.3f px", first.index, first.meanDistance))
        #expect(first.index == firstGoldenPose, "the first pose is on frame \(first.index), MediaPipe's on \(String(describing: firstGoldenPose))")
        // Tracking feeds each frame's landmarks into the next frame's crop, so a difference in
        // one frame carries on: MediaPipe's own landmarks move by pixels over the clip when one
        // frame gets ±1 grey level of noise (pose_video_noise.json). Following it takes its floats throughout,
        // which the native build computes: the models' kernels in XNNPACK's operation order, the
        // image-to-tensor mapping as one fused multiply-add, the pose detector run dense.
        if KernelInstructionSet.fusesMultiplyAdd {
            #expect(countMismatches.isEmpty, "frames where the number of poses differs: \(countMismatches)")
            #expect(mean <= 1.0, "mean landmark distance \(mean) px")
            #expect(errors.maxDistance <= 0.001, "MediaPipe's landmarks to the references' precision: largest distance \(errors.maxDistance) px")
        } else {
            // The portable build rounds each product separately: it can only stay within the
            // spread of MediaPipe's own noise runs (with a 25 % margin: one more draw from it).
            let noise = try VideoNoiseSensitivity.pose(clip: "t1_sweep")
            print(noise.summary)
            #expect(mean <= 1.25 * noise.largestMeanDistance,
                    "mean landmark distance \(mean) px, beyond the range of MediaPipe's own noise runs")
        }
    }

    /// A still scene fed as video: the person is detected once, then tracked from the
    /// previous frame's landmarks. The first frame is exactly image mode; later frames use
    /// the ROI built from the landmarks, which shifts the crop a little from frame to frame
    /// but must never jump.
    @Test func stillSceneIsTrackedWithoutRedetecting() throws {
        let graph = try PoseGraph(
            detector: Interpreter(
                contentsOfFile: Fixtures.model("pose_detection"), options: .init(threadCount: 2, usesSparseKernels: false)),
            landmarkModel: Interpreter(contentsOfFile: Fixtures.model("pose_landmark_full"), options: .init(threadCount: 2)),
            configuration: .init(
                numPoses: 1, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                minTrackingConfidence: 0.5, outputSegmentationMasks: false, streamMode: true))
        let image = try MPImage(contentsOfFile: Fixtures.path("images/bus_man.png")).uprightRGBImage()
        let golden = try FixtureGoldens.poses("pose_full_n1", "bus_man")
        var frames: [[SIMD2<Double>]] = []
        for frame in 0..<8 {
            let poses = try graph.process(image, timestampMicroseconds: Int64(frame) * 33_333)
            try #require(poses.count == 1, "frame \(frame): \(poses.count) poses")
            frames.append(poses[0].landmarks.map {
                SIMD2(Double($0.x) * Double(golden.width), Double($0.y) * Double(golden.height))
            })
        }
        func meanDistance(_ a: [SIMD2<Double>], _ b: [SIMD2<Double>]) -> Double {
            zip(a, b).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }.reduce(0, +) / Double(a.count)
        }
        let expected = LandmarkComparison.points(golden.poses[0].landmarks, width: golden.width, height: golden.height)
        let firstFrame = meanDistance(frames[0], expected)
        let steps = (1..<frames.count).map { meanDistance(frames[$0], frames[$0 - 1]) }
        print(String(format: "still scene: detector ran %d times over %d frames; frame 0 vs image mode %.3f px; "
                     + "frame-to-frame %@ px", graph.detectorRuns, frames.count, firstFrame,
                     steps.map { String(format: "%.2f", $0) }.joined(separator: " ")))
        #expect(graph.detectorRuns == 1)
        #expect(firstFrame <= 0.5)
        #expect(steps.max()! < 5, "tracking jumps by \(steps.max()!) px between identical frames")
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
