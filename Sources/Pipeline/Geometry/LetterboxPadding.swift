/// The letterbox padding a detector input got: fractions of the tensor's width (left, right)
/// and height (top, bottom) filled with border instead of image
/// (`LETTERBOX_PADDING` of MediaPipe's `ImageToTensorCalculator`, docs/PIPELINE.md,
/// "ROI to tensor").
///
/// The removal functions map coordinates normalized to the letterboxed tensor back to
/// coordinates normalized to the image (docs/PIPELINE.md, "Back to image coordinates"):
/// `x' = (x − l)/(1 − l − r)`, `y' = (y − t)/(1 − t − b)`, sizes divided by the same factors.
/// Padding whose two sides add up to 1 leaves no image and gives non-finite results.
///
/// Legacy pose, legacy palm and Tasks pose detections use this removal. Tasks palm detections
/// and face detections are instead projected through the detector ROI's matrix
/// (``DetectionProjection``, docs/PIPELINE.md, "Back to image coordinates"), which can differ
/// from this in the last bits.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct LetterboxPadding: Sendable, Hashable, Codable {
    package var left: Float
    package var top: Float
    package var right: Float
    package var bottom: Float

    package init(left: Float, top: Float, right: Float, bottom: Float) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// No padding: removal is the identity.
    package static let zero = LetterboxPadding(left: 0, top: 0, right: 0, bottom: 0)

    /// `DetectionLetterboxRemovalCalculator`: the box and every keypoint.
    package func removing(from detection: Detection) -> Detection {
        let horizontal = 1 - (left + right)
        let vertical = 1 - (top + bottom)
        var result = detection
        result.box = RelativeBox(
            xmin: (detection.box.xmin - left) / horizontal,
            ymin: (detection.box.ymin - top) / vertical,
            width: detection.box.width / horizontal,
            height: detection.box.height / vertical)
        result.keypoints = detection.keypoints.map {
            RelativePoint(x: ($0.x - left) / horizontal, y: ($0.y - top) / vertical)
        }
        return result
    }

    /// `LandmarkLetterboxRemovalCalculator`: x and y as above, `z' = z/(1 − l − r)`;
    /// visibility and presence unchanged.
    package func removing(from landmarks: [RawLandmark]) -> [RawLandmark] {
        let horizontal = 1 - (left + right)
        let vertical = 1 - (top + bottom)
        return landmarks.map {
            var landmark = $0
            landmark.x = ($0.x - left) / horizontal
            landmark.y = ($0.y - top) / vertical
            landmark.z = $0.z / horizontal
            return landmark
        }
    }
}
