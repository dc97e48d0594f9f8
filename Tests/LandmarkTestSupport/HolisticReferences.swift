import Foundation
import Inference
import Kernels
import Pipeline
import TestSupport

/// One frame of a legacy Holistic golden (`legacy/holistic_*`, `legacy/video/*/holistic_*`):
/// its parts and the graph's ROIs (each `[x_center, y_center, width, height, rotation]`, nil
/// where the graph emitted none).
package struct ReferenceHolisticFrame {
    /// One hand's references.
    package struct Hand {
        /// 21 landmarks, normalized to the image; nil when the graph found no hand.
        package let landmarks: [SIMD3<Double>]?
        /// The region around the pose's wrist, pinky and index.
        package let regionFromPose: [Double]?
        /// The hand-recrop model's ROI.
        package let roiFromRecrop: [Double]?
        /// The ROI the hand landmark model ran on.
        package let trackingROI: [Double]?
    }

    package let width: Int
    package let height: Int
    /// The pose (33 landmarks with visibility and presence, 33 world landmarks); nil when none.
    package let pose: ReferencePose?
    /// The ROI the pose landmark model ran on, and the next frame's ROI from the landmarks.
    package let poseROI: [Double]?
    package let poseROIFromLandmarks: [Double]?
    /// 468 or 478 face landmarks; nil when the graph found no face.
    package let face: [SIMD3<Double>]?
    /// The region searched for a face, the face ROI from the first detection in it, and the ROI
    /// the face landmark model ran on.
    package let faceRegion: [Double]?
    package let faceROIFromDetection: [Double]?
    package let faceTrackingROI: [Double]?
    /// How many face detections the region gave (nil when the detector did not run).
    package let faceDetectionCount: Int?
    package let leftHand: Hand
    package let rightHand: Hand
    /// The segmentation mask; nil when the graph emitted none (no pose).
    package let mask: ReferenceMask?
}

/// A legacy golden's segmentation mask: its float32 bytes' hash, mean, the fraction above 0.5,
/// and for some frames an 8-bit PNG of it.
package struct ReferenceMask {
    package let width: Int
    package let height: Int
    /// FNV-1a 64 of the float32 values, row-major, little-endian.
    package let float32Hash: String
    /// The mean, computed in float64.
    package let mean: Double
    package let fractionAboveHalf: Double
    /// `round(clip(mask, 0, 1) · 255)` as a grey PNG, relative to Tests/Fixtures; nil for most clip frames.
    package let pngFile: String?
}

extension FixtureGoldens {
    /// A legacy Holistic golden.
    package static func holistic(_ relative: String) throws -> ReferenceHolisticFrame {
        let json = try Fixtures.json(relative) as! [String: Any]
        let image = json["image"] as! [String: Any]
        let intermediate = json["intermediate"] as! [String: Any]
        func rect(_ value: Any?) -> [Double]? {
            guard let rect = value as? [String: NSNumber] else { return nil }
            return ["x_center", "y_center", "width", "height", "rotation"].map { rect[$0]!.doubleValue }
        }
        func points(_ value: Any?) -> [SIMD3<Double>]? {
            guard let list = value as? [[String: NSNumber]] else { return nil }
            return list.map { SIMD3($0["x"]!.doubleValue, $0["y"]!.doubleValue, $0["z"]!.doubleValue) }
        }
        let hands = "handlandmarksleftandrightcpu__"
        func hand(_ side: String) -> ReferenceHolisticFrame.Hand {
            ReferenceHolisticFrame.Hand(
                landmarks: points(json["\(side)_hand_landmarks"]),
                regionFromPose: rect(intermediate["\(hands)\(side)_hand_roi_from_pose"]),
                roiFromRecrop: rect(intermediate["\(hands)\(side)_hand_roi_from_recrop"]),
                trackingROI: rect(intermediate["\(hands)\(side)_hand_tracking_roi"]))
        }
        var pose: ReferencePose?
        if let landmarks = json["pose_landmarks"] as? [[String: NSNumber]] {
            pose = ReferencePose(
                landmarks: points(landmarks)!, visibility: landmarks.map { $0["visibility"]!.doubleValue },
                presence: landmarks.map { $0["presence"]!.doubleValue }, world: points(json["pose_world_landmarks"])!)
        }
        let face = "facelandmarksfromposecpu__"
        return ReferenceHolisticFrame(
            width: image["width"] as! Int, height: image["height"] as! Int, pose: pose,
            poseROI: rect(intermediate["poselandmarkcpu__pose_rect"]),
            poseROIFromLandmarks: rect(json["pose_landmarks_roi"]),
            face: (json["face_landmarks"] as? [[NSNumber]])?.map {
                SIMD3($0[0].doubleValue, $0[1].doubleValue, $0[2].doubleValue)
            },
            faceRegion: rect(intermediate["\(face)face_roi_from_pose"]),
            faceROIFromDetection: rect(intermediate["\(face)face_roi_from_detection"]),
            faceTrackingROI: rect(intermediate["\(face)face_tracking_roi"]),
            faceDetectionCount: (intermediate["\(face)face_detections"] as? [Any])?.count,
            leftHand: hand("left"), rightHand: hand("right"),
            mask: (json["segmentation_mask"] as? [String: Any]).map { mask in
                ReferenceMask(
                    width: mask["width"] as! Int, height: mask["height"] as! Int,
                    float32Hash: mask["float32_fnv1a64"] as! String, mean: (mask["mean"] as! NSNumber).doubleValue,
                    fractionAboveHalf: (mask["fraction_gt_0.5"] as! NSNumber).doubleValue, pngFile: mask["file"] as? String)
            })
    }
}

extension LandmarkGraphs {
    /// The holistic graph on the models under `models/` (the pose detector without the sparse
    /// kernels, as the pose landmarker runs it); `refined`: with the attention face model;
    /// `masks`: each person's segmentation mask.
    package static func holistic(streamMode: Bool, refined: Bool = false, masks: Bool = false) throws -> HolisticGraph {
        func model(
            _ name: String, sparse: Bool = true, rounding: PointwiseDepthwiseRounding = .fused
        ) throws -> Interpreter {
            try Interpreter(
                contentsOfFile: Fixtures.model(name),
                options: .init(threadCount: 2, usesSparseKernels: sparse, pointwiseDepthwiseRounding: rounding))
        }
        return try HolisticGraph(
            models: .init(
                poseDetector: model("pose_detection", sparse: false), poseLandmarks: model("pose_landmark_full"),
                faceDetector: model("face_detection_short_range"),
                faceLandmarks: model(refined ? "face_landmark_with_attention" : "face_landmark"),
                handRecrop: model("hand_recrop", rounding: .separate), handLandmarks: model("hand_landmark_full")),
            configuration: .init(
                minDetectionConfidence: 0.5, minTrackingConfidence: 0.5, streamMode: streamMode,
                outputSegmentationMasks: masks))
    }
}
