/// An axis-aligned box in normalized image coordinates (fractions of the image width and
/// height; top-left origin, y down), stored as MediaPipe's `RelativeBoundingBox`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RelativeBox: Sendable, Hashable, Codable {
    package var xmin: Float
    package var ymin: Float
    package var width: Float
    package var height: Float

    package init(xmin: Float, ymin: Float, width: Float, height: Float) {
        self.xmin = xmin
        self.ymin = ymin
        self.width = width
        self.height = height
    }

    package var xmax: Float { xmin + width }
    package var ymax: Float { ymin + height }
    package var area: Float { width * height }

    /// Intersection over union, `inter / (A₁ + A₂ − inter)`.
    ///
    /// Boxes that do not touch give 0; boxes that only touch along an edge intersect with zero
    /// area and also give 0. A zero denominator gives 0. Used by NMS (docs/PIPELINE.md,
    /// "Weighted non-maximum suppression"), rect association (docs/PIPELINE.md, "ROI association")
    /// and hand deduplication (docs/PIPELINE.md, "Duplicate hands").
    package func intersectionOverUnion(with other: RelativeBox) -> Float {
        let left = max(xmin, other.xmin)
        let right = min(xmax, other.xmax)
        let top = max(ymin, other.ymin)
        let bottom = min(ymax, other.ymax)
        guard left <= right, top <= bottom else { return 0 }
        let intersection = (right - left) * (bottom - top)
        let union = area + other.area - intersection
        return union > 0 ? intersection / union : 0
    }
}
