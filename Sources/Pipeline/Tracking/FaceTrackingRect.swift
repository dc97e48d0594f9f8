/// The face ROI built from a frame's face landmarks, for the next frame (MediaPipe
/// `LandmarksToDetectionCalculator` + `DetectionsToRectsCalculator` + `RectTransformationCalculator`
/// of the face mesh graph's `FaceLandmarkLandmarksToRoi`, docs/PIPELINE.md, "Face tracking").
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum FaceTrackingRect {
    /// The next frame's ROI: ``Detection/init(enclosing:)``, ``DetectionToRect/faceLandmarks`` (the
    /// box, rotation from landmark 33 to 263), then ``RectTransformation/face`` (×1.5, square).
    ///
    /// - Parameters:
    ///   - landmarks: the face's 468 (or 478 refined) landmarks, normalized to the image.
    ///   - imageWidth: the image's width in pixels.
    ///   - imageHeight: the image's height in pixels.
    /// - Throws: ``PipelineInputError/tooFewKeypoints(needed:available:)`` for fewer than 264.
    package static func nextFrameROI(landmarks: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        let rect = try DetectionToRect.faceLandmarks.rect(
            for: Detection(enclosing: landmarks), imageWidth: imageWidth, imageHeight: imageHeight)
        return RectTransformation.face.apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
