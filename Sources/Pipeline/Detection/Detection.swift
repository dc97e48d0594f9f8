/// One detector result (MediaPipe `Detection` with relative location data and one class).
///
/// Coordinates are normalized to whatever frame the step that made it works in: the
/// (letterboxed) detector tensor straight after decoding, the image after
/// ``LetterboxPadding/removing(from:)-(Detection)``.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct Detection: Sendable, Hashable, Codable {
    /// Confidence in `[0, 1]` (sigmoid of the score logit).
    package var score: Float
    /// The box. For the pose detector it is the *face* box; for the palm detector the palm.
    package var box: RelativeBox
    /// Keypoints in model order. Pose detector: 0 mid-hip centre, 1 full-body size/rotation
    /// point, 2 mid-shoulder centre, 3 upper-body size/rotation point. Palm detector: 0 wrist
    /// centre, 2 middle-finger MCP; 1 and 3–6 are further palm and thumb points.
    package var keypoints: [RelativePoint]

    package init(score: Float, box: RelativeBox, keypoints: [RelativePoint]) {
        self.score = score
        self.box = box
        self.keypoints = keypoints
    }

    /// Landmarks as a detection (MediaPipe `LandmarksToDetectionCalculator`): the box spans
    /// every landmark's x and y (min to max, normalized; width = max − min), every landmark is
    /// a keypoint, in order, and the score is 0. The box is ``PointBounds``' (maxima starting at
    /// the smallest positive `Float`, as MediaPipe's do).
    package init(enclosing landmarks: [RawLandmark]) {
        let bounds = PointBounds(landmarks.lazy.map(\.point))
        self.init(
            score: 0,
            box: RelativeBox(
                xmin: bounds.minX, ymin: bounds.minY, width: bounds.maxX - bounds.minX, height: bounds.maxY - bounds.minY),
            keypoints: landmarks.map(\.point))
    }
}
