/// The face ROI built from a frame's face landmarks, for the next frame (MediaPipe
/// `LandmarksToDetectionCalculator` + `DetectionsToRectsCalculator` + `RectTransformationCalculator`
/// of the face mesh graph's `FaceLandmarkLandmarksToRoi`, docs/PIPELINE.md, "Face tracking").
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum FaceTrackingRect {
    /// The landmarks as a detection: the box spans every landmark's x and y (min to max,
    /// normalized; width = max − min), and every landmark is a keypoint. The running maxima start
    /// at the smallest positive `Float` (not −∞), as MediaPipe's do.
    package static func detection(landmarks: [RawLandmark]) -> Detection {
        var (minX, maxX, minY, maxY) = (Float.greatestFiniteMagnitude, Float.leastNormalMagnitude,
                                        Float.greatestFiniteMagnitude, Float.leastNormalMagnitude)
        for landmark in landmarks {
            minX = min(minX, landmark.x)
            maxX = max(maxX, landmark.x)
            minY = min(minY, landmark.y)
            maxY = max(maxY, landmark.y)
        }
        return Detection(
            score: 0, box: RelativeBox(xmin: minX, ymin: minY, width: maxX - minX, height: maxY - minY),
            keypoints: landmarks.map(\.point))
    }

    /// The next frame's ROI: ``detection(landmarks:)``, ``DetectionToRect/faceLandmarks`` (the
    /// box, rotation from landmark 33 to 263), then ``RectTransformation/face`` (×1.5, square).
    ///
    /// - Parameters:
    ///   - landmarks: the face's 468 (or 478 refined) landmarks, normalized to the image.
    ///   - imageWidth: the image's width in pixels.
    ///   - imageHeight: the image's height in pixels.
    /// - Throws: ``PipelineInputError/tooFewKeypoints(needed:available:)`` for fewer than 264.
    package static func nextFrameROI(landmarks: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        let rect = try DetectionToRect.faceLandmarks.rect(
            for: detection(landmarks: landmarks), imageWidth: imageWidth, imageHeight: imageHeight)
        return RectTransformation.face.apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
