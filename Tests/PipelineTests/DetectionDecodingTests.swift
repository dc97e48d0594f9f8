import Foundation
import Testing
@testable import Pipeline

@Suite struct DetectionDecodingTests {
    /// One anchor at (0.5, 0.5), box + one keypoint per row, scale 100.
    private func singleAnchorDecoder(minScore: Float) throws -> DetectionDecoder {
        try DetectionDecoder(
            anchors: [SSDAnchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)],
            options: DetectionDecodingOptions(
                coordinatesPerRow: 6, keypointCount: 1, coordinateScale: 100, minScoreThreshold: minScore))
    }

    @Test func decodesBoxAndKeypointsRelativeToTheAnchor() throws {
        let decoder = try singleAnchorDecoder(minScore: 0.5)
        let detections = try decoder.decode(boxes: [10, -20, 30, 40, 5, 6], scores: [0])
        try #require(detections.count == 1)
        let detection = detections[0]
        // x_c = 10/100 + 0.5 = 0.6, y_c = −20/100 + 0.5 = 0.3, w = 0.3, h = 0.4.
        #expect(isClose(detection.box.xmin, 0.45, 1e-6))
        #expect(isClose(detection.box.ymin, 0.1, 1e-6))
        #expect(isClose(detection.box.width, 0.3, 1e-6))
        #expect(isClose(detection.box.height, 0.4, 1e-6))
        #expect(isClose(detection.keypoints[0].x, 0.55, 1e-6))
        #expect(isClose(detection.keypoints[0].y, 0.56, 1e-6))
        #expect(detection.score == 0.5)  // sigmoid(0), kept because the test is ≥
    }

    @Test func scoreThresholdIsInclusive() throws {
        let row: [Float] = [0, 0, 10, 10, 0, 0]
        #expect(try singleAnchorDecoder(minScore: 0.5).decode(boxes: row, scores: [0]).count == 1)
        #expect(try singleAnchorDecoder(minScore: Float(0.5).nextUp).decode(boxes: row, scores: [0]).isEmpty)
    }

    @Test func extremeLogitsSaturateWithoutNaN() throws {
        // Clipping to ±100 cannot be seen in Float (e^100 already overflows to +∞, as in
        // MediaPipe's float sigmoid); what matters is that huge and infinite logits give 0 and 1.
        let decoder = try singleAnchorDecoder(minScore: 0)
        let row: [Float] = [0, 0, 10, 10, 0, 0]
        for logit: Float in [-1000, -.infinity, -100] {
            #expect(try decoder.decode(boxes: row, scores: [logit]).first?.score == 0)
        }
        for logit: Float in [1000, .infinity, 100] {
            #expect(try decoder.decode(boxes: row, scores: [logit]).first?.score == 1)
        }
        #expect(try decoder.decode(boxes: row, scores: [2]).first?.score == 1 / (1 + exp(Float(-2))))
    }

    @Test func dropsNegativeOrNaNSizesAndNaNScores() throws {
        let decoder = try singleAnchorDecoder(minScore: 0)
        #expect(try decoder.decode(boxes: [0, 0, -1, 10, 0, 0], scores: [5]).isEmpty)
        #expect(try decoder.decode(boxes: [0, 0, 10, -1, 0, 0], scores: [5]).isEmpty)
        #expect(try decoder.decode(boxes: [0, 0, .nan, 10, 0, 0], scores: [5]).isEmpty)
        #expect(try decoder.decode(boxes: [0, 0, 10, 10, 0, 0], scores: [.nan]).isEmpty)
        #expect(try decoder.decode(boxes: [0, 0, 0, 0, 0, 0], scores: [5]).count == 1)  // zero size is kept
    }

    @Test func wrongTensorSizesThrow() throws {
        let decoder = DetectionDecoder.poseDetector()
        #expect(throws: PipelineInputError.tensorSizeMismatch(tensor: "detector boxes", expected: 2254 * 12, actual: 10)) {
            try decoder.decode(boxes: [Float](repeating: 0, count: 10), scores: [Float](repeating: 0, count: 2254))
        }
        #expect(throws: PipelineInputError.tensorSizeMismatch(tensor: "detector scores", expected: 2254, actual: 2253)) {
            try decoder.decode(boxes: [Float](repeating: 0, count: 2254 * 12), scores: [Float](repeating: 0, count: 2253))
        }
        #expect(throws: PipelineInputError.self) {
            try DetectionDecoder(anchors: [], options: DetectionDecodingOptions(
                coordinatesPerRow: 12, keypointCount: 5, coordinateScale: 224, minScoreThreshold: 0.5))
        }
    }

    /// pose_detection reference outputs for `bus` (810×1080, letterboxed into 224×224 as MediaPipe
    /// does: the ROI widened to 1080×1080, padding (1 − 810/1080)/2 = 0.125 left and right),
    /// decoded, suppressed with the legacy IoU 0.3, unletterboxed, versus the legacy graph's
    /// detection. The input is MediaPipe's own (`Tests/Fixtures/tensors`); the outputs are
    /// LiteRT's reference kernels', not XNNPACK's: observed 6e−8 in coordinates (box and
    /// keypoints) and 1e−7 in score.
    @Test func poseDetectionOnBusMatchesLegacy() throws {
        let boxes = try MathFixtures.floats("tensors/pose_detection/ref_out0_Identity.bin")
        let scores = try MathFixtures.floats("tensors/pose_detection/ref_out1_Identity_1.bin")
        let legacy = try MathFixtures.json(LegacyPoseFixture.self, "legacy/pose_full/bus.json")
        let expected = try #require(legacy.intermediate.poseDetection).detection

        let decoded = try DetectionDecoder.poseDetector(minScoreThreshold: 0.5).decode(boxes: boxes, scores: scores)
        let suppressed = WeightedNonMaxSuppression.poseDetectorLegacy.apply(decoded)
        let padding = LetterboxPadding(left: 0.125, top: 0, right: 0.125, bottom: 0)
        let top = padding.removing(from: try #require(suppressed.first))

        let difference = coordinateDifference(top, expected)
        print("pose detection vs legacy: max coordinate difference \(difference), score \(top.score) vs \(expected.score)")
        #expect(difference <= 1e-4)
        #expect(isClose(top.score, expected.score, 1e-4))
        #expect(suppressed.count < decoded.count)
        #expect(zip(suppressed, suppressed.dropFirst()).allSatisfy { $0.score >= $1.score })
    }

    /// palm_detection_full reference outputs for `t1_cards_left` (300×300, square: no
    /// letterbox), decoded and suppressed (IoU 0.3), versus the legacy palm detections as a set.
    /// The input is MediaPipe's own, as for the pose test. Observed: coordinates within 1.5e−7,
    /// scores within 7e−7.
    @Test func palmDetectionsOnCardHandsMatchLegacyAsASet() throws {
        let boxes = try MathFixtures.floats("tensors/palm_detection_full/ref_out0_Identity.bin")
        let scores = try MathFixtures.floats("tensors/palm_detection_full/ref_out1_Identity_1.bin")
        let legacy = try MathFixtures.json(LegacyHandsFixture.self, "legacy/hands_full/t1_cards_left.json")
        let expected = legacy.intermediate.palmDetections.map(\.detection)

        let decoded = try DetectionDecoder.palmDetector(minScoreThreshold: 0.5).decode(boxes: boxes, scores: scores)
        let suppressed = WeightedNonMaxSuppression.palmDetector.apply(decoded).map(LetterboxPadding.zero.removing(from:))
        #expect(suppressed.count == expected.count)
        for want in expected {
            let match = try #require(
                suppressed.max { $0.box.intersectionOverUnion(with: want.box) < $1.box.intersectionOverUnion(with: want.box) })
            #expect(match.box.intersectionOverUnion(with: want.box) > 0.999)
            let difference = coordinateDifference(match, want)
            print("palm detection vs legacy: max coordinate difference \(difference), score \(match.score) vs \(want.score)")
            #expect(difference <= 1e-4)
            #expect(isClose(match.score, want.score, 1e-4))
        }
    }

    private func coordinateDifference(_ a: Detection, _ b: Detection) -> Float {
        var difference = max(abs(a.box.xmin - b.box.xmin), abs(a.box.ymin - b.box.ymin),
                             abs(a.box.width - b.box.width), abs(a.box.height - b.box.height))
        for (p, q) in zip(a.keypoints, b.keypoints) {
            difference = max(difference, abs(p.x - q.x), abs(p.y - q.y))
        }
        return a.keypoints.count == b.keypoints.count ? difference : .infinity
    }
}
