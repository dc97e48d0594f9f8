/// Splits the pose model's 39 decoded landmarks (docs/PIPELINE.md, "Pose landmark model"):
/// `[0, 33)` are the pose landmarks, 33 (body centre, hip midpoint) and 34 (full-body
/// scale/rotation point) are the auxiliary landmarks that give the next frame's ROI; 35–38 are
/// unused.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum PoseLandmarkSplit {
    /// Landmarks in a pose result.
    package static let poseLandmarkCount = 33
    /// Indices of the auxiliary landmarks in the model output.
    package static let auxiliaryRange = 33..<35

    /// - Throws: ``PipelineInputError/tooFewLandmarks(needed:available:)`` for fewer than 35
    ///   landmarks.
    package static func split(_ landmarks: [RawLandmark]) throws -> (pose: [RawLandmark], auxiliary: [RawLandmark]) {
        guard landmarks.count >= auxiliaryRange.upperBound else {
            throw PipelineInputError.tooFewLandmarks(needed: auxiliaryRange.upperBound, available: landmarks.count)
        }
        return (Array(landmarks[0..<poseLandmarkCount]), Array(landmarks[auxiliaryRange]))
    }
}
