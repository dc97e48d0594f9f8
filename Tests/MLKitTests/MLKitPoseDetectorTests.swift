import Foundation
import LandmarkTestSupport
@testable import MLKit
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// The ML Kit-style pose detector in `.singleImage` mode against the pose landmarker it wraps,
/// its landmark types, its asynchronous entry point and its errors.
@Suite struct MLKitPoseDetectorTests {
    static var modelPath: String {
        Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
    }

    static func detector(_ mode: PoseDetectorMode, options: PoseDetectorOptions = PoseDetectorOptions()) throws
        -> PoseDetector
    {
        try #require(FileManager.default.fileExists(atPath: modelPath), "missing model \(modelPath)")
        options.detectorMode = mode
        options.modelPath = modelPath
        let detector = PoseDetector.poseDetector(options: options)
        #expect(detector.loadError == nil)
        return detector
    }

    /// Fixture images in which MediaPipe finds one person (tasks/pose_full_n1).
    static let poseImages = ["bus_man", "astronaut", "grace_hopper", "bus", "camera"]

    /// The same landmarks as `PoseLandmarker` in image mode, scaled to pixels of the upright
    /// image (x·W, y·H, z·W), with presence as the in-frame likelihood; and in pixels they sit
    /// where MediaPipe put them.
    @Test(arguments: poseImages)
    func singleImageMatchesImageModeLandmarker(name: String) throws {
        let path = try Fixtures.path("images/\(name).png")
        let poses = try Self.detector(.singleImage).results(in: VisionImage(contentsOfFile: path))
        let image = try MPImage(contentsOfFile: path)
        let expected = try PoseLandmarker(modelPath: Self.modelPath).detect(image: image)
        try #require(expected.landmarks.count == 1, "\(name): the landmarker finds \(expected.landmarks.count) poses")
        try #require(poses.count == 1, "\(name): \(poses.count) poses")
        try Self.expectPixels(poses[0], equal: expected.landmarks[0], width: image.width, height: image.height)

        let golden = try FixtureGoldens.poses("pose_full_n1", name)
        var errors = LandmarkErrors()
        errors.addPoints(
            poses[0].landmarks.map { SIMD2(Double($0.position.x), Double($0.position.y)) },
            LandmarkComparison.points(golden.poses[0].landmarks, width: golden.width, height: golden.height))
        #expect(errors.mean < 2, "\(name): mean distance to MediaPipe \(errors.mean) px")
    }

    /// A sideways stored image with its orientation set: pixels of the upright image, as the
    /// landmarker reports for an `MPImage` with the same orientation.
    @Test func orientationIsHonoured() throws {
        let path = try Fixtures.path("images/bus_man_rot90cw.png")
        let visionImage = try VisionImage(contentsOfFile: path)
        visionImage.orientation = .left
        #expect(visionImage.width == visionImage.rgbImage.height)
        let poses = try Self.detector(.singleImage).results(in: visionImage)
        let image = try MPImage(contentsOfFile: path, orientation: .left)
        let expected = try PoseLandmarker(modelPath: Self.modelPath).detect(image: image)
        try #require(poses.count == 1 && expected.landmarks.count == 1)
        try Self.expectPixels(poses[0], equal: expected.landmarks[0], width: image.width, height: image.height)
    }

    static func expectPixels(_ pose: Pose, equal normalized: [NormalizedLandmark], width: Int, height: Int) throws {
        try #require(pose.landmarks.count == 33 && normalized.count == 33)
        for (landmark, reference) in zip(pose.landmarks, normalized) {
            #expect(landmark.position.x == CGFloat(Double(reference.x) * Double(width)), "\(landmark.type) x")
            #expect(landmark.position.y == CGFloat(Double(reference.y) * Double(height)), "\(landmark.type) y")
            #expect(landmark.position.z == CGFloat(Double(reference.z) * Double(width)), "\(landmark.type) z")
            #expect(landmark.inFrameLikelihood == reference.presence, "\(landmark.type) likelihood")
        }
    }

    @Test func landmarkTypesHaveMLKitNamesInOrder() {
        let names = [
            "nose", "leftEyeInner", "leftEye", "leftEyeOuter", "rightEyeInner", "rightEye", "rightEyeOuter",
            "leftEar", "rightEar", "mouthLeft", "mouthRight", "leftShoulder", "rightShoulder", "leftElbow",
            "rightElbow", "leftWrist", "rightWrist", "leftPinkyFinger", "rightPinkyFinger", "leftIndexFinger",
            "rightIndexFinger", "leftThumb", "rightThumb", "leftHip", "rightHip", "leftKnee", "rightKnee",
            "leftAnkle", "rightAnkle", "leftHeel", "rightHeel", "leftToe", "rightToe",
        ]
        #expect(PoseLandmarkType.allTypes.map { "\($0)" } == names)
        #expect(PoseLandmarkType.allTypes.map(\.rawValue) == Array(0..<33))
        // Same index as the Tasks names where both name the same point.
        #expect(PoseLandmarkType.leftPinkyFinger.rawValue == PoseLandmark.leftPinky.rawValue)
        #expect(PoseLandmarkType.rightToe.rawValue == PoseLandmark.rightFootIndex.rawValue)
    }

    @Test func landmarkOfTypeReturnsThatLandmark() throws {
        let path = try Fixtures.path("images/bus_man.png")
        let pose = try #require(try Self.detector(.singleImage).results(in: VisionImage(contentsOfFile: path)).first)
        #expect(pose.landmarks.map(\.type) == PoseLandmarkType.allTypes)
        for type in PoseLandmarkType.allTypes {
            #expect(pose.landmark(ofType: type) == pose.landmarks[type.rawValue])
            #expect(pose.landmark(ofType: type).type == type)
        }
        // The subject's left shoulder is on the image's right of the right shoulder (a person
        // facing the camera), and the ankles are below the shoulders.
        #expect(pose.landmark(ofType: .leftShoulder).position.x > pose.landmark(ofType: .rightShoulder).position.x)
        #expect(pose.landmark(ofType: .leftAnkle).position.y > pose.landmark(ofType: .leftShoulder).position.y)
    }

    @Test(arguments: [PoseDetectorMode.singleImage, .stream])
    func noPersonGivesEmptyArray(mode: PoseDetectorMode) throws {
        let image = try VisionImage(contentsOfFile: Fixtures.path("images/coffee.png"))
        let detector = try Self.detector(mode)
        #expect(try detector.results(in: image).isEmpty)
        #expect(try detector.results(in: image).isEmpty)
    }

    @Test func accurateOptionsRunTheSamePipeline() throws {
        let image = try VisionImage(contentsOfFile: Fixtures.path("images/astronaut.png"))
        let accurate = try Self.detector(.singleImage, options: AccuratePoseDetectorOptions()).results(in: image)
        let base = try Self.detector(.singleImage).results(in: image)
        #expect(!base.isEmpty)
        #expect(accurate == base)
    }

    @Test func pixelBufferImagesAreAccepted() throws {
        let decoded = try MPImage(contentsOfFile: Fixtures.path("images/bus_man.png")).rgbImage
        let buffer = try VisionImage(
            pixels: decoded.pixels, width: decoded.width, height: decoded.height, format: .rgb8)
        let file = try VisionImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        let detector = try Self.detector(.singleImage)
        let fromBuffer = try detector.results(in: buffer)
        #expect(fromBuffer.count == 1)
        #expect(fromBuffer == (try detector.results(in: file)))
        #expect(throws: MPImageError.bufferTooSmall(byteCount: 5, required: 6)) {
            try VisionImage(pixels: [1, 2, 3, 4, 5], width: 2, height: 1, format: .rgb8)
        }
    }

    /// A bad YUV frame gives `MPImage`'s typed error (`MPImageYUVTests` checks the conversion).
    @Test func badYUVFrameIsATypedError() {
        let i420: [UInt8] = [16, 60, 120, 235, 16, 60, 120, 235] + [128, 128] + [128, 128]
        #expect(throws: MPImageError.invalidYUVFrame(.invalidDimensions(width: 0, height: 2))) {
            try VisionImage(yuvBuffer: i420, format: .i420, width: 0, height: 2)
        }
    }

    @Test func asyncCompletionDeliversTheSynchronousResult() async throws {
        let detector = try Self.detector(.singleImage)
        let image = try VisionImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        let synchronous = try detector.results(in: image)
        let (poses, error) = await withCheckedContinuation { continuation in
            detector.process(image) { poses, error in continuation.resume(returning: (poses, error)) }
        }
        #expect(error == nil)
        #expect(poses == synchronous)
        #expect(poses?.count == 1)
    }

    @Test func asyncCompletionsArriveInCallOrder() async throws {
        let detector = try Self.detector(.singleImage)
        let person = try VisionImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        let empty = try VisionImage(contentsOfFile: Fixtures.path("images/coffee.png"))
        let counts = await withCheckedContinuation { continuation in
            // The completions run one after another on the detector's serial queue.
            final class Collected: @unchecked Sendable { var counts: [Int] = [] }
            let collected = Collected()
            for (index, image) in [person, empty, person].enumerated() {
                detector.process(image) { poses, _ in
                    collected.counts.append(poses?.count ?? -1)
                    if index == 2 { continuation.resume(returning: collected.counts) }
                }
            }
        }
        #expect(counts == [1, 0, 1])
    }
}

/// Where the detector finds its model, and what happens when it is missing.
@Suite struct MLKitModelLocationTests {
    @Test func modelPathPrecedence() {
        let options = PoseDetectorOptions()
        #expect(options.detectorMode == .stream)
        let nowhere = ModelFiles(environment: [:], executablePath: nil, currentDirectory: "/nonexistent")
        #expect(options.resolvedModelPath(environment: [:], models: nowhere) == "pose_landmarker_full.task")
        #expect(options.resolvedModelPath(environment: ["LANDMARKER_POSE_MODEL": ""], models: nowhere)
            == "pose_landmarker_full.task")
        let checkout = ModelFiles(environment: [:], executablePath: nil, currentDirectory: Fixtures.packageRoot.path)
        #expect(options.resolvedModelPath(environment: [:], models: checkout)
            == Fixtures.packageRoot.path + "/models/pose_landmarker_full.task")
        #expect(options.resolvedModelPath(environment: ["LANDMARKER_POSE_MODEL": "/env/pose.task"]) == "/env/pose.task")
        options.modelPath = "/option/pose.task"
        #expect(options.resolvedModelPath(environment: ["LANDMARKER_POSE_MODEL": "/env/pose.task"]) == "/option/pose.task")
    }

    @Test(arguments: [PoseDetectorMode.singleImage, .stream])
    func missingModelGivesAClearErrorOnEveryCall(mode: PoseDetectorMode) async throws {
        let options = PoseDetectorOptions()
        options.detectorMode = mode
        options.modelPath = "/nonexistent/pose_landmarker_full.task"
        let detector = PoseDetector.poseDetector(options: options)
        let loadError = try #require(detector.loadError)
        guard case .modelUnavailable(let path, _) = loadError else { return }
        #expect(path == "/nonexistent/pose_landmarker_full.task")
        #expect(loadError.description.contains("/nonexistent/pose_landmarker_full.task"))
        #expect(loadError.description.contains("LANDMARKER_POSE_MODEL"))

        let image = try VisionImage(pixels: [UInt8](repeating: 0, count: 8 * 8 * 3), width: 8, height: 8, format: .rgb8)
        #expect(throws: loadError) { try detector.results(in: image) }
        let asyncError = await withCheckedContinuation { continuation in
            detector.process(image) { _, error in continuation.resume(returning: error) }
        }
        #expect(asyncError as? PoseDetectorError == loadError)
    }

    @Test func bundleWithoutPoseModelsIsUnavailable() throws {
        let options = PoseDetectorOptions()
        options.modelPath = Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_full.task").path
        try #require(FileManager.default.fileExists(atPath: options.modelPath!), "missing model \(options.modelPath!)")
        #expect(PoseDetector.poseDetector(options: options).loadError != nil)
    }
}
