/// Temporal blending of segmentation masks, **legacy flavour only** (MediaPipe
/// `SegmentationSmoothingCalculator`, docs/PIPELINE.md, "Segmentation mask"); the Tasks API does
/// not smooth masks.
///
/// Per pixel, with `p` the new mask value and `q` the previous *smoothed* mask:
///
///     t = p − 0.5,  X = t²
///     u = 1 − min(1, X·(c1 + X·(c2 + X·(c3 + X·(c4 + X·c5)))))
///     out = p + (q − p)·u·ratio
///
/// `u` approximates the uncertainty (binary entropy) of `p`: confident pixels keep the new
/// value, uncertain ones lean on the previous frame.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum SegmentationSmoothing {
    /// `combine_with_previous_ratio` of the legacy pose graph.
    package static let legacyPoseRatio: Float = 0.7

    static let c1: Float = 5.68842
    static let c2: Float = -0.748699
    static let c3: Float = -57.8051
    static let c4: Float = 291.309
    static let c5: Float = -624.717

    /// Blends one pixel.
    package static func blend(current p: Float, previous q: Float, ratio: Float = legacyPoseRatio) -> Float {
        let t = p - 0.5
        let x = t * t
        let uncertainty = 1 - min(1, x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5)))))
        return p + (q - p) * uncertainty * ratio
    }

    /// Blends a whole mask with the previous smoothed one.
    ///
    /// - Parameters:
    ///   - current: the new mask, `[H, W]` floats in `[0, 1]`.
    ///   - previous: the previous frame's *smoothed* mask of the same size, or `nil` on the
    ///     first frame (then `current` passes through).
    ///   - ratio: how much of the previous mask a fully uncertain pixel keeps, in [0, 1].
    /// - Throws: ``PipelineInputError/tensorSizeMismatch(tensor:expected:actual:)`` if the sizes
    ///   differ.
    package static func blend(current: [Float], previous: [Float]?, ratio: Float = legacyPoseRatio) throws -> [Float] {
        guard let previous else { return current }
        guard previous.count == current.count else {
            throw PipelineInputError.tensorSizeMismatch(
                tensor: "previous segmentation mask", expected: current.count, actual: previous.count)
        }
        return zip(current, previous).map { blend(current: $0, previous: $1, ratio: ratio) }
    }
}
