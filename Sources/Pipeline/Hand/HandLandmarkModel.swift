import ImageIO
import Inference

/// The hand landmark step shared by the hand and holistic graphs (docs/PIPELINE.md, "Hand
/// landmark model"): the ROI letterboxed to 224×224 in [0, 1] (border replicate), the presence
/// flag must be > the threshold, then 21 landmarks with the letterbox removed, projected through
/// the ROI, and 21 world landmarks rotated by it.
///
/// The crop keeps its aspect ratio as the legacy graphs' does: a hand ROI is square, but its
/// sides in pixels (normalized size × image size, in float32) can differ in their last bit; the
/// legacy graphs then crop a square of the longer side, where the Tasks graph stretches the crop
/// by that bit.
///
/// Holds the interpreter's tensor memory: one model serves one caller at a time (the graphs
/// that own one are used by one thread at a time).
package struct HandLandmarkModel {
    /// One hand the model found in a ROI.
    package struct Output {
        /// 21 landmarks, normalized to the image; z normalized like x, wrist ≈ 0.
        package var landmarks: [RawLandmark]
        /// 21 world landmarks, metres, origin at the hand's approximate centre, rotated by the ROI.
        package var worldLandmarks: [RawWorldLandmark]
        /// The model's handedness score in [0, 1] (see ``HandednessConvention``).
        package var handednessScore: Float
    }

    package static let inputSize = 224

    private let interpreter: Interpreter
    private let presenceGate: PresenceGate

    /// - Parameters:
    ///   - interpreter: `hand_landmark_full/lite.tflite`: input `[1, 224, 224, 3]` in [0, 1];
    ///     outputs landmarks `[1, 63]` (pixels of the crop), presence `[1, 1]`, handedness
    ///     `[1, 1]` (both already sigmoid), world landmarks `[1, 63]` (metres).
    ///   - presenceThreshold: the presence flag must be greater.
    /// - Throws: `ModelShapeError` when the model has other tensor shapes.
    package init(interpreter: Interpreter, presenceThreshold: Float) throws {
        try ModelShapeError.requireShapes(
            of: interpreter, inputs: [[1, 224, 224, 3]], outputs: [[1, 63], [1, 1], [1, 1], [1, 63]],
            role: "hand landmark model")
        self.interpreter = interpreter
        self.presenceGate = PresenceGate(threshold: presenceThreshold)
    }

    /// Runs the model on one ROI. Returns nil when the presence gate fails.
    package func hand(in image: RGBImage, roi: NormalizedRect) throws -> Output? {
        let transform = try interpreter.invoke(onCropOf: image, roi: roi, side: Self.inputSize, keepAspectRatio: true)

        let present = try interpreter.withOutputBuffer(at: 1) { try presenceGate.passes(flagTensor: $0) }
        guard present else { return nil }

        let cropLandmarks = transform.padding.removing(
            from: try interpreter.withOutputBuffer(at: 0) { try LandmarkTensorLayout.hand.decodeLandmarks($0) })
        let handednessScore = try interpreter.withOutputBuffer(at: 2) { scores in
            guard scores.count == 1 else {
                throw PipelineInputError.tensorSizeMismatch(tensor: "handedness", expected: 1, actual: scores.count)
            }
            return scores[0]
        }
        let world = try interpreter.withOutputBuffer(at: 3) { try LandmarkTensorLayout.hand.decodeWorldLandmarks($0) }
        return Output(
            landmarks: LandmarkProjection.project(cropLandmarks, through: roi),
            worldLandmarks: LandmarkProjection.rotate(world, by: roi.rotation),
            handednessScore: handednessScore)
    }
}
