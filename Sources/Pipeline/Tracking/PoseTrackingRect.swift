/// The pose ROI built from a frame's landmarks, for the next frame (docs/PIPELINE.md,
/// "Pose tracking") and as the landmark smoother's object scale (docs/PIPELINE.md,
/// "Pose smoothing").
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum PoseTrackingRect {
    /// The alignment-points rect of the two auxiliary landmarks, *before* the ×1.25 scale:
    /// centre = aux 0 (body centre, model landmark 33), side = 2·‖aux1 − aux0‖ pixels,
    /// rotation from aux 0 → aux 1 with target 90°. This is the legacy smoother's object-scale
    /// rect.
    ///
    /// - Parameters:
    ///   - auxiliary: the two auxiliary landmarks (``PoseLandmarkSplit``), projected to the
    ///     image. Tasks uses them raw; legacy smooths them first
    ///     (``OneEuroParameters/legacyAuxiliaryLandmarks``).
    ///   - imageWidth: the image's width in pixels.
    ///   - imageHeight: the image's height in pixels.
    /// - Throws: ``PipelineInputError/tooFewLandmarks(needed:available:)`` for fewer than 2.
    package static func alignmentRect(auxiliary: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        guard auxiliary.count >= 2 else {
            throw PipelineInputError.tooFewLandmarks(needed: 2, available: auxiliary.count)
        }
        return DetectionToRect.alignmentPointsRect(
            start: auxiliary[0].point, end: auxiliary[1].point, targetAngle: RectRotation.ninetyDegrees,
            imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The next frame's ROI: ``alignmentRect(auxiliary:imageWidth:imageHeight:)`` then
    /// ``RectTransformation/pose`` (×1.25, square). The Tasks smoother's object-scale rect.
    package static func nextFrameROI(auxiliary: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        RectTransformation.pose.apply(
            to: try alignmentRect(auxiliary: auxiliary, imageWidth: imageWidth, imageHeight: imageHeight),
            imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
