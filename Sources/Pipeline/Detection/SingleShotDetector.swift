import ImageIO
import Inference

/// An SSD detector run on the whole image, as the pose, palm and face detectors are, or on a
/// rotated region of it, as the holistic graph's face detector is (docs/PIPELINE.md, "ROI to
/// tensor", "Decoding detections", "Weighted non-maximum suppression"): the region letterboxed
/// to the model's square input (border zero), one invocation, the outputs decoded against the
/// anchors, then weighted NMS.
///
/// Holds the interpreter's tensor memory: one detector serves one caller at a time (the graphs
/// that own one are used by one thread at a time).
package struct SingleShotDetector {
    /// The model: input `[1, inputSize, inputSize, 3]`; outputs box regressions and score logits.
    let interpreter: Interpreter
    /// The model input's side, pixels.
    let inputSize: Int
    /// The input values of uint8 0 and 255 (−1 and 1, or 0 and 1).
    let valueRange: (min: Float, max: Float)
    let decoder: DetectionDecoder
    let suppression: WeightedNonMaxSuppression

    package init(
        interpreter: Interpreter, inputSize: Int, valueRange: (min: Float, max: Float), decoder: DetectionDecoder,
        suppression: WeightedNonMaxSuppression
    ) {
        self.interpreter = interpreter
        self.inputSize = inputSize
        self.valueRange = valueRange
        self.decoder = decoder
        self.suppression = suppression
    }

    /// Runs the detector on the whole of `image`.
    /// - Returns: the detections surviving NMS in descending score, normalized to the
    ///   letterboxed tensor, and the letterbox transform that maps them back to the image
    ///   (its padding, or its matrix).
    package func detect(in image: RGBImage) throws -> (detections: [Detection], transform: ImageToTensor.Transform) {
        try detect(in: image, roi: .fullImage(width: image.width, height: image.height))
    }

    /// Runs the detector on the region `roi` of `image`.
    /// - Returns: the detections surviving NMS in descending score, normalized to the tensor,
    ///   and the crop's transform, whose matrix maps them back to the image
    ///   (``DetectionProjection``).
    package func detect(
        in image: RGBImage, roi: RotatedPixelRect
    ) throws -> (detections: [Detection], transform: ImageToTensor.Transform) {
        let options = ImageToTensor.Options(
            outputWidth: inputSize, outputHeight: inputSize, rangeMin: valueRange.min, rangeMax: valueRange.max,
            keepAspectRatio: true, borderMode: .zero)
        let transform = try interpreter.withInputBuffer(at: 0) { buffer in
            try ImageToTensor.convert(image, roi: roi, options: options, into: buffer, runner: interpreter.workers)
        }
        interpreter.invoke()
        let detections = try interpreter.withOutputBuffer(at: 0) { boxes in
            try interpreter.withOutputBuffer(at: 1) { scores in
                try decoder.decode(boxes: boxes, scores: scores)
            }
        }
        return (suppression.apply(detections), transform)
    }
}
