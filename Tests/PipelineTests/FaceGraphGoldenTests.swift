import Kernels
import LandmarkTestSupport
@testable import Pipeline
import TestSupport
import Testing

/// The face mesh graph against MediaPipe's legacy Face Mesh (`face_landmark_front_cpu`,
/// `Tests/Fixtures/legacy/face_mesh_*`): every fixture image in image mode with the plain and the
/// refined model, and the clip frame by frame (4 faces) and as a stream (1 and 4 faces; refined,
/// 1 face). The faces come in MediaPipe's order, the ROIs
/// from detections are MediaPipe's bit for bit, and in the native build (fused multiply-adds)
/// every landmark is within 0.001 px (mean 0.0005 px) of MediaPipe's: its output to the
/// references' precision.
@Suite struct FaceGraphGoldenTests {
    static let images = [
        "bus", "zidane", "astronaut", "grace_hopper", "camera", "coffee", "chelsea", "t1",
        "bus_man", "bus_man_rot90cw", "t1_cards_left", "t1_cards_right", "t1_chip",
        "t1_chip_mirror",
    ]
    static let clipFrames = 50

    @Test(arguments: images, [false, true])
    func imageModeMatchesLegacyGolden(name: String, refined: Bool) throws {
        let graph = try LandmarkGraphs.face(numFaces: 1, streamMode: false, refined: refined)
        let image = try Fixtures.uprightImage(contentsOfFile: Fixtures.path("images/\(name).png"))
        let faces = try graph.process(image)
        let reference = try FixtureGoldens.faces("legacy/face_mesh_\(refined ? "refined" : "plain")_n1/\(name).json")
        #expect(graph.detectorRuns == 1)
        // Image mode: every ROI comes from a detection, and each is MediaPipe's, bit for bit.
        let theirs = reference.roisFromDetections.prefix(faces.count)
        for (face, rect) in zip(faces, theirs) {
            let ours = face.roi
            #expect([ours.xCenter, ours.yCenter, ours.width, ours.height, ours.rotation] == rect.map { Float($0) },
                    "\(name): ROI \(ours) vs MediaPipe's \(rect)")
        }
        Self.expectMatches(faces, reference, "\(name)")
    }

    @Test(arguments: [("plain", 1, "tracking"), ("plain", 4, "tracking"), ("plain", 4, "static"), ("refined", 1, "tracking")])
    func clipMatchesLegacyGolden(model: String, numFaces: Int, mode: String) throws {
        let stream = mode == "tracking"
        let graph = try LandmarkGraphs.face(numFaces: numFaces, streamMode: stream, refined: model == "refined")
        var detectorRunsSeen = 0
        for frame in 0..<Self.clipFrames {
            let file = String(format: "frame_%04d", frame)
            let image = try Fixtures.uprightImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(file).png"))
            let faces = try graph.process(image)
            let reference = try FixtureGoldens.faces(
                "legacy/video/t1_sweep/face_mesh_\(model)_n\(numFaces)_\(mode)/\(file).json")
            // The graph emits detections exactly on the frames its detector ran.
            let ran = graph.detectorRuns > detectorRunsSeen
            detectorRunsSeen = graph.detectorRuns
            if !ran {
                #expect(reference.detectionCount == 0, "\(mode) n\(numFaces) \(file): MediaPipe ran its detector, we did not")
            }
            if stream {
                #expect(Set(faces.compactMap(\.trackId)).count == faces.count, "\(file): track ids unique")
            }
            Self.expectMatches(faces, reference, "\(mode) n\(numFaces) \(file)")
        }
    }

    static func expectMatches(
        _ faces: [FaceGraph.Face], _ reference: ReferenceFaceFrame, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard faces.count == reference.faces.count else {
            Issue.record("\(label): \(faces.count) faces, MediaPipe found \(reference.faces.count)", sourceLocation: sourceLocation)
            return
        }
        let width = Double(reference.width)
        let height = Double(reference.height)
        var maxDistance = 0.0
        var sum = 0.0
        var count = 0
        for (face, theirs) in zip(faces, reference.faces) {
            #expect(face.landmarks.count == theirs.count, "\(label): landmark count", sourceLocation: sourceLocation)
            for (ours, their) in zip(face.landmarks, theirs) {
                let dx = (Double(ours.x) - their.x) * width
                let dy = (Double(ours.y) - their.y) * height
                let distance = (dx * dx + dy * dy).squareRoot()
                maxDistance = max(maxDistance, distance)
                sum += distance
                count += 1
            }
        }
        guard count > 0 else { return }
        let mean = sum / Double(count)
        print(String(format: "%@: %d face(s), mean %.6f px, max %.6f px", label, faces.count, mean, maxDistance))
        #expect(mean <= 0.0005 || !KernelInstructionSet.fusesMultiplyAdd,
                "\(label): mean landmark distance \(mean) px", sourceLocation: sourceLocation)
        #expect(mean <= 0.5, "\(label): mean landmark distance \(mean) px", sourceLocation: sourceLocation)
        if KernelInstructionSet.fusesMultiplyAdd {
            #expect(maxDistance <= 0.001, "\(label): largest distance \(maxDistance) px", sourceLocation: sourceLocation)
        }
    }
}
