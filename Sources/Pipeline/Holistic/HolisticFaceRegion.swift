/// Where the holistic graph looks for a person's face (`FaceLandmarksFromPoseCpu`,
/// docs/PIPELINE.md, "Holistic face"): a region around the pose's face landmarks, and the face
/// ROI from a face detection inside it.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum HolisticFaceRegion {
    /// The pose landmarks that outline the face: 0–10 (nose, eyes, ears, mouth corners).
    package static let poseLandmarkRange = 0..<11

    /// The region searched for a face: the box of pose landmarks 0–10, rotation from the right
    /// eye (5) to the left eye (2) with target 0°, squared (longer side) and scaled by 3.
    ///
    /// - Parameters:
    ///   - poseLandmarks: the 33 pose landmarks, normalized to the image.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    /// - Throws: ``PipelineInputError/tooFewLandmarks(needed:available:)`` for fewer than 11.
    package static func region(poseLandmarks: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        guard poseLandmarks.count >= poseLandmarkRange.upperBound else {
            throw PipelineInputError.tooFewLandmarks(needed: poseLandmarkRange.upperBound, available: poseLandmarks.count)
        }
        let face = Detection(enclosing: Array(poseLandmarks[poseLandmarkRange]))
        let rect = try DetectionToRect.faceRegionFromPose.rect(for: face, imageWidth: imageWidth, imageHeight: imageHeight)
        return RectTransformation.faceRegionFromPose.apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The face ROI from a face detection in the region: the box around the detection's six
    /// keypoints, rotation from the right eye (keypoint 0) to the left eye (1) with target 0°,
    /// shifted up by a tenth of its height, squared and scaled by 2.
    ///
    /// - Parameters:
    ///   - detection: normalized to the image.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    /// - Throws: ``PipelineInputError/tooFewKeypoints(needed:available:)`` for fewer than 2 keypoints.
    package static func roi(fromDetection detection: Detection, imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        let rect = try DetectionToRect.faceFromRegionDetection.rect(
            for: detection, imageWidth: imageWidth, imageHeight: imageHeight)
        return RectTransformation.faceFromRegionDetection.apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// Whether `point` (normalized to the image) lies in `box` (normalized, edges included): with
    /// several people, a face detection is the person's own when its box holds their pose's nose.
    package static func contains(_ point: RawLandmark, in box: RelativeBox) -> Bool {
        box.xmin <= point.x && point.x <= box.xmin + box.width && box.ymin <= point.y && point.y <= box.ymin + box.height
    }
}
