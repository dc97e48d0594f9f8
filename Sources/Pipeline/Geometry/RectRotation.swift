#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Rotation of ROIs built from two points (docs/PIPELINE.md, "Detection to rotated rect").
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum RectRotation {
    /// 90° in radians as MediaPipe stores `rotation_vector_target_angle_degrees: 90`.
    ///
    /// Legacy palm ROIs, both flavours' pose ROIs and both flavours' landmark-based hand ROIs use
    /// it. The Tasks hand *detector* instead sets the radians field to 90 (90 rad ≡ 2.0354057,
    /// +26.62°, docs/PIPELINE.md, "Detection to rotated rect"); this package deliberately uses 90°
    /// there too.
    package static let ninetyDegrees: Float = radians(fromDegrees: 90)

    /// The rotation that turns the vector from `start` to `end` towards `targetAngle`
    /// (MediaPipe `DetectionsToRectsCalculator` rotation, docs/PIPELINE.md,
    /// "Detection to rotated rect"):
    ///
    ///     rotation = NormalizeRadians(target − atan2(−(y₁ − y₀), x₁ − x₀))
    ///
    /// computed in image pixels: the normalized points are scaled by the image size first, so the
    /// angle is right for non-square images.
    ///
    /// - Parameters:
    ///   - start: the start point, normalized image coordinates.
    ///   - end: the end point, normalized image coordinates.
    ///   - targetAngle: radians; π/2 (use ``RectRotation/ninetyDegrees``) makes a vector pointing
    ///     straight up give rotation 0.
    ///   - imageWidth: image width in pixels.
    ///   - imageHeight: image height in pixels.
    /// - Returns: radians in `[−π, π)`.
    package static func rotation(
        from start: RelativePoint, to end: RelativePoint, targetAngle: Float,
        imageWidth: Int, imageHeight: Int
    ) -> Float {
        let width = Float(imageWidth)
        let height = Float(imageHeight)
        let x0 = start.x * width
        let y0 = start.y * height
        let x1 = end.x * width
        let y1 = end.y * height
        return normalizeRadians(targetAngle - atan2(-(y1 - y0), x1 - x0))
    }
}
