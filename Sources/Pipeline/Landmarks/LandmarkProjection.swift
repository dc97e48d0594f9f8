#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Maps landmarks from the model crop to the image through the crop's ROI
/// (docs/PIPELINE.md, "Landmark decoding and projection").
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum LandmarkProjection {
    /// `LandmarkProjectionCalculator`: with `u = x − 0.5`, `v = y − 0.5` (crop-normalized),
    ///
    ///     x' = (cos θ·u − sin θ·v)·w + x_c
    ///     y' = (sin θ·u + cos θ·v)·h + y_c
    ///     z' = z·w
    ///
    /// where (x_c, y_c, w, h, θ) is `rect`. The rotation is applied in normalized units, which
    /// is exact because the ROIs are square in pixels. Visibility and presence are unchanged.
    ///
    /// - Parameters:
    ///   - landmarks: normalized to the crop (after letterbox removal, a no-op for the square
    ///     landmark-model crops).
    ///   - rect: the crop, normalized to the image, its rotation in radians.
    /// - Returns: landmarks normalized to the image.
    package static func project(_ landmarks: [RawLandmark], through rect: NormalizedRect) -> [RawLandmark] {
        let cosine = cos(rect.rotation)
        let sine = sin(rect.rotation)
        return landmarks.map { landmark in
            let u = landmark.x - 0.5
            let v = landmark.y - 0.5
            var projected = landmark
            projected.x = (cosine * u - sine * v) * rect.width + rect.xCenter
            projected.y = (sine * u + cosine * v) * rect.height + rect.yCenter
            projected.z = landmark.z * rect.width
            return projected
        }
    }

    /// `WorldLandmarkProjectionCalculator`: rotates x and y by the ROI rotation θ,
    /// `x' = cos θ·x − sin θ·y`, `y' = sin θ·x + cos θ·y`; z, visibility and presence unchanged.
    /// No translation, no scaling (metres stay metres).
    package static func rotate(_ landmarks: [RawWorldLandmark], by rotation: Float) -> [RawWorldLandmark] {
        let cosine = cos(rotation)
        let sine = sin(rotation)
        return landmarks.map { landmark in
            var rotated = landmark
            rotated.x = cosine * landmark.x - sine * landmark.y
            rotated.y = sine * landmark.x + cosine * landmark.y
            return rotated
        }
    }

    /// `VisibilityCopyCalculator` (pose): copies visibility and presence of `source[i]` onto
    /// `world[i]` for the first `min(source.count, world.count)` landmarks. Poses copy from the
    /// heatmap-refined, unprojected normalized landmarks 0–32 (the values do not change in
    /// projection, so the projected ones give the same result).
    package static func copyVisibilityAndPresence(from source: [RawLandmark], to world: [RawWorldLandmark]) -> [RawWorldLandmark] {
        var result = world
        for index in 0..<min(source.count, world.count) {
            result[index].visibility = source[index].visibility
            result[index].presence = source[index].presence
        }
        return result
    }
}
