import Foundation
import Inference
import Kernels
import Pipeline
import TestSupport
import Testing

// What the landmark test targets (PipelineTests, MediaPipeTasksVisionTests, MLKitTests) share: the
// MediaPipe references, the graphs as the landmarkers build them, and the acceptance criteria.
// `package` access, as the graphs' types have: every target of this package sees it.

/// One pose of a MediaPipe reference (fixture golden or sample reference).
package struct ReferencePose {
    /// 33 landmarks, normalized to the image (z at about the x scale).
    package let landmarks: [SIMD3<Double>]
    package let visibility: [Double]
    package let presence: [Double]
    /// 33 world landmarks, metres.
    package let world: [SIMD3<Double>]

    package init(landmarks: [SIMD3<Double>], visibility: [Double], presence: [Double], world: [SIMD3<Double>]) {
        self.landmarks = landmarks
        self.visibility = visibility
        self.presence = presence
        self.world = world
    }
}

/// One hand of a MediaPipe reference (fixture golden or sample reference).
package struct ReferenceHand {
    /// 21 landmarks, normalized to the image.
    package let landmarks: [SIMD3<Double>]
    /// 21 world landmarks, metres.
    package let world: [SIMD3<Double>]
    package let handednessIndex: Int
    package let handednessScore: Double
    package let handednessLabel: String

    package init(
        landmarks: [SIMD3<Double>], world: [SIMD3<Double>], handednessIndex: Int, handednessScore: Double,
        handednessLabel: String
    ) {
        self.landmarks = landmarks
        self.world = world
        self.handednessIndex = handednessIndex
        self.handednessScore = handednessScore
        self.handednessLabel = handednessLabel
    }
}

/// The fixture goldens of the landmark graphs (`Tests/Fixtures/tasks`, `Tests/Fixtures/legacy`).
package enum FixtureGoldens {
    /// A fixture golden's poses (`tasks/<folder>/<name>.json`) and the mask file of each.
    package static func poses(_ folder: String, _ name: String)
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

    /// The hands of a legacy or Tasks hand golden (`label` or `category_name`).
    package static func hands(_ relative: String) throws -> (width: Int, height: Int, hands: [ReferenceHand]) {
        let json = try Fixtures.json(relative) as! [String: Any]
        let image = json["image"] as! [String: Any]
        func points(_ value: Any?) -> [SIMD3<Double>] {
            (value as! [[String: NSNumber]]).map { SIMD3($0["x"]!.doubleValue, $0["y"]!.doubleValue, $0["z"]!.doubleValue) }
        }
        let hands = (json["hands"] as! [[String: Any]]).map { hand in
            let category = (hand["handedness"] as! [[String: Any]])[0]
            return ReferenceHand(
                landmarks: points(hand["landmarks"]), world: points(hand["world_landmarks"]),
                handednessIndex: category["index"] as! Int,
                handednessScore: (category["score"] as! NSNumber).doubleValue,
                handednessLabel: (category["label"] ?? category["category_name"]) as! String)
        }
        return (image["width"] as! Int, image["height"] as! Int, hands)
    }
}

/// One frame of a legacy Face Mesh golden (`legacy/face_mesh_*`): its faces and the graph's ROIs.
package struct ReferenceFaceFrame {
    package let width: Int
    package let height: Int
    /// Each face's landmarks (468 or 478), normalized to the image, in the graph's order.
    package let faces: [[SIMD3<Double>]]
    /// How many detections the graph's detector output (0 when it did not run).
    package let detectionCount: Int
    /// The ROIs from the detections, then from the landmarks, as (x_center, y_center, width,
    /// height, rotation).
    package let roisFromDetections: [[Double]]
    package let roisFromLandmarks: [[Double]]
}

extension FixtureGoldens {
    /// A legacy Face Mesh golden (`legacy/.../face_mesh_*/<name>.json`).
    package static func faces(_ relative: String) throws -> ReferenceFaceFrame {
        let json = try Fixtures.json(relative) as! [String: Any]
        let image = json["image"] as! [String: Any]
        let intermediate = json["intermediate"] as! [String: Any]
        func rects(_ key: String) -> [[Double]] {
            (intermediate[key] as! [[String: NSNumber]]).map { rect in
                ["x_center", "y_center", "width", "height", "rotation"].map { rect[$0]!.doubleValue }
            }
        }
        return ReferenceFaceFrame(
            width: image["width"] as! Int, height: image["height"] as! Int,
            faces: (json["faces"] as! [[String: Any]]).map { face in
                (face["landmarks"] as! [[NSNumber]]).map { SIMD3($0[0].doubleValue, $0[1].doubleValue, $0[2].doubleValue) }
            },
            detectionCount: (intermediate["face_detections"] as! [Any]).count,
            roisFromDetections: rects("face_rects_from_detections"),
            roisFromLandmarks: rects("face_rects_from_landmarks"))
    }
}

/// The landmark graphs as the landmarkers build them, on the models under `models/`.
package enum LandmarkGraphs {
    /// The pose graph as `PoseLandmarker` builds it (models run without the sparse kernels).
    package static func pose(numPoses: Int, masks: Bool) throws -> PoseGraph {
        try PoseGraph(
            detector: Interpreter(
                contentsOfFile: Fixtures.model("pose_detection"), options: .init(threadCount: 2, usesSparseKernels: false)),
            landmarkModel: Interpreter(contentsOfFile: Fixtures.model("pose_landmark_full"), options: .init(threadCount: 2)),
            configuration: .init(
                numPoses: numPoses, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                minTrackingConfidence: 0.5, outputSegmentationMasks: masks, streamMode: false))
    }

    /// The hand models: full or lite palm detector and landmark model.
    package enum HandVariant: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case full, lite
        package var palmModel: String { "palm_detection_\(rawValue)" }
        package var landmarkModel: String { "hand_landmark_\(rawValue)" }
        package var testDescription: String { rawValue }
    }

    /// The face mesh graph as `FaceLandmarker` builds it; `refined`: with the attention model.
    package static func face(numFaces: Int, streamMode: Bool, refined: Bool = false) throws -> FaceGraph {
        try FaceGraph(
            detector: Interpreter(contentsOfFile: Fixtures.model("face_detection_short_range"), options: .init(threadCount: 2)),
            landmarkModel: Interpreter(
                contentsOfFile: Fixtures.model(refined ? "face_landmark_with_attention" : "face_landmark"),
                options: .init(threadCount: 2)),
            configuration: .init(
                numFaces: numFaces, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5, streamMode: streamMode))
    }

    package static func hand(_ variant: HandVariant, numHands: Int, streamMode: Bool) throws -> HandGraph {
        try HandGraph(
            detector: Interpreter(contentsOfFile: Fixtures.model(variant.palmModel), options: .init(threadCount: 2)),
            landmarkModel: Interpreter(contentsOfFile: Fixtures.model(variant.landmarkModel), options: .init(threadCount: 2)),
            configuration: .init(
                numHands: numHands, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                minTrackingConfidence: 0.5, streamMode: streamMode))
    }
}

/// Our graphs' output against references, and the acceptance criteria shared by the fixture
/// golden tests and the sample reference tests.
package enum LandmarkComparison {
    package static func points(_ landmarks: [RawLandmark], width: Int, height: Int) -> [SIMD2<Double>] {
        landmarks.map { SIMD2(Double($0.x) * Double(width), Double($0.y) * Double(height)) }
    }

    package static func points(_ landmarks: [SIMD3<Double>], width: Int, height: Int) -> [SIMD2<Double>] {
        landmarks.map { SIMD2($0.x * Double(width), $0.y * Double(height)) }
    }

    package static func world(_ landmarks: [RawWorldLandmark]) -> [SIMD3<Double>] {
        landmarks.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) }
    }

    /// Landmark, world and visibility/presence differences of poses matched by
    /// `LandmarkMatching.pairs` (the counts must be equal); `pairs[i]` is the reference pose of `poses[i]`.
    package static func compare(_ poses: [PoseGraph.Pose], with reference: [ReferencePose], width: Int, height: Int)
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
    package struct HandComparison {
        package var errors = LandmarkErrors()
        /// Each of our labels is the legacy label swapped (the Tasks convention), with the same index.
        package var labelsOpposite = true
    }

    package static func compare(_ hands: [HandGraph.Hand], withLegacy legacy: [ReferenceHand], width: Int, height: Int)
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
    package static func expectPoseAccepted(
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
    package static func expectMaskAccepted(
        _ ours: [Float], _ reference: [Bool], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let iou = MaskComparison.iou(ours.map { $0 > 0.5 }, reference)
        print(String(format: "%@: mask IoU %.4f", label, iou))
        #expect(iou >= 0.98, "\(label): mask IoU \(iou)", sourceLocation: sourceLocation)
    }

    /// Hand acceptance: mean ≤ 0.5 px, p95 ≤ 1.5 px, world ≤ 2 mm mean, the legacy label swapped
    /// with the same index, handedness score within 0.01; in the native build (fused multiply-adds)
    /// every landmark within 0.001 px, MediaPipe's output to the references' precision.
    package static func expectHandsAccepted(
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
