#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The hand ROI built from a frame's 21 landmarks, for the next frame
/// (MediaPipe `HandLandmarksToRectCalculator` + `RectTransformationCalculator`,
/// docs/PIPELINE.md, "Hand tracking"). Both flavours use it.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum HandTrackingRect {
    /// Landmarks that shape the rect: the wrist, thumb joints 1–3, and the MCP and PIP joints
    /// of the four fingers.
    package static let subset = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]

    /// The rotated bounding rect of the subset, before scaling:
    /// 1. rotation (pixels, target 90°) from the wrist L0 to `((L5 + L13)/2 + L9)/2`;
    /// 2. axis-aligned centre `c_a` = midpoint of the subset's min/max (normalized);
    /// 3. subset points relative to `c_a`, in pixels, rotated by −rotation; their bounding box
    ///    gives width and height (pixels / image size);
    /// 4. the box centre rotated back by +rotation, plus `c_a`, is the rect centre.
    ///
    /// Both boxes are ``PointBounds`` (maxima starting at the smallest positive `Float`).
    ///
    /// - Parameters:
    ///   - landmarks: the 21 hand landmarks, normalized to the image.
    ///   - imageWidth: the image's width in pixels.
    ///   - imageHeight: the image's height in pixels.
    /// - Throws: ``PipelineInputError/tooFewLandmarks(needed:available:)`` for fewer than 21.
    package static func boundingRect(landmarks: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        guard landmarks.count >= 21 else {
            throw PipelineInputError.tooFewLandmarks(needed: 21, available: landmarks.count)
        }
        let width = Float(imageWidth)
        let height = Float(imageHeight)
        let points = subset.map { landmarks[$0].point }

        let wrist = landmarks[0].point
        let fingerBase = RelativePoint(
            x: ((landmarks[5].x + landmarks[13].x) / 2 + landmarks[9].x) / 2,
            y: ((landmarks[5].y + landmarks[13].y) / 2 + landmarks[9].y) / 2)
        let rotation = RectRotation.rotation(
            from: wrist, to: fingerBase, targetAngle: RectRotation.ninetyDegrees,
            imageWidth: imageWidth, imageHeight: imageHeight)
        let reverseAngle = normalizeRadians(-rotation)

        let axisAligned = PointBounds(points)
        let axisAlignedCenterX = axisAligned.centerX
        let axisAlignedCenterY = axisAligned.centerY

        var projected = PointBounds()
        let reverseCos = cos(reverseAngle)
        let reverseSin = sin(reverseAngle)
        for point in points {
            let x = (point.x - axisAlignedCenterX) * width
            let y = (point.y - axisAlignedCenterY) * height
            projected.add(x: x * reverseCos - y * reverseSin, y: x * reverseSin + y * reverseCos)
        }
        let projectedCenterX = projected.centerX
        let projectedCenterY = projected.centerY
        let centerX = projectedCenterX * cos(rotation) - projectedCenterY * sin(rotation) + width * axisAlignedCenterX
        let centerY = projectedCenterX * sin(rotation) + projectedCenterY * cos(rotation) + height * axisAlignedCenterY
        return NormalizedRect(
            xCenter: centerX / width, yCenter: centerY / height,
            width: (projected.maxX - projected.minX) / width, height: (projected.maxY - projected.minY) / height,
            rotation: rotation)
    }

    /// The next frame's ROI: ``boundingRect(landmarks:imageWidth:imageHeight:)`` then
    /// ``RectTransformation/handFromLandmarks`` (×2.0, shift_y −0.1, square).
    package static func nextFrameROI(landmarks: [RawLandmark], imageWidth: Int, imageHeight: Int) throws -> NormalizedRect {
        RectTransformation.handFromLandmarks.apply(
            to: try boundingRect(landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight),
            imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
