/// Layout and thresholds for decoding an SSD detector's raw outputs
/// (MediaPipe `TensorsToDetectionsCalculator` options, docs/PIPELINE.md, "Decoding detections").
///
/// Rows are in XYWH order (`reverse_output_order: true`):
/// `[dx, dy, w, h, kx0, ky0, kx1, ky1, …]`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct DetectionDecodingOptions: Sendable, Hashable {
    /// Floats per anchor row of the box tensor (12 pose, 18 palm, 16 face).
    package var coordinatesPerRow: Int
    /// Keypoints per row (4 pose, 7 palm, 6 face), each an (x, y) pair.
    package var keypointCount: Int
    /// Index in the row of the first keypoint value (4 for every detector here).
    package var keypointOffset: Int
    /// Divisor of the box centre, size and keypoint regressions: the detector input size in
    /// pixels (224 pose, 192 palm, 128 face). One value for x, y, w and h, as every detector here uses.
    package var coordinateScale: Float
    /// Score logits are clamped to `±scoreClippingThreshold` before the sigmoid (100).
    package var scoreClippingThreshold: Float
    /// Candidates with score < this are dropped (a score equal to it is kept).
    package var minScoreThreshold: Float

    package init(
        coordinatesPerRow: Int, keypointCount: Int, keypointOffset: Int = 4,
        coordinateScale: Float, scoreClippingThreshold: Float = 100, minScoreThreshold: Float
    ) {
        self.coordinatesPerRow = coordinatesPerRow
        self.keypointCount = keypointCount
        self.keypointOffset = keypointOffset
        self.coordinateScale = coordinateScale
        self.scoreClippingThreshold = scoreClippingThreshold
        self.minScoreThreshold = minScoreThreshold
    }

    /// pose_detection.tflite: 12 values per row, 4 keypoints, scale 224.
    /// `minScoreThreshold` is Tasks `min_pose_detection_confidence` (legacy
    /// `min_detection_confidence`), 0.5 by default.
    package static func poseDetector(minScoreThreshold: Float = 0.5) -> DetectionDecodingOptions {
        DetectionDecodingOptions(
            coordinatesPerRow: 12, keypointCount: 4, coordinateScale: 224,
            minScoreThreshold: minScoreThreshold)
    }

    /// palm_detection_full/lite.tflite: 18 values per row, 7 keypoints, scale 192.
    /// `minScoreThreshold` is Tasks `min_hand_detection_confidence` (legacy
    /// `min_detection_confidence`), 0.5 by default.
    package static func palmDetector(minScoreThreshold: Float = 0.5) -> DetectionDecodingOptions {
        DetectionDecodingOptions(
            coordinatesPerRow: 18, keypointCount: 7, coordinateScale: 192,
            minScoreThreshold: minScoreThreshold)
    }

    /// face_detection_short_range.tflite: 16 values per row, 6 keypoints (right eye, left eye,
    /// nose tip, mouth centre, right and left ear tragion), scale 128. `minScoreThreshold` is
    /// the legacy Face Mesh's `min_detection_confidence` (Tasks `min_face_detection_confidence`),
    /// 0.5 by default.
    package static func faceDetector(minScoreThreshold: Float = 0.5) -> DetectionDecodingOptions {
        DetectionDecodingOptions(
            coordinatesPerRow: 16, keypointCount: 6, coordinateScale: 128,
            minScoreThreshold: minScoreThreshold)
    }
}

/// Turns a detector's raw box regressions and score logits into ``Detection``s
/// (docs/PIPELINE.md, "Decoding detections").
///
/// For anchor `a` (centre `a.x, a.y`, size `a.w, a.h`) and scale `S`:
/// `x_c = dx/S·a.w + a.x`, `y_c = dy/S·a.h + a.y`, `w = w_raw/S·a.w`, `h = h_raw/S·a.h`
/// (no exponential); box corners `x_c ∓ w/2`, `y_c ∓ h/2`, stored as xmin/ymin and
/// width = xmax − xmin, height = ymax − ymin; keypoint `k`: `kx/S·a.w + a.x`,
/// `ky/S·a.h + a.y`; score `sigmoid(clamp(logit, −100, 100))`.
///
/// A candidate is dropped when its score is below the threshold, when its width or height
/// is negative or NaN, or (unlike MediaPipe, which would keep it) when its score is NaN.
/// Coordinates are normalized to the detector tensor, i.e. still letterboxed.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct DetectionDecoder: Sendable {
    package let anchors: [SSDAnchor]
    package let options: DetectionDecodingOptions

    /// - Throws: ``PipelineInputError/invalidOption(name:reason:)`` if the box (4 values from
    ///   index 0) or the keypoints do not fit in `coordinatesPerRow`, or the scale is not
    ///   positive.
    package init(anchors: [SSDAnchor], options: DetectionDecodingOptions) throws {
        guard options.coordinatesPerRow >= 4 else {
            throw PipelineInputError.invalidOption(
                name: "coordinatesPerRow", reason: "\(options.coordinatesPerRow) cannot hold a box")
        }
        guard options.keypointCount >= 0, options.keypointOffset >= 0 else {
            throw PipelineInputError.invalidOption(name: "keypoints", reason: "negative count or offset")
        }
        let (keypointValues, o1) = options.keypointCount.multipliedReportingOverflow(by: 2)
        let (keypointEnd, o2) = options.keypointOffset.addingReportingOverflow(keypointValues)
        guard !o1, !o2, keypointEnd <= options.coordinatesPerRow else {
            throw PipelineInputError.invalidOption(
                name: "keypoints",
                reason: "\(options.keypointCount) keypoints from index \(options.keypointOffset) "
                    + "do not fit in \(options.coordinatesPerRow) values per row")
        }
        guard options.coordinateScale > 0 else {
            throw PipelineInputError.invalidOption(
                name: "coordinateScale", reason: "\(options.coordinateScale) is not positive")
        }
        self.anchors = anchors
        self.options = options
    }

    /// The pose detector's decoder: ``SSDAnchorOptions/poseDetector`` anchors and
    /// ``DetectionDecodingOptions/poseDetector(minScoreThreshold:)``.
    package static func poseDetector(minScoreThreshold: Float = 0.5) -> DetectionDecoder {
        DetectionDecoder(
            validAnchors: SSDAnchorOptions.poseDetector.makeAnchors(),
            options: .poseDetector(minScoreThreshold: minScoreThreshold))
    }

    /// The palm detector's decoder: ``SSDAnchorOptions/palmDetector`` anchors and
    /// ``DetectionDecodingOptions/palmDetector(minScoreThreshold:)``.
    package static func palmDetector(minScoreThreshold: Float = 0.5) -> DetectionDecoder {
        DetectionDecoder(
            validAnchors: SSDAnchorOptions.palmDetector.makeAnchors(),
            options: .palmDetector(minScoreThreshold: minScoreThreshold))
    }

    /// The short-range face detector's decoder: ``SSDAnchorOptions/faceDetector`` anchors and
    /// ``DetectionDecodingOptions/faceDetector(minScoreThreshold:)``.
    package static func faceDetector(minScoreThreshold: Float = 0.5) -> DetectionDecoder {
        DetectionDecoder(
            validAnchors: SSDAnchorOptions.faceDetector.makeAnchors(),
            options: .faceDetector(minScoreThreshold: minScoreThreshold))
    }

    private init(validAnchors: [SSDAnchor], options: DetectionDecodingOptions) {
        self.anchors = validAnchors
        self.options = options
    }

    /// Decodes one image's detector outputs.
    ///
    /// - Parameters:
    ///   - boxes: output 0, `[1, anchors, coordinatesPerRow]` float32, C order.
    ///   - scores: output 1, `[1, anchors, 1]` float32 score logits.
    /// - Returns: the detections that pass the score threshold, in anchor order.
    /// - Throws: ``PipelineInputError/tensorSizeMismatch(tensor:expected:actual:)`` if a buffer
    ///   does not hold exactly one row per anchor.
    package func decode(boxes: UnsafeBufferPointer<Float>, scores: UnsafeBufferPointer<Float>) throws -> [Detection] {
        let rowLength = options.coordinatesPerRow
        let (expectedBoxes, overflow) = anchors.count.multipliedReportingOverflow(by: rowLength)
        guard !overflow else { throw PipelineInputError.sizeOutOfRange(what: "box tensor size") }
        guard boxes.count == expectedBoxes else {
            throw PipelineInputError.tensorSizeMismatch(
                tensor: "detector boxes", expected: expectedBoxes, actual: boxes.count)
        }
        guard scores.count == anchors.count else {
            throw PipelineInputError.tensorSizeMismatch(
                tensor: "detector scores", expected: anchors.count, actual: scores.count)
        }
        let scale = options.coordinateScale
        let clip = options.scoreClippingThreshold
        var detections: [Detection] = []
        for (index, anchor) in anchors.enumerated() {
            let logit = min(max(scores[index], -clip), clip)
            let score = sigmoid(logit)
            guard !score.isNaN, score >= options.minScoreThreshold else { continue }
            // index < anchors.count, so index * rowLength < expectedBoxes: no overflow.
            let row = index * rowLength
            let xCenter = boxes[row] / scale * anchor.width + anchor.xCenter
            let yCenter = boxes[row + 1] / scale * anchor.height + anchor.yCenter
            let width = boxes[row + 2] / scale * anchor.width
            let height = boxes[row + 3] / scale * anchor.height
            let xmin = xCenter - width / 2
            let ymin = yCenter - height / 2
            let box = RelativeBox(
                xmin: xmin, ymin: ymin,
                width: (xCenter + width / 2) - xmin, height: (yCenter + height / 2) - ymin)
            guard box.width >= 0, box.height >= 0 else { continue }  // also drops NaN
            var keypoints: [RelativePoint] = []
            keypoints.reserveCapacity(options.keypointCount)
            for keypoint in 0..<options.keypointCount {
                let offset = row + options.keypointOffset + 2 * keypoint
                keypoints.append(RelativePoint(
                    x: boxes[offset] / scale * anchor.width + anchor.xCenter,
                    y: boxes[offset + 1] / scale * anchor.height + anchor.yCenter))
            }
            detections.append(Detection(score: score, box: box, keypoints: keypoints))
        }
        return detections
    }

    /// Array convenience for ``decode(boxes:scores:)-(UnsafeBufferPointer<Float>,_)``.
    package func decode(boxes: [Float], scores: [Float]) throws -> [Detection] {
        try boxes.withUnsafeBufferPointer { boxBuffer in
            try scores.withUnsafeBufferPointer { scoreBuffer in
                try decode(boxes: boxBuffer, scores: scoreBuffer)
            }
        }
    }
}
