/// Merging of tracked and newly detected ROIs by axis-aligned IoU, rotation ignored
/// (docs/PIPELINE.md, "ROI association"). Overlap means IoU **> threshold**.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum RectAssociation {
    /// `AssociationNormRectCalculator` (Tasks pose, legacy hands, face mesh): later rects win.
    ///
    /// The inputs are walked in order, each input's rects in order. Every rect first removes
    /// every already kept rect it overlaps, then is appended. So of two overlapping rects the
    /// later one survives, whether it comes from a later input or later in the same input.
    ///
    /// - Parameters:
    ///   - inputs: Tasks pose: `[previous-frame ROIs, all detector ROIs]` (the new detection
    ///     wins); legacy hands and face mesh: `[detector ROIs, previous-frame ROIs]` (the
    ///     tracked ROI wins).
    ///   - iouThreshold: Tasks pose: `min_tracking_confidence` (0.5); legacy hands and face
    ///     mesh: 0.5.
    package static func laterWins(_ inputs: [[NormalizedRect]], iouThreshold: Float) -> [NormalizedRect] {
        let rects = Array(inputs.joined())
        return keptIndices(laterWins: rects, iouThreshold: iouThreshold).map { rects[$0] }
    }

    /// ``laterWins(_:iouThreshold:)`` of `[tracked, detected]` with the tracked rects' ids
    /// (docs/PIPELINE.md, "Track ids"): the same rects in the same order. A kept tracked rect
    /// keeps its id. A tracked rect that a detection removes passes its id to the detection
    /// that overlaps it most (IoU above the threshold; of equal ones the first), if that
    /// detection is kept; when two tracked rects pass to the same detection, the one it
    /// overlaps more does (of equal ones the first). Any other detection has no id.
    ///
    /// So a detection continues the track whose ROI it matches best, and a track whose best
    /// detection is itself removed by a later one ends, rather than passing its id to a
    /// detection that merely overlaps it (often another person, next to the first).
    ///
    /// - Parameters:
    ///   - tracked: Tasks pose: the previous frame's ROIs, with their ids.
    ///   - detected: Tasks pose: every detector ROI.
    static func laterWins(tracked: [TrackedRect], detected: [NormalizedRect], iouThreshold: Float) -> [TrackedRect] {
        var heirs: [Int: (iou: Float, trackId: Int?)] = [:]  // detection index → the track it continues
        for track in tracked {
            let box = track.rect.axisAlignedBox
            var best: (index: Int, iou: Float)?
            for (index, rect) in detected.enumerated() {
                let iou = rect.axisAlignedBox.intersectionOverUnion(with: box)
                if iou > iouThreshold && iou > (best?.iou ?? -1) { best = (index, iou) }
            }
            guard let best, best.iou > (heirs[best.index]?.iou ?? -1) else { continue }
            heirs[best.index] = (best.iou, track.trackId)
        }
        let kept = keptIndices(laterWins: tracked.map(\.rect) + detected, iouThreshold: iouThreshold)
        return kept.map { index in
            guard index >= tracked.count else { return tracked[index] }
            let detection = index - tracked.count
            return TrackedRect(rect: detected[detection], trackId: heirs[detection]?.trackId)
        }
    }

    /// ``laterWins(_:iouThreshold:)`` of `[detected, tracked]` (the legacy hand and face mesh
    /// graphs: the tracked ROI wins), keeping the tracked rects' ids: the same rects in the same
    /// order, each kept tracked rect with its id, each kept detection with none.
    ///
    /// - Parameters:
    ///   - detected: this frame's ROIs from fresh detections.
    ///   - tracked: the previous frame's ROIs from landmarks, with their ids.
    static func laterWins(detected: [NormalizedRect], tracked: [TrackedRect], iouThreshold: Float) -> [TrackedRect] {
        let rects = detected.map { TrackedRect(rect: $0, trackId: nil) } + tracked
        return keptIndices(laterWins: rects.map(\.rect), iouThreshold: iouThreshold).map { rects[$0] }
    }

    /// The later-wins walk: the indices into `rects` of the rects kept, in their kept order.
    private static func keptIndices(laterWins rects: [NormalizedRect], iouThreshold: Float) -> [Int] {
        var kept: [Int] = []
        for (index, rect) in rects.enumerated() {
            let box = rect.axisAlignedBox
            kept.removeAll { rects[$0].axisAlignedBox.intersectionOverUnion(with: box) > iouThreshold }
            kept.append(index)
        }
        return kept
    }

    /// `HandAssociationCalculator` (Tasks hands): tracked rects win.
    ///
    /// All `tracked` rects are kept, in order; each `new` rect is appended only if its IoU with
    /// every rect already in the result is ≤ threshold. Cut the result to `num_hands` afterwards.
    ///
    /// - Parameters:
    ///   - tracked: the rects tracked from the previous frame's landmarks, normalized.
    ///   - new: this frame's rects from fresh detections, normalized.
    ///   - iouThreshold: `min_tracking_confidence` (0.5).
    package static func trackedFirst(
        tracked: [NormalizedRect], new: [NormalizedRect], iouThreshold: Float
    ) -> [NormalizedRect] {
        trackedFirst(tracked: tracked.map { TrackedRect(rect: $0, trackId: nil) }, new: new, iouThreshold: iouThreshold)
            .map(\.rect)
    }

    /// ``trackedFirst(tracked:new:iouThreshold:)`` with the tracked rects' ids (docs/PIPELINE.md,
    /// "Track ids"): the same rects in the same order; each tracked rect keeps its id, and an
    /// appended new rect has none.
    static func trackedFirst(tracked: [TrackedRect], new: [NormalizedRect], iouThreshold: Float) -> [TrackedRect] {
        var result = tracked
        for rect in new {
            let box = rect.axisAlignedBox
            if result.allSatisfy({ $0.rect.axisAlignedBox.intersectionOverUnion(with: box) <= iouThreshold }) {
                result.append(TrackedRect(rect: rect, trackId: nil))
            }
        }
        return result
    }
}
