/// MediaPipe's WEIGHTED non-maximum suppression with INTERSECTION_OVER_UNION overlap
/// (`NonMaxSuppressionCalculator`, docs/PIPELINE.md, "Weighted non-maximum suppression").
///
/// 1. Sort by score, descending. MediaPipe's sort is unstable; here ties keep their input
///    (anchor) order.
/// 2. The top remaining detection is the seed. Its candidates are all remaining detections
///    (the seed included) whose IoU with the seed is **> threshold**.
/// 3. The output is a copy of the seed whose box corners (xmin, ymin, xmax, ymax) and keypoints
///    are the score-weighted means over the candidates; the score stays the seed's.
/// 4. The candidates are removed; repeat until nothing is left or a round removes nothing
///    (a degenerate seed with zero area: it is still output, then the loop stops).
///
/// Output order is descending seed score. No score floor and no maximum count are applied.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct WeightedNonMaxSuppression: Sendable, Hashable {
    /// Candidates need IoU with the seed strictly greater than this.
    package var iouThreshold: Float

    package init(iouThreshold: Float) {
        self.iouThreshold = iouThreshold
    }

    /// Pose detector, Tasks flavour: 0.5 (`PoseDetectorGraphOptions.min_suppression_threshold`
    /// default, not exposed by PoseLandmarker).
    package static let poseDetector = WeightedNonMaxSuppression(iouThreshold: 0.5)
    /// Pose detector, legacy flavour (`mp.solutions.pose`): 0.3.
    package static let poseDetectorLegacy = WeightedNonMaxSuppression(iouThreshold: 0.3)
    /// Palm detector, both flavours: 0.3.
    package static let palmDetector = WeightedNonMaxSuppression(iouThreshold: 0.3)
    /// Short-range face detector (the legacy Face Mesh graph's `FaceDetectionShortRange`): 0.3.
    package static let faceDetector = WeightedNonMaxSuppression(iouThreshold: 0.3)

    /// Suppresses overlapping detections.
    ///
    /// Keypoint *k* of the output averages keypoint *k* of those candidates that have one
    /// (all of them when the detections come from one decoder).
    package func apply(_ detections: [Detection]) -> [Detection] {
        var remaining = detections.indices.sorted { lhs, rhs in
            let left = detections[lhs].score
            let right = detections[rhs].score
            return left != right ? left > right : lhs < rhs
        }
        var output: [Detection] = []
        while let seedIndex = remaining.first {
            let seed = detections[seedIndex]
            var candidates: [Int] = []
            var rest: [Int] = []
            for index in remaining {
                if detections[index].box.intersectionOverUnion(with: seed.box) > iouThreshold {
                    candidates.append(index)
                } else {
                    rest.append(index)
                }
            }
            output.append(candidates.isEmpty ? seed : weightedMean(of: candidates, in: detections, seed: seed))
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }

    private func weightedMean(of candidates: [Int], in detections: [Detection], seed: Detection) -> Detection {
        var totalScore: Float = 0
        var xmin: Float = 0
        var ymin: Float = 0
        var xmax: Float = 0
        var ymax: Float = 0
        let keypointCount = seed.keypoints.count
        var keypointSums = [RelativePoint](repeating: RelativePoint(x: 0, y: 0), count: keypointCount)
        var keypointWeights = [Float](repeating: 0, count: keypointCount)
        for index in candidates {
            let candidate = detections[index]
            let weight = candidate.score
            totalScore += weight
            xmin += candidate.box.xmin * weight
            ymin += candidate.box.ymin * weight
            xmax += (candidate.box.xmin + candidate.box.width) * weight
            ymax += (candidate.box.ymin + candidate.box.height) * weight
            for k in 0..<min(keypointCount, candidate.keypoints.count) {
                keypointSums[k].x += candidate.keypoints[k].x * weight
                keypointSums[k].y += candidate.keypoints[k].y * weight
                keypointWeights[k] += weight
            }
        }
        var result = seed
        let meanXmin = xmin / totalScore
        let meanYmin = ymin / totalScore
        result.box = RelativeBox(
            xmin: meanXmin, ymin: meanYmin,
            width: xmax / totalScore - meanXmin, height: ymax / totalScore - meanYmin)
        for k in 0..<keypointCount {
            result.keypoints[k] = RelativePoint(
                x: keypointSums[k].x / keypointWeights[k], y: keypointSums[k].y / keypointWeights[k])
        }
        return result
    }
}
