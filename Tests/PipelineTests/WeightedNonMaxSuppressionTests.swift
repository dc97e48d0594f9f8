import Testing
import Pipeline

@Suite struct WeightedNonMaxSuppressionTests {
    private func detection(_ score: Float, _ xmin: Float, _ ymin: Float, _ size: Float, keypoint: RelativePoint) -> Detection {
        Detection(score: score, box: RelativeBox(xmin: xmin, ymin: ymin, width: size, height: size), keypoints: [keypoint])
    }

    @Test func iouOfKnownBoxes() {
        let a = RelativeBox(xmin: 0, ymin: 0, width: 2, height: 2)
        let b = RelativeBox(xmin: 1, ymin: 1, width: 2, height: 2)
        #expect(a.intersectionOverUnion(with: b) == Float(1) / 7)  // 1 / (4 + 4 − 1)
        #expect(a.intersectionOverUnion(with: a) == 1)
        let touching = RelativeBox(xmin: 2, ymin: 0, width: 1, height: 1)
        #expect(a.intersectionOverUnion(with: touching) == 0)
        let apart = RelativeBox(xmin: 5, ymin: 5, width: 1, height: 1)
        #expect(a.intersectionOverUnion(with: apart) == 0)
        let empty = RelativeBox(xmin: 0, ymin: 0, width: 0, height: 0)
        #expect(empty.intersectionOverUnion(with: empty) == 0)
    }

    @Test func averagesCornersAndKeypointsByScoreAndKeepsTheSeedScore() {
        // A (0.9) and B (0.6) overlap with IoU 0.64/1.36 ≈ 0.47; C is far away.
        let a = detection(0.9, 0.0, 0.0, 1.0, keypoint: RelativePoint(x: 0.5, y: 0.5))
        let b = detection(0.6, 0.2, 0.2, 1.0, keypoint: RelativePoint(x: 1.0, y: 0.0))
        let c = detection(0.3, 5.0, 5.0, 1.0, keypoint: RelativePoint(x: 5.5, y: 5.5))
        let output = WeightedNonMaxSuppression(iouThreshold: 0.3).apply([c, b, a])
        #expect(output.count == 2)
        let merged = output[0]
        #expect(merged.score == 0.9)
        // Weighted by 0.9 and 0.6 (total 1.5): xmin = (0·0.9 + 0.2·0.6)/1.5 = 0.08,
        // xmax = (1·0.9 + 1.2·0.6)/1.5 = 1.08; keypoint x = (0.45 + 0.6)/1.5 = 0.7, y = 0.3.
        #expect(isClose(merged.box.xmin, 0.08, 1e-6))
        #expect(isClose(merged.box.ymin, 0.08, 1e-6))
        #expect(isClose(merged.box.width, 1.0, 1e-6))
        #expect(isClose(merged.keypoints[0].x, 0.7, 1e-6))
        #expect(isClose(merged.keypoints[0].y, 0.3, 1e-6))
        #expect(output[1] == c)  // alone in its group: unchanged
    }

    @Test func thresholdIsStrict() {
        // Two unit boxes shifted by 0.25 horizontally: IoU = 0.75/1.25 = 0.6.
        let a = detection(0.9, 0, 0, 1, keypoint: RelativePoint(x: 0, y: 0))
        let b = detection(0.8, 0.25, 0, 1, keypoint: RelativePoint(x: 0, y: 0))
        let iou = a.box.intersectionOverUnion(with: b.box)
        #expect(WeightedNonMaxSuppression(iouThreshold: iou).apply([a, b]).count == 2)
        #expect(WeightedNonMaxSuppression(iouThreshold: iou.nextDown).apply([a, b]).count == 1)
    }

    @Test func outputIsInDescendingSeedScoreAndTiesKeepInputOrder() {
        let far: [Detection] = (0..<4).map { i in
            detection(i == 2 ? 0.4 : 0.7, Float(i) * 10, 0, 1, keypoint: RelativePoint(x: Float(i), y: 0))
        }
        let output = WeightedNonMaxSuppression(iouThreshold: 0.3).apply(far)
        #expect(output.map(\.keypoints[0].x) == [0, 1, 3, 2])
    }

    @Test func zeroAreaSeedIsOutputAndStopsTheLoop() {
        let degenerate = detection(0.9, 0.5, 0.5, 0, keypoint: RelativePoint(x: 0, y: 0))
        let other = detection(0.5, 0, 0, 1, keypoint: RelativePoint(x: 1, y: 1))
        // The zero-area seed has IoU 0 with everything, itself included: the round removes
        // nothing, the seed is emitted and suppression stops (MediaPipe's loop guard).
        let output = WeightedNonMaxSuppression(iouThreshold: 0.3).apply([degenerate, other])
        #expect(output == [degenerate])
    }

    @Test func presetsCarryTheDocumentedThresholds() {
        #expect(WeightedNonMaxSuppression.poseDetector.iouThreshold == 0.5)
        #expect(WeightedNonMaxSuppression.poseDetectorLegacy.iouThreshold == 0.3)
        #expect(WeightedNonMaxSuppression.palmDetector.iouThreshold == 0.3)
    }
}
