import Testing
@testable import Pipeline

@Suite struct HeatmapRefinementTests {
    private static let size = 64

    /// A `[64, 64, channels]` heatmap of logit −30 (confidence ≈ 1e−13) with the given cells set.
    private func heatmap(channels: Int, cells: [(channel: Int, column: Int, row: Int, logit: Float)]) -> [Float] {
        var values = [Float](repeating: -30, count: Self.size * Self.size * channels)
        for cell in cells {
            values[(cell.row * Self.size + cell.column) * channels + cell.channel] = cell.logit
        }
        return values
    }

    private func refined(_ landmarks: [RawLandmark], _ heatmap: [Float], channels: Int) throws -> [RawLandmark] {
        var result = landmarks
        try HeatmapRefinement.pose.refine(&result, heatmap: heatmap, height: Self.size, width: Self.size, channels: channels)
        return result
    }

    @Test func movesToTheConfidenceWeightedPeakWithoutHalfCellOffset() throws {
        // Channel 0: logits 5 at (10, 20) and 0 at (11, 20) → confidences σ(5) and 0.5.
        let map = heatmap(channels: 2, cells: [(0, 10, 20, 5), (0, 11, 20, 0), (1, 10, 20, 5)])
        let start = [RawLandmark(x: 10.7 / 64, y: 20.3 / 64, z: 0.25, visibility: 0.6, presence: 0.7),
                     RawLandmark(x: 40.5 / 64, y: 20.5 / 64, z: 0)]  // channel 1: its peak is 30 cells away
        let result = try refined(start, map, channels: 2)
        let high = sigmoid(Float(5))
        let expectedX = (10 * high + 11 * 0.5) / (high + 0.5) / 64
        #expect(isClose(result[0].x, expectedX, 1e-6))
        #expect(isClose(result[0].y, 20.0 / 64, 1e-6))
        #expect(result[0].z == 0.25 && result[0].visibility == 0.6 && result[0].presence == 0.7)
        #expect(result[1] == start[1])  // window maximum ≈ 0 < 0.5: unchanged
    }

    @Test func refinesAtExactlyTheMinimumConfidence() throws {
        let start = [RawLandmark(x: 30.5 / 64, y: 30.5 / 64, z: 0)]
        let atThreshold = try refined(start, heatmap(channels: 1, cells: [(0, 32, 29, 0)]), channels: 1)
        #expect(isClose(atThreshold[0].x, 32.0 / 64, 1e-6) && isClose(atThreshold[0].y, 29.0 / 64, 1e-6))
        let below = try refined(start, heatmap(channels: 1, cells: [(0, 32, 29, -0.01)]), channels: 1)
        #expect(below == start)
    }

    @Test func windowIsSevenCellsWide() throws {
        let start = [RawLandmark(x: 30.5 / 64, y: 30.5 / 64, z: 0)]
        // Column 33 = 30 + 3 is inside the window, column 34 is not.
        let inside = try refined(start, heatmap(channels: 1, cells: [(0, 33, 27, 6)]), channels: 1)
        #expect(isClose(inside[0].x, 33.0 / 64, 1e-6) && isClose(inside[0].y, 27.0 / 64, 1e-6))
        let outside = try refined(start, heatmap(channels: 1, cells: [(0, 34, 30, 6)]), channels: 1)
        #expect(outside == start)
    }

    @Test func truncatesTowardZeroAndSkipsOutsidePoints() throws {
        let map = heatmap(channels: 1, cells: [(0, 0, 5, 6)])
        // x·64 = −0.32 truncates to column 0 (C truncation, not floor): refined.
        let nearEdge = try refined([RawLandmark(x: -0.005, y: 5.5 / 64, z: 0)], map, channels: 1)
        #expect(isClose(nearEdge[0].x, 0, 1e-6) && isClose(nearEdge[0].y, 5.0 / 64, 1e-6))
        // x·64 = −1.28 → column −1: outside, left as is.
        let left = [RawLandmark(x: -0.02, y: 5.5 / 64, z: 0)]
        #expect(try refined(left, map, channels: 1) == left)
        let right = [RawLandmark(x: 1.0, y: 5.5 / 64, z: 0)]
        #expect(try refined(right, map, channels: 1) == right)
        let nan = [RawLandmark(x: .nan, y: 0.5, z: 0)]
        #expect(try refined(nan, map, channels: 1)[0].x.isNaN)
    }

    @Test func rowsJustPastTheBottomStillSeeTheClippedWindow() throws {
        // MediaPipe checks the column twice instead of the row, so y·64 = 65.3 is not skipped:
        // the window rows 62...63 remain and the peak at row 63 is taken.
        let map = heatmap(channels: 1, cells: [(0, 12, 63, 6)])
        let below = try refined([RawLandmark(x: 12.5 / 64, y: 65.3 / 64, z: 0)], map, channels: 1)
        #expect(isClose(below[0].x, 12.0 / 64, 1e-6) && isClose(below[0].y, 63.0 / 64, 1e-6))
        let farBelow = [RawLandmark(x: 12.5 / 64, y: 67.5 / 64, z: 0)]  // window empty
        #expect(try refined(farBelow, map, channels: 1) == farBelow)
    }

    @Test func mismatchedShapesThrow() {
        var landmarks = [RawLandmark(x: 0.5, y: 0.5, z: 0)]
        #expect(throws: PipelineInputError.self) {
            try HeatmapRefinement.pose.refine(&landmarks, heatmap: [Float](repeating: 0, count: 10), height: 64, width: 64, channels: 1)
        }
        #expect(throws: PipelineInputError.self) {
            try HeatmapRefinement.pose.refine(&landmarks, heatmap: [Float](repeating: 0, count: 64 * 64 * 2), height: 64, width: 64, channels: 2)
        }
        #expect(throws: PipelineInputError.self) {
            try HeatmapRefinement.pose.refine(&landmarks, heatmap: [], height: Int.max, width: Int.max, channels: 1)
        }
    }
}
