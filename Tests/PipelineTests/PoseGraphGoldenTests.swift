import Foundation
import ImageIO
@testable import Pipeline
@testable import MediaPipeTasksVision
import Inference
import TestSupport
import Testing

/// The pose graph in image mode against MediaPipe's Tasks PoseLandmarker
/// output on every fixture image (`tasks/pose_full_n1`, `tasks/pose_full_n4`).
@Suite struct PoseGraphGoldenTests {
    static let images = [
        "bus", "zidane", "astronaut", "grace_hopper", "camera", "coffee", "chelsea", "t1",
        "bus_man", "bus_man_rot90cw", "t1_cards_left", "t1_cards_right", "t1_chip",
        "t1_chip_mirror",
    ]

    /// The graph as `PoseLandmarker` builds it (models run without the sparse kernels).
    static func makeGraph(numPoses: Int, masks: Bool) throws -> PoseGraph {
        try PoseGraph(
            detector: Interpreter(
                contentsOfFile: Fixtures.model("pose_detection"), options: .init(threadCount: 2, usesSparseKernels: false)),
            landmarkModel: Interpreter(contentsOfFile: Fixtures.model("pose_landmark_full"), options: .init(threadCount: 2)),
            configuration: .init(
                numPoses: numPoses, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                minTrackingConfidence: 0.5, outputSegmentationMasks: masks, streamMode: false))
    }

    /// A fixture golden's poses (`tasks/<folder>/<name>.json`) and the mask file of each.
    static func goldenPoses(_ folder: String, _ name: String)
        throws -> (width: Int, height: Int, poses: [ReferencePose], maskFiles: [String?]) {
        let json = try Fixtures.json("tasks/\(folder)/\(name).json") as! [String: Any]
        let image = json["image"] as! [String: Any]
        let poses = json["poses"] as! [[String: Any]]
        let references = poses.map { pose in
            let landmarks = pose["landmarks"] as! [[String: NSNumber]]
            return ReferencePose(
                landmarks: landmarks.map { SIMD3($0["x"]!.doubleValue, $0["y"]!.doubleValue, $0["z"]!.doubleValue) },
                visibility: landmarks.map { $0["visibility"]!.doubleValue },
                presence: landmarks.map { $0["presence"]!.doubleValue },
                world: (pose["world_landmarks"] as! [[String: NSNumber]]).map {
                    SIMD3($0["x"]!.doubleValue, $0["y"]!.doubleValue, $0["z"]!.doubleValue)
                })
        }
        let maskFiles = poses.map { ($0["segmentation_mask"] as? [String: Any])?["file"] as? String }
        return (image["width"] as! Int, image["height"] as! Int, references, maskFiles)
    }

    @Test(arguments: images)
    func imageModeMatchesTasksGolden(name: String) throws {
        let graph = try Self.makeGraph(numPoses: 1, masks: true)
        let image = try MPImage(contentsOfFile: Fixtures.path("images/\(name).png"))
        let poses = try graph.process(image.uprightRGBImage(), timestampMicroseconds: 0)
        let golden = try Self.goldenPoses("pose_full_n1", name)
        try #require(poses.count == golden.poses.count, "\(name): \(poses.count) poses, MediaPipe found \(golden.poses.count)")
        guard let pose = poses.first, let expected = golden.poses.first else { return }

        let comparison = LandmarkComparison.compare([pose], with: [expected], width: golden.width, height: golden.height)
        LandmarkComparison.expectPoseAccepted(comparison.errors, name)

        if let maskFile = golden.maskFiles[0], let mask = pose.mask {
            let png = try PNGCodec.decode(contentsOfFile: Fixtures.path(maskFile))
            try #require(png.width * png.height == mask.count, "\(name): mask size differs from \(maskFile)")
            let reference = (0..<(png.width * png.height)).map { png.pixels[3 * $0] > 127 }
            LandmarkComparison.expectMaskAccepted(mask, reference, name)
        }
    }
}
