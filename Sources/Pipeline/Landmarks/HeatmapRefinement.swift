/// Moves landmarks to the confidence-weighted centre of their heatmap peak
/// (MediaPipe `RefineLandmarksFromHeatmapCalculator`, docs/PIPELINE.md, "Pose landmark model").
/// Works on landmarks normalized to the model crop, before projection; only x and y change.
///
/// Per landmark *i* (heatmap channel *i*):
/// 1. `col = trunc(x·W)`, `row = trunc(y·H)` (C truncation toward zero, so small negative
///    values land in column/row 0). A landmark with `col` outside `[0, min(W, H))` or `row < 0`
///    is left as is.
/// 2. The window is `col ± k`, `row ± k` with `k = (kernelSize − 1)/2`, clipped to the heatmap.
/// 3. Each cell's confidence is `sigmoid(heat)`; sum, max and the confidence-weighted sums of
///    the column and row indices are accumulated in `Float`.
/// 4. If `max ≥ minConfidenceToRefine` and `sum > 0`: `x = Σcol·c / W / sum`,
///    `y = Σrow·c / H / sum` (no +0.5 cell-centre offset).
///
/// MediaPipe tests the row against the heatmap *width* instead of its height, so for a row
/// past the bottom edge the landmark is not skipped: the clipped window still holds the last
/// rows while `row < H + k`. That is reproduced here (identical for square heatmaps with the
/// documented skip, except for rows in `[H, H + k)`).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct HeatmapRefinement: Sendable, Hashable {
    /// Window side in cells (odd).
    package var kernelSize: Int
    /// Refine only if the window's maximum confidence is at least this.
    package var minConfidenceToRefine: Float

    package init(kernelSize: Int, minConfidenceToRefine: Float = 0.5) {
        self.kernelSize = kernelSize
        self.minConfidenceToRefine = minConfidenceToRefine
    }

    /// Pose landmark model, Tasks graph: kernel 7, min confidence 0.5; presence and visibility
    /// are not refined.
    package static let pose = HeatmapRefinement(kernelSize: 7)

    /// Pose landmark model, legacy graph (`pose_landmark_cpu`, also inside the holistic graph):
    /// kernel **9**, min confidence 0.5. The graph's config asks for 7, but MediaPipe 0.10.21
    /// refines its legacy pose landmarks with 9, the option's default (docs/PIPELINE.md,
    /// "Legacy pose"): found by refining the model's heatmap both ways and comparing with the
    /// legacy references.
    package static let legacyPose = HeatmapRefinement(kernelSize: 9)

    /// Refines `landmarks` in place.
    ///
    /// - Parameters:
    ///   - landmarks: one per heatmap channel, normalized to the crop.
    ///   - heatmap: `[1, height, width, channels]` float32 logits, channels last
    ///     (pose: `Identity_3` [1,64,64,39]).
    ///   - width: the heatmap's columns.
    ///   - height: the heatmap's rows.
    ///   - channels: the heatmap's channels, one per landmark.
    /// - Throws: ``PipelineInputError/tensorSizeMismatch(tensor:expected:actual:)`` if the
    ///   buffer size or the channel count does not match; ``PipelineInputError/invalidOption(name:reason:)``
    ///   for non-positive dimensions or kernel size.
    package func refine(
        _ landmarks: inout [RawLandmark], heatmap: UnsafeBufferPointer<Float>,
        height: Int, width: Int, channels: Int
    ) throws {
        guard height > 0, width > 0, channels > 0 else {
            throw PipelineInputError.invalidOption(
                name: "heatmap shape", reason: "\(height)×\(width)×\(channels) is not positive")
        }
        guard kernelSize > 0 else {
            throw PipelineInputError.invalidOption(name: "kernelSize", reason: "\(kernelSize) is not positive")
        }
        let (plane, o1) = height.multipliedReportingOverflow(by: width)
        let (expected, o2) = plane.multipliedReportingOverflow(by: channels)
        guard !o1, !o2 else { throw PipelineInputError.sizeOutOfRange(what: "heatmap") }
        guard heatmap.count == expected else {
            throw PipelineInputError.tensorSizeMismatch(tensor: "heatmap", expected: expected, actual: heatmap.count)
        }
        guard landmarks.count == channels else {
            throw PipelineInputError.tensorSizeMismatch(
                tensor: "heatmap channels", expected: landmarks.count, actual: channels)
        }
        let offset = (kernelSize - 1) / 2
        let widthF = Float(width)
        let heightF = Float(height)
        for index in landmarks.indices {
            let scaledX = landmarks[index].x * widthF
            let scaledY = landmarks[index].y * heightF
            // trunc toward zero: values in (−1, 0) give 0; anything ≤ −1 is negative. The column
            // is also tested against the height, as MediaPipe does (no effect when square).
            guard scaledX > -1, scaledX < widthF, scaledX < heightF, scaledY > -1 else { continue }  // also NaN
            // Rows at or past height + offset give an empty window: nothing to refine. The
            // bound also keeps Int(scaledY) far from overflow.
            guard scaledY < heightF + Float(offset) else { continue }
            let column = Int(scaledX)
            let row = Int(scaledY)
            // column in [0, width), row in [0, height + offset): the ± offset stays in Int range.
            let beginColumn = max(0, column - offset)
            let endColumn = min(width, column + offset + 1)
            let beginRow = max(0, row - offset)
            let endRow = min(height, row + offset + 1)
            guard beginRow < endRow else { continue }
            var sum: Float = 0
            var weightedColumn: Float = 0
            var weightedRow: Float = 0
            var maxConfidence: Float = 0
            for r in beginRow..<endRow {
                for c in beginColumn..<endColumn {
                    // r < height, c < width: inside the buffer whose size was checked above.
                    let confidence = sigmoid(heatmap[(r * width + c) * channels + index])
                    sum += confidence
                    maxConfidence = max(maxConfidence, confidence)
                    weightedColumn += Float(c) * confidence
                    weightedRow += Float(r) * confidence
                }
            }
            if maxConfidence >= minConfidenceToRefine && sum > 0 {
                landmarks[index].x = weightedColumn / widthF / sum
                landmarks[index].y = weightedRow / heightF / sum
            }
        }
    }

    /// Array convenience for ``refine(_:heatmap:height:width:channels:)-(_,UnsafeBufferPointer<Float>,_,_,_)``.
    package func refine(_ landmarks: inout [RawLandmark], heatmap: [Float], height: Int, width: Int, channels: Int) throws {
        try heatmap.withUnsafeBufferPointer {
            try refine(&landmarks, heatmap: $0, height: height, width: width, channels: channels)
        }
    }
}
