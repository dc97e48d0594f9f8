import Foundation
import ImageIO
@testable import Pipeline
import Inference
import TestSupport
import Testing

/// The pose graph in image mode against MediaPipe's Tasks PoseLandmarker
/// output on every fixture image (`tasks/pose_full_n1`, `tasks/pose_full_n4`).
@Suite struct PoseGraphGoldenTests {
    static let images = [
        "bus", "zidane", "astronaut", "grace_hopper", "camera", "coffee", "mp_pose_sitting",
        "mp_pose_sitting_rot90cw", "mp_hand_thumb_up", "hagrid_palm", "hagrid_peace",
        "hagrid_take_photo", "mp_thumbs_up_black", "chelsea",
    ]

    static func makeGraph(numPoses: Int, masks: Bool) throws -> PoseGraph {
        try PoseGraph(
            detector: Interpreter(contentsOfFile: Fixtures.model("pose_detection"), options: .init(threadCount: 2)),
            landmarkModel: Interpreter(contentsOfFile: Fixtures.model("pose_landmark_full"), options: .init(threadCount: 2)),
            configuration: .init(
                numPoses: numPoses, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                minTrackingConfidence: 0.5, outputSegmentationMasks: masks, streamMode: false))
    }

    struct GoldenPose {
        let landmarks: [[String: Double]]
        let world: [[String: Double]]
        let maskFile: String?
    }

    static func goldenPoses(_ folder: String, _ name: String) throws -> (width: Int, height: Int, poses: [GoldenPose]) {
        let json = try Fixtures.json("tasks/\(folder)/\(name).json") as! [String: Any]
        let image = json["image"] as! [String: Any]
        let poses = (json["poses"] as! [[String: Any]]).map { pose in
            GoldenPose(
                landmarks: (pose["landmarks"] as! [[String: Any]]).map { $0.mapValues { ($0 as! NSNumber).doubleValue } },
                world: (pose["world_landmarks"] as! [[String: Any]]).map { $0.mapValues { ($0 as! NSNumber).doubleValue } },
                maskFile: (pose["segmentation_mask"] as? [String: Any])?["file"] as? String)
        }
        return (image["width"] as! Int, image["height"] as! Int, poses)
    }

    @Test(arguments: images)
    func imageModeMatchesTasksGolden(name: String) throws {
        let graph = try Self.makeGraph(numPoses: 1, masks: true)
        let image = try MPImage(contentsOfFile: Fixtures.path("images/\(name).png"))
        let poses = try graph.process(image.uprightRGBImage(), timestampMicroseconds: 0)
        let golden = try Self.goldenPoses("pose_full_n1", name)
        try #require(poses.count == golden.poses.count, "\(name): \(poses.count) poses, MediaPipe found \(golden.poses.count)")
        guard let pose = poses.first, let expected = golden.poses.first else { return }

        var distances: [Double] = []
        var worldErrors: [Double] = []
        var scoreErrors: [Double] = []
        for (i, landmark) in pose.landmarks.enumerated() {
            let e = expected.landmarks[i]
            let dx = (Double(landmark.x) - e["x"]!) * Double(golden.width)
            let dy = (Double(landmark.y) - e["y"]!) * Double(golden.height)
            distances.append((dx * dx + dy * dy).squareRoot())
            scoreErrors.append(abs(Double(landmark.visibility) - e["visibility"]!))
            scoreErrors.append(abs(Double(landmark.presence) - e["presence"]!))
            let w = pose.worldLandmarks[i], ew = expected.world[i]
            let d = SIMD3(Double(w.x) - ew["x"]!, Double(w.y) - ew["y"]!, Double(w.z) - ew["z"]!)
            worldErrors.append((d * d).sum().squareRoot())
        }
        let mean = distances.reduce(0, +) / Double(distances.count)
        let p95 = distances.sorted()[Int(Double(distances.count - 1) * 0.95)]
        let worldMean = worldErrors.reduce(0, +) / Double(worldErrors.count)
        print(String(format: "%@: mean %.3f px, p95 %.3f px, max %.3f px, world %.2f mm, scores %.4f",
                     name, mean, p95, distances.max()!, worldMean * 1000, scoreErrors.max()!))
        #expect(mean <= 0.5, "\(name): mean landmark distance \(mean) px")
        #expect(p95 <= 1.5, "\(name): 95th percentile \(p95) px")
        #expect(worldMean <= 0.005, "\(name): world landmarks \(worldMean) m")
        #expect(scoreErrors.max()! <= 0.02, "\(name): visibility/presence")

        if let maskFile = expected.maskFile, let mask = pose.mask {
            let golden = try PNGCodec.decode(contentsOfFile: Fixtures.path(maskFile))
            var intersection = 0, union = 0
            for i in mask.indices {
                let ours = mask[i] > 0.5, theirs = golden.pixels[3 * i] > 127
                if ours && theirs { intersection += 1 }
                if ours || theirs { union += 1 }
            }
            let iou = union == 0 ? 1 : Double(intersection) / Double(union)
            print(String(format: "%@: mask IoU %.4f", name, iou))
            #expect(iou >= 0.98, "\(name): mask IoU \(iou)")
        }
    }
}
