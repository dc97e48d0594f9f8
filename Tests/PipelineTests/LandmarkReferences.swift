import Foundation
import Kernels
@testable import Pipeline
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// One pose of a MediaPipe reference (fixture golden or sample reference).
struct ReferencePose {
    /// 33 landmarks, normalized to the image (z at about the x scale).
    let landmarks: [SIMD3<Double>]
    let visibility: [Double]
    let presence: [Double]
    /// 33 world landmarks, metres.
    let world: [SIMD3<Double>]
}

/// One hand of a MediaPipe reference (fixture golden or sample reference).
struct ReferenceHand {
    /// 21 landmarks, normalized to the image.
    let landmarks: [SIMD3<Double>]
    /// 21 world landmarks, metres.
    let world: [SIMD3<Double>]
    let handednessIndex: Int
    let handednessScore: Double
    let handednessLabel: String
}

/// Our graphs' output against references, and the acceptance criteria shared by the fixture
/// golden tests and the sample reference tests.
enum LandmarkComparison {
    static func points(_ landmarks: [RawLandmark], width: Int, height: Int) -> [SIMD2<Double>] {
        landmarks.map { SIMD2(Double($0.x) * Double(width), Double($0.y) * Double(height)) }
    }

    static func points(_ landmarks: [SIMD3<Double>], width: Int, height: Int) -> [SIMD2<Double>] {
        landmarks.map { SIMD2($0.x * Double(width), $0.y * Double(height)) }
    }

    static func world(_ landmarks: [RawWorldLandmark]) -> [SIMD3<Double>] {
        landmarks.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) }
    }

    /// Landmark, world and visibility/presence differences of poses matched by
    /// `LandmarkMatching.pairs` (the counts must be equal); `pairs[i]` is the reference pose of `poses[i]`.
    static func compare(_ poses: [PoseGraph.Pose], with reference: [ReferencePose], width: Int, height: Int)
        -> (errors: LandmarkErrors, pairs: [Int]) {
        let ours = poses.map { points($0.landmarks, width: width, height: height) }
        let theirs = reference.map { points($0.landmarks, width: width, height: height) }
        let pairs = LandmarkMatching.pairs(ours, theirs)
        var errors = LandmarkErrors()
        for (i, j) in pairs.enumerated() {
            errors.addPoints(ours[i], theirs[j])
            errors.addWorld(world(poses[i].worldLandmarks), reference[j].world)
            errors.addScores(poses[i].landmarks.map { Double($0.visibility) }, reference[j].visibility)
            errors.addScores(poses[i].landmarks.map { Double($0.presence) }, reference[j].presence)
        }
        return (errors, pairs)
    }

    /// Hands compared with legacy reference hands (same count), matched by `LandmarkMatching.pairs`.
    struct HandComparison {
        var errors = LandmarkErrors()
        /// Each of our labels is the legacy label swapped (the Tasks convention), with the same index.
        var labelsOpposite = true
    }

    static func compare(_ hands: [HandGraph.Hand], withLegacy legacy: [ReferenceHand], width: Int, height: Int)
        -> HandComparison {
        let ours = hands.map { points($0.landmarks, width: width, height: height) }
        let theirs = legacy.map { points($0.landmarks, width: width, height: height) }
        var comparison = HandComparison()
        for (i, j) in LandmarkMatching.pairs(ours, theirs).enumerated() {
            comparison.errors.addPoints(ours[i], theirs[j])
            comparison.errors.addWorld(world(hands[i].worldLandmarks), legacy[j].world)
            comparison.errors.addScores([Double(hands[i].handedness.score)], [legacy[j].handednessScore])
            let legacyLabels = HandednessConvention.legacy.labels
            let opposite = legacy[j].handednessLabel == legacyLabels.index0 ? legacyLabels.index1 : legacyLabels.index0
            comparison.labelsOpposite = comparison.labelsOpposite && hands[i].handedness.label == opposite
                && hands[i].handedness.index == legacy[j].handednessIndex
        }
        return comparison
    }

    /// Pose acceptance: mean ≤ 0.5 px, p95 ≤ 1.5 px, world ≤ 5 mm mean, visibility and presence within 0.02.
    static func expectPoseAccepted(
        _ errors: LandmarkErrors, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        print(errors.summary(label))
        #expect(errors.mean <= 0.5, "\(label): mean landmark distance \(errors.mean) px", sourceLocation: sourceLocation)
        #expect(errors.p95 <= 1.5, "\(label): 95th percentile \(errors.p95) px", sourceLocation: sourceLocation)
        #expect(errors.worldMean <= 0.005, "\(label): world landmarks \(errors.worldMean) m", sourceLocation: sourceLocation)
        #expect(errors.maxScoreError <= 0.02, "\(label): visibility/presence \(errors.maxScoreError)",
                sourceLocation: sourceLocation)
    }

    /// Mask acceptance: IoU of the pixels above 0.5 at least 0.98.
    static func expectMaskAccepted(
        _ ours: [Float], _ reference: [Bool], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let iou = MaskComparison.iou(ours.map { $0 > 0.5 }, reference)
        print(String(format: "%@: mask IoU %.4f", label, iou))
        #expect(iou >= 0.98, "\(label): mask IoU \(iou)", sourceLocation: sourceLocation)
    }

    /// Hand acceptance: mean ≤ 0.5 px, p95 ≤ 1.5 px, world ≤ 2 mm mean, the legacy label swapped
    /// with the same index, handedness score within 0.01; in the native build (fused multiply-adds)
    /// every landmark within 0.001 px, MediaPipe's output to the references' precision.
    static func expectHandsAccepted(
        _ comparison: HandComparison, _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let errors = comparison.errors
        print(errors.summary(label))
        #expect(errors.mean <= 0.5, "\(label): mean landmark distance \(errors.mean) px", sourceLocation: sourceLocation)
        #expect(errors.p95 <= 1.5, "\(label): 95th percentile \(errors.p95) px", sourceLocation: sourceLocation)
        #expect(errors.worldMean <= 0.002, "\(label): world landmarks \(errors.worldMean) m", sourceLocation: sourceLocation)
        #expect(comparison.labelsOpposite, "\(label): handedness must be the legacy label swapped, same index",
                sourceLocation: sourceLocation)
        #expect(errors.maxScoreError <= 0.01, "\(label): handedness score \(errors.maxScoreError)",
                sourceLocation: sourceLocation)
        if KernelInstructionSet.fusesMultiplyAdd {
            #expect(errors.maxDistance <= 0.001, "\(label): MediaPipe's landmarks to the references' precision: largest distance \(errors.maxDistance) px",
                    sourceLocation: sourceLocation)
        }
    }
}
