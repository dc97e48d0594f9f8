/// Maps a detection from the detector tensor to the image through the ROI matrix of the
/// detector's input (MediaPipe `DetectionProjectionCalculator`, docs/PIPELINE.md, "Back to image
/// coordinates"), in float32 as MediaPipe computes it.
///
/// A point (x, y) goes to `(x·m0 + y·m1 + m3, x·m4 + y·m5 + m7)`, each sum left to right with
/// no fused multiply-add (Swift does not contract). Every keypoint is mapped; the box's four corners are mapped and the
/// box becomes the axis-aligned box around them (width = max − min). For the unrotated
/// letterbox ROI this is ``LetterboxPadding/removing(from:)-(Detection)`` up to the last bits,
/// which differ: the face mesh graph, whose tracking amplifies last bits, needs this form.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum DetectionProjection {
    /// - Parameters:
    ///   - detection: normalized to the detector tensor.
    ///   - matrix: 4×4 row-major, ``ImageToTensor/Transform/matrix`` of the detector's input.
    /// - Returns: the detection normalized to the image.
    package static func project(_ detection: Detection, through matrix: [Float]) -> Detection {
        precondition(matrix.count == 16, "a 4×4 matrix")
        func project(_ x: Float, _ y: Float) -> RelativePoint {
            RelativePoint(x: x * matrix[0] + y * matrix[1] + matrix[3], y: x * matrix[4] + y * matrix[5] + matrix[7])
        }
        var result = detection
        result.keypoints = detection.keypoints.map { project($0.x, $0.y) }
        let box = detection.box
        let corners = [
            project(box.xmin, box.ymin), project(box.xmin + box.width, box.ymin),
            project(box.xmin + box.width, box.ymin + box.height), project(box.xmin, box.ymin + box.height),
        ]
        var (minX, maxX, minY, maxY) = (Float.greatestFiniteMagnitude, -Float.greatestFiniteMagnitude,
                                        Float.greatestFiniteMagnitude, -Float.greatestFiniteMagnitude)
        for corner in corners {
            minX = min(minX, corner.x)
            maxX = max(maxX, corner.x)
            minY = min(minY, corner.y)
            maxY = max(maxY, corner.y)
        }
        result.box = RelativeBox(xmin: minX, ymin: minY, width: maxX - minX, height: maxY - minY)
        return result
    }
}
