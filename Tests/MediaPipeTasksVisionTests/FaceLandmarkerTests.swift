import Foundation
import LandmarkTestSupport
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// `FaceLandmarker` through the public API: image, video and live-stream modes against MediaPipe's
/// legacy Face Mesh references, track ids, the options it refuses, and its connections.
@Suite struct FaceLandmarkerTests {
    static var bundle: String { Fixtures.modelsRoot.appendingPathComponent("face_landmarker.task").path }

    static func landmarker(mode: RunningMode, numFaces: Int, delegate: (any FaceLandmarkerLiveStreamDelegate)? = nil) throws -> FaceLandmarker {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = bundle
        options.baseOptions.numThreads = 2
        options.runningMode = mode
        options.numFaces = numFaces
        options.faceLandmarkerLiveStreamDelegate = delegate
        return try FaceLandmarker(options: options)
    }

    static func frame(_ index: Int) throws -> (name: String, image: MPImage, timestamp: Int) {
        let name = String(format: "frame_%04d", index)
        return (name, try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(name).png")), index * 40)
    }

    /// The largest distance, in pixels, between our faces and the reference's (same order).
    static func largestDistance(_ ours: [[NormalizedLandmark]], _ reference: ReferenceFaceFrame) -> Double {
        var largest = 0.0
        for (face, theirs) in zip(ours, reference.faces) {
            for (point, their) in zip(face, theirs) {
                let dx = (Double(point.x) - their.x) * Double(reference.width)
                let dy = (Double(point.y) - their.y) * Double(reference.height)
                largest = max(largest, (dx * dx + dy * dy).squareRoot())
            }
        }
        return largest
    }

    @Test func imageModeGivesLegacyFaceMesh() throws {
        let landmarker = try Self.landmarker(mode: .image, numFaces: 1)
        let result = try landmarker.detect(image: MPImage(contentsOfFile: Fixtures.path("images/grace_hopper.png")))
        let reference = try FixtureGoldens.faces("legacy/face_mesh_plain_n1/grace_hopper.json")
        #expect(result.faceLandmarks.count == 1)
        #expect(result.faceLandmarks.first?.count == 468)
        #expect(result.faceLandmarks.first?.allSatisfy { $0.visibility == nil && $0.presence == nil } == true)
        #expect(result.faceBlendshapes.isEmpty && result.facialTransformationMatrixes.isEmpty)
        #expect(result.trackIds == nil)
        #expect(Self.largestDistance(result.faceLandmarks, reference) <= 0.5)
    }

    /// `face_landmarker_refined.task`: 478 landmarks, the irises (468–477) inside the eyes, equal
    /// to legacy Face Mesh with refine_landmarks.
    @Test func refinedBundleGivesLegacyRefinedFaceMesh() throws {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("face_landmarker_refined.task").path
        options.baseOptions.numThreads = 2
        let landmarker = try FaceLandmarker(options: options)
        let result = try landmarker.detect(image: MPImage(contentsOfFile: Fixtures.path("images/grace_hopper.png")))
        let reference = try FixtureGoldens.faces("legacy/face_mesh_refined_n1/grace_hopper.json")
        let face = try #require(result.faceLandmarks.first)
        #expect(face.count == 478)
        #expect(Self.largestDistance(result.faceLandmarks, reference) <= 0.5)
        // Each iris centre lies between its eye's corners (33–133 and 362–263).
        for (iris, corners) in [(468, (33, 133)), (473, (362, 263))] {
            let xs = [face[corners.0].x, face[corners.1].x]
            #expect(face[iris].x > xs.min()! && face[iris].x < xs.max()!, "iris \(iris)")
        }
    }

    /// Video mode with 4 faces over the first 30 frames (two faces, then one): MediaPipe's faces
    /// in MediaPipe's order, and a face followed from frame to frame keeps its id.
    @Test func videoModeFollowsLegacyTrackingWithStableIds() throws {
        let landmarker = try Self.landmarker(mode: .video, numFaces: 4)
        var previousIds: Set<Int> = []
        var idsSeen: Set<Int> = []
        for index in 0..<30 {
            let frame = try Self.frame(index)
            let result = try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            let reference = try FixtureGoldens.faces("legacy/video/t1_sweep/face_mesh_plain_n4_tracking/\(frame.name).json")
            try #require(result.faceLandmarks.count == reference.faces.count, "\(frame.name): face count")
            #expect(Self.largestDistance(result.faceLandmarks, reference) <= 0.5, "\(frame.name)")
            let ids = try #require(result.trackIds)
            #expect(ids.count == result.faceLandmarks.count && Set(ids).count == ids.count)
            // Every face still tracked keeps its id; new ids appear only for new faces.
            if index > 0 && reference.detectionCount == 0 {
                #expect(Set(ids).isSubset(of: previousIds), "\(frame.name): ids \(ids) after \(previousIds)")
            }
            previousIds = Set(ids)
            idsSeen.formUnion(ids)
        }
        #expect(idsSeen.count >= 2, "two faces were followed")
    }

    @Test func liveStreamEqualsVideo() throws {
        let recorder = FaceRecorder()
        let live = try Self.landmarker(mode: .liveStream, numFaces: 2, delegate: recorder)
        let frames = try (0..<3).map { try Self.frame($0) }
        for (index, frame) in frames.enumerated() {
            try live.detectAsync(image: frame.image, timestampInMilliseconds: frame.timestamp)
            // One frame at a time, so that none is dropped.
            let deadline = Date().addingTimeInterval(60)
            while recorder.received.count <= index && Date() < deadline {
                usleep(1000)
            }
        }
        live.close()
        let video = try Self.landmarker(mode: .video, numFaces: 2)
        let received = recorder.received
        #expect(received.map(\.timestamp) == frames.map(\.timestamp))
        for (frame, call) in zip(frames, received) {
            #expect(call.error == nil)
            #expect(call.result == (try video.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)))
        }
    }

    @Test func unavailableOutputsAreRefused() throws {
        let blendshapes = FaceLandmarkerOptions()
        blendshapes.baseOptions.modelAssetPath = Self.bundle
        blendshapes.outputFaceBlendshapes = true
        #expect {
            _ = try FaceLandmarker(options: blendshapes)
        } throws: { error in
            guard case TaskError.unavailableOutput(let option, _) = error else { return false }
            return option == "outputFaceBlendshapes" && "\(error)".contains("face_blendshapes.tflite")
        }
        let matrices = FaceLandmarkerOptions()
        matrices.baseOptions.modelAssetPath = Self.bundle
        matrices.outputFacialTransformationMatrixes = true
        #expect {
            _ = try FaceLandmarker(options: matrices)
        } throws: { error in
            guard case TaskError.unavailableOutput(let option, _) = error else { return false }
            return option == "outputFacialTransformationMatrixes"
        }
    }

    @Test func invalidOptionsAreRefused() throws {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = Self.bundle
        options.numFaces = 0
        #expect(throws: TaskError.countOutOfRange(option: "numFaces", value: 0, allowed: 1...FaceLandmarkerOptions.maximumNumFaces)) {
            _ = try FaceLandmarker(options: options)
        }
        options.numFaces = 1
        options.minFacePresenceConfidence = 1.5
        #expect(throws: TaskError.confidenceOutOfRange(option: "minFacePresenceConfidence", value: 1.5)) {
            _ = try FaceLandmarker(options: options)
        }
        options.minFacePresenceConfidence = 0.5
        options.runningMode = .liveStream
        #expect(throws: TaskError.missingLiveStreamDelegate(option: "faceLandmarkerLiveStreamDelegate")) {
            _ = try FaceLandmarker(options: options)
        }
        // A hand bundle has no face members.
        let hand = FaceLandmarkerOptions()
        hand.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_full.task").path
        #expect(throws: (any Error).self) { _ = try FaceLandmarker(options: hand) }
    }

    /// A bundle whose models have other tensor shapes is a `TaskError.invalidModel` naming the role.
    @Test(arguments: [("palm_detection_lite", "face_landmark", "the face detector must have inputs [[1, 128, 128, 3]]"),
                      ("face_detection_short_range", "hand_landmark_lite", "the face landmark model must have inputs [[1, 192, 192, 3]]")])
    func bundleOfModelsWithOtherShapesIsAnInvalidModel(detector: String, landmarks: String, message: String) throws {
        var writer = StoredZipWriter()
        let kind = LandmarkerBundleKind.faceLandmarker
        try writer.addEntry(named: kind.detectorModelName,
                            contents: try #require(FileManager.default.contents(atPath: Fixtures.model(detector))).map { $0 })
        try writer.addEntry(named: kind.landmarksDetectorModelName,
                            contents: try #require(FileManager.default.contents(atPath: Fixtures.model(landmarks))).map { $0 })
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = try writer.finish()
        #expect {
            _ = try FaceLandmarker(options: options)
        } throws: { error in
            guard case TaskError.invalidModel(let text) = error else { return false }
            return text.hasPrefix(message)
        }
    }

    @Test func contoursConnectTheMesh() {
        #expect(FaceLandmarker.lipsConnections.count == 40)
        #expect(FaceLandmarker.leftEyeConnections.count == 16 && FaceLandmarker.rightEyeConnections.count == 16)
        #expect(FaceLandmarker.leftEyebrowConnections.count == 8 && FaceLandmarker.rightEyebrowConnections.count == 8)
        #expect(FaceLandmarker.faceOvalConnections.count == 36)
        #expect(FaceLandmarker.contoursConnections.count == 124)
        #expect(FaceLandmarker.contoursConnections.allSatisfy { $0.start < 468 && $0.end < 468 && $0.start != $0.end })
        #expect(Set(FaceLandmarker.contoursConnections).count == 124, "no edge twice")
        let irises = FaceLandmarker.leftIrisConnections + FaceLandmarker.rightIrisConnections
        #expect(irises.allSatisfy { (468..<478).contains($0.start) && (468..<478).contains($0.end) })
    }
}

/// Records live-stream callbacks (which arrive on the landmarker's private queue).
final class FaceRecorder: FaceLandmarkerLiveStreamDelegate, @unchecked Sendable {
    struct Call {
        let timestamp: Int
        let result: FaceLandmarkerResult?
        let error: (any Error)?
    }

    private let lock = NSLock()
    private var calls: [Call] = []

    var received: [Call] { lock.withLock { calls } }

    func faceLandmarker(
        _ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        lock.withLock { calls.append(Call(timestamp: timestampInMilliseconds, result: result, error: error)) }
    }
}
