/// Merging of tracked and newly detected ROIs by axis-aligned IoU, rotation ignored
/// (docs/PIPELINE.md, "ROI association"). Overlap means IoU **> threshold**.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
public enum RectAssociation {
    /// `AssociationNormRectCalculator` (Tasks pose, legacy hands): later rects win.
    ///
    /// The inputs are walked in order, each input's rects in order. Every rect first removes
    /// every already kept rect it overlaps, then is appended. So of two overlapping rects the
    /// later one survives, whether it comes from a later input or later in the same input.
    ///
    /// - Parameters:
    ///   - inputs: Tasks pose: `[previous-frame ROIs, all detector ROIs]` (the new detection
    ///     wins); legacy hands: `[palm ROIs, previous-frame ROIs]` (the tracked ROI wins).
    ///   - iouThreshold: Tasks pose: `min_tracking_confidence` (0.5); legacy hands: 0.5.
    public static func laterWins(_ inputs: [[NormalizedRect]], iouThreshold: Float) -> [NormalizedRect] {
        var kept: [NormalizedRect] = []
        for rect in inputs.joined() {
            let box = rect.axisAlignedBox
            kept.removeAll { $0.axisAlignedBox.intersectionOverUnion(with: box) > iouThreshold }
            kept.append(rect)
        }
        return kept
    }

    /// `HandAssociationCalculator` (Tasks hands): tracked rects win.
    ///
    /// All `tracked` rects are kept, in order; each `new` rect is appended only if its IoU with
    /// every rect already in the result is ≤ threshold. Cut the result to `num_hands` afterwards.
    ///
    /// - Parameter iouThreshold: `min_tracking_confidence` (0.5).
    public static func trackedFirst(
        tracked: [NormalizedRect], new: [NormalizedRect], iouThreshold: Float
    ) -> [NormalizedRect] {
        var result = tracked
        for rect in new {
            let box = rect.axisAlignedBox
            if result.allSatisfy({ $0.axisAlignedBox.intersectionOverUnion(with: box) <= iouThreshold }) {
                result.append(rect)
            }
        }
        return result
    }
}
