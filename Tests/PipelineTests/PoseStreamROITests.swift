import Testing

@testable import Pipeline

/// Which ROIs a stream-mode pose frame runs the landmark model on (`PoseGraph.streamROIs`):
/// the tracked ones merged with the detector's on every frame, the detector only when fewer
/// than `numPoses` were tracked.
@Suite struct PoseStreamROITests {
    private func tracked(_ x: Float, _ trackId: Int) -> TrackedRect {
        TrackedRect(rect: NormalizedRect(xCenter: x, yCenter: 0.5, width: 0.2, height: 0.2), trackId: trackId)
    }

    /// Two tracks that converged on one person (IoU 0.82): the later one is kept with its id,
    /// although the detector does not run, so the next frame looks for the other person.
    @Test func tracksThatConvergedBecomeOneWithoutTheDetector() {
        var detectorRuns = 0
        let rois = PoseGraph.streamROIs(
            tracked: [tracked(0.30, 0), tracked(0.31, 1)], numPoses: 2, iouThreshold: 0.5,
            detect: { detectorRuns += 1; return [] })
        #expect(rois == [tracked(0.31, 1)])
        #expect(detectorRuns == 0)
    }

    @Test func separateTracksAreKeptWithoutTheDetector() {
        var detectorRuns = 0
        let both = [tracked(0.2, 0), tracked(0.7, 1)]
        let rois = PoseGraph.streamROIs(
            tracked: both, numPoses: 2, iouThreshold: 0.5, detect: { detectorRuns += 1; return [] })
        #expect(rois == both && detectorRuns == 0)
    }

    /// Fewer tracks than `numPoses`: the detector runs, its ROI replaces the tracked one it
    /// overlaps (continuing its track), and the result is cut to `numPoses`.
    @Test func theDetectorRunsWhenTracksAreMissing() {
        var detectorRuns = 0
        let overTrack = NormalizedRect(xCenter: 0.21, yCenter: 0.5, width: 0.2, height: 0.2)
        let others = [0.5, 0.8].map { NormalizedRect(xCenter: Float($0), yCenter: 0.5, width: 0.2, height: 0.2) }
        let rois = PoseGraph.streamROIs(
            tracked: [tracked(0.2, 3)], numPoses: 2, iouThreshold: 0.5,
            detect: { detectorRuns += 1; return [overTrack] + others })
        #expect(detectorRuns == 1)
        #expect(rois == [TrackedRect(rect: overTrack, trackId: 3), TrackedRect(rect: others[0], trackId: nil)])
    }
}
