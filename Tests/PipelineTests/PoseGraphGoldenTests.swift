import Foundation
import ImageIO
import Kernels
import LandmarkTestSupport
@testable import Pipeline
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

    @Test(arguments: images)
    func imageModeMatchesTasksGolden(name: String) throws {
        let graph = try LandmarkGraphs.pose(numPoses: 1, masks: true)
        let image = try Fixtures.uprightImage(contentsOfFile: Fixtures.path("images/\(name).png"))
        let poses = try graph.process(image, timestampMicroseconds: 0)
        let golden = try FixtureGoldens.poses("pose_full_n1", name)
        try #require(poses.count == golden.poses.count, "\(name): \(poses.count) poses, MediaPipe found \(golden.poses.count)")
        guard let pose = poses.first, let expected = golden.poses.first else { return }

        let comparison = LandmarkComparison.compare([pose], with: [expected], width: golden.width, height: golden.height)
        LandmarkComparison.expectPoseAccepted(comparison.errors, name)

        if let maskFile = golden.maskFiles[0], let mask = pose.mask {
            let png = try PNGCodec.decode(contentsOfFile: Fixtures.path(maskFile))
            try #require(png.width * png.height == mask.count, "\(name): mask size differs from \(maskFile)")
            let reference = (0..<(png.width * png.height)).map { png.pixels[3 * $0] > 127 }
            LandmarkComparison.expectMaskAccepted(mask, reference, name)
            let differing = mask.indices.filter { Int((min(max(mask[$0], 0), 1) * 255).rounded()) != Int(png.pixels[3 * $0]) }
            print("\(name): \(differing.count) mask pixels differ from MediaPipe's 8-bit mask")
            if KernelInstructionSet.fusesMultiplyAdd {
                #expect(differing.isEmpty, "\(name): \(differing.count) mask pixels differ from \(maskFile)")
            }
        }
    }
}
