import Testing
import TestSupport

@testable import Pipeline

/// How ROI association carries track ids (docs/PIPELINE.md, "Track ids").
@Suite struct TrackIdentityTests {
    private func rect(_ x: Float, _ y: Float, size: Float = 0.2) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: size, height: size)
    }

    private func tracked(_ rect: NormalizedRect, _ trackId: Int?) -> TrackedRect {
        TrackedRect(rect: rect, trackId: trackId)
    }

    @Test func aDetectionReplacingATrackedROIContinuesItsTrack() {
        let first = rect(0.3, 0.3), second = rect(0.7, 0.3)
        let overFirst = rect(0.32, 0.3), elsewhere = rect(0.5, 0.8)
        let kept = RectAssociation.laterWins(
            tracked: [tracked(first, 4), tracked(second, 7)], detected: [overFirst, elsewhere], iouThreshold: 0.5)
        #expect(kept == [tracked(second, 7), tracked(overFirst, 4), tracked(elsewhere, nil)])
    }

    @Test func aDetectionMatchingTwoTracksContinuesTheOneItOverlapsMost() {
        // Boxes x [0.125, 0.375] and [0.625, 0.875], y [0.375, 0.625]: no overlap between them.
        let left = NormalizedRect(xCenter: 0.25, yCenter: 0.5, width: 0.25, height: 0.25)
        let right = NormalizedRect(xCenter: 0.75, yCenter: 0.5, width: 0.25, height: 0.25)
        // x [0.3, 0.8], y [0.25, 0.75]: IoU 0.064 with `left`, 0.163 with `right`.
        let nearerRight = NormalizedRect(xCenter: 0.55, yCenter: 0.5, width: 0.5, height: 0.5)
        #expect(RectAssociation.laterWins(
            tracked: [tracked(left, 0), tracked(right, 1)], detected: [nearerRight], iouThreshold: 0.05)
            == [tracked(nearerRight, 1)])
        // x [0.25, 0.75]: IoU 1/9 with each (exactly, in binary fractions): the first track.
        let between = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.5)
        #expect(RectAssociation.laterWins(
            tracked: [tracked(left, 0), tracked(right, 1)], detected: [between], iouThreshold: 0.05)
            == [tracked(between, 0)])
    }

    @Test func aTrackContinuesInTheDetectionThatMatchesItBest() {
        let track = rect(0.30, 0.3), twin = rect(0.31, 0.3), less = rect(0.34, 0.3)
        // IoU with `track`: `twin` 0.90, `less` 0.67; `less` comes first and `twin` removes it.
        #expect(RectAssociation.laterWins(tracked: [tracked(track, 2)], detected: [less, twin], iouThreshold: 0.5)
                == [tracked(twin, 2)])
    }

    /// As on frame 2 of poses_three_pass: a person's track is matched best by their own
    /// detection, which the detection of a neighbour (overlapping the track less) removes.
    @Test func aTrackWhoseBestDetectionIsRemovedEnds() {
        let track = rect(0.30, 0.3), own = rect(0.31, 0.3), neighbour = rect(0.36, 0.3)
        // IoU with `track`: `own` 0.90, `neighbour` 0.54; `neighbour` removes `own` (0.60).
        #expect(RectAssociation.laterWins(tracked: [tracked(track, 2)], detected: [own, neighbour], iouThreshold: 0.5)
                == [tracked(neighbour, nil)])
    }

    @Test func aTrackedROIKeepsItsOwnIdWhenItReplacesAnother() {
        let a = rect(0.3, 0.3), b = rect(0.32, 0.3)
        #expect(RectAssociation.laterWins(tracked: [tracked(a, 0), tracked(b, 1)], detected: [], iouThreshold: 0.5)
                == [tracked(b, 1)])
    }

    @Test func trackedHandsKeepTheirIdsAndNewPalmsHaveNone() {
        let hand = rect(0.3, 0.3), samePalm = rect(0.32, 0.3), newPalm = rect(0.8, 0.8)
        #expect(RectAssociation.trackedFirst(
            tracked: [tracked(hand, 5)], new: [samePalm, newPalm], iouThreshold: 0.5)
            == [tracked(hand, 5), tracked(newPalm, nil)])
    }

    /// On random ROIs, the ids that come out are ids that went in, none twice, and the rects
    /// are those of the plain association.
    @Test func idsStayUniqueOnRandomROIs() {
        var random = SeededGenerator.announced()
        for _ in 0..<500 {
            let trackedCount = Int.random(in: 0...4, using: &random)
            let rects = (0..<Int.random(in: 0...8, using: &random)).map { _ in
                rect(Float.random(in: 0...1, using: &random), Float.random(in: 0...1, using: &random),
                     size: Float.random(in: 0.05...0.5, using: &random))
            }
            let input = rects.prefix(trackedCount).enumerated().map { index, rect in tracked(rect, 10 + index) }
            let threshold = Float.random(in: 0...0.9, using: &random)
            let kept = RectAssociation.laterWins(
                tracked: input, detected: Array(rects.dropFirst(trackedCount)), iouThreshold: threshold)
            let ids = kept.compactMap(\.trackId)
            #expect(Set(ids).count == ids.count, "ids \(ids) from \(rects), \(trackedCount) tracked")
            #expect(Set(ids).isSubset(of: Set(input.compactMap(\.trackId))))
            let plain = RectAssociation.laterWins(
                [Array(rects.prefix(trackedCount)), Array(rects.dropFirst(trackedCount))], iouThreshold: threshold)
            #expect(kept.map(\.rect) == plain)
        }
    }

    @Test func newIdsCountUpAndNeverRepeat() {
        var source = TrackIdSource()
        #expect((0..<4).map { _ in source.newId() } == [0, 1, 2, 3])
    }
}
