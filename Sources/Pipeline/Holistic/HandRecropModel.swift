import ImageIO
import Inference

/// The holistic graph's hand-recrop step (`HandRecropByRoiCpu`, docs/PIPELINE.md, "Holistic
/// hands"): `hand_recrop.tflite` looks at the region around the pose's hand and gives two
/// points that align the hand ROI.
///
/// The region is letterboxed to 256×256 in [0, 1] (border replicate); the two points (x, y in
/// crop pixels / 256) lose the letterbox, are projected through the region, and become the
/// alignment-points rect from point 0 to point 1 with target −90°, shifted up by a tenth of its
/// height and squared.
///
/// Holds the interpreter's tensor memory: one model serves one caller at a time.
package struct HandRecropModel {
    package static let inputSize = 256

    private let interpreter: Interpreter

    /// - Parameter interpreter: `hand_recrop.tflite`: input `[1, 256, 256, 3]` in [0, 1];
    ///   output `[1, 1, 1, 4]`, two (x, y) points in crop pixels.
    /// - Throws: `ModelShapeError` when the model has other tensor shapes.
    package init(interpreter: Interpreter) throws {
        try ModelShapeError.requireShapes(
            of: interpreter, inputs: [[1, 256, 256, 3]], outputs: [[1, 1, 1, 4]], role: "hand recrop model")
        self.interpreter = interpreter
    }

    /// The hand ROI within `region`, normalized to the image.
    package func roi(in image: RGBImage, region: NormalizedRect) throws -> NormalizedRect {
        let transform = try interpreter.invoke(onCropOf: image, roi: region, side: Self.inputSize, keepAspectRatio: true)
        let cropPoints = transform.padding.removing(
            from: try interpreter.withOutputBuffer(at: 0) { try LandmarkTensorLayout.handRecrop.decodeLandmarks($0) })
        let points = LandmarkProjection.project(cropPoints, through: region)
        let rect = try DetectionToRect.handFromRecrop.rect(
            for: Detection(enclosing: points), imageWidth: image.width, imageHeight: image.height)
        return RectTransformation.handFromRecrop.apply(to: rect, imageWidth: image.width, imageHeight: image.height)
    }
}
