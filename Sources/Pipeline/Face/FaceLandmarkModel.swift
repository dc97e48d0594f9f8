import ImageIO
import Inference

/// The face landmark step shared by the face mesh and holistic graphs (docs/PIPELINE.md, "Face
/// landmark model"): the ROI stretched to 192×192 in [0, 1] (border replicate), the face flag
/// logit through a sigmoid must be > the presence threshold, then 468 landmarks (x, y in crop
/// pixels / 192, z / 192), or with the refined model 478 (``FaceLandmarkRefinement``), projected
/// through the ROI.
///
/// Holds the interpreter's tensor memory: one model serves one caller at a time (the graphs
/// that own one are used by one thread at a time).
package struct FaceLandmarkModel {
    /// Which face landmark model runs, told apart by its outputs.
    package enum Kind: Sendable, Equatable {
        /// `face_landmark.tflite`: 468 landmarks.
        case plain
        /// `face_landmark_with_attention.tflite`: 468 mesh landmarks refined by lips, eyes and
        /// irises into 478.
        case refined

        /// The model's output shapes, in its output order.
        var outputShapes: [[Int]] {
            switch self {
            case .plain: return [[1, 1, 1, 1404], [1, 1, 1, 1]]
            case .refined:
                return [[1, 1, 1, 1404]] + FaceLandmarkRefinement.pointCounts.map { [1, 1, 1, 2 * $0] } + [[1, 1, 1, 1]]
            }
        }

        /// The face flag's output index.
        var flagOutput: Int { outputShapes.count - 1 }
    }

    package static let inputSize = 192

    package let kind: Kind
    private let interpreter: Interpreter
    private let presenceGate: PresenceGate

    /// - Parameters:
    ///   - interpreter: `face_landmark.tflite`: input `[1, 192, 192, 3]` in [0, 1]; outputs
    ///     landmarks `[1, 1, 1, 1404]` (pixels of the crop) and the face flag `[1, 1, 1, 1]`
    ///     (a logit). Or `face_landmark_with_attention.tflite`: the same input; outputs the mesh
    ///     `[1, 1, 1, 1404]`, lips `[1, 1, 1, 160]`, the eyes `[1, 1, 1, 142]` each, the irises
    ///     `[1, 1, 1, 10]` each (x, y in crop pixels) and the face flag `[1, 1, 1, 1]`.
    ///   - presenceThreshold: legacy `min_tracking_confidence`: the sigmoid of the face flag
    ///     must be greater.
    /// - Throws: `ModelShapeError` when the model has other tensor shapes.
    package init(interpreter: Interpreter, presenceThreshold: Float) throws {
        let kind: Kind = interpreter.outputs.count == Kind.refined.outputShapes.count ? .refined : .plain
        try ModelShapeError.requireShapes(
            of: interpreter, inputs: [[1, 192, 192, 3]], outputs: kind.outputShapes,
            role: kind == .refined ? "refined face landmark model" : "face landmark model")
        self.kind = kind
        self.interpreter = interpreter
        self.presenceGate = PresenceGate(threshold: presenceThreshold)
    }

    /// Runs the model on one ROI (stretched to the model input).
    /// - Returns: the 468 or 478 landmarks, normalized to the image, or nil when the presence
    ///   gate fails.
    package func landmarks(in image: RGBImage, roi: NormalizedRect) throws -> [RawLandmark]? {
        _ = try interpreter.invoke(onCropOf: image, roi: roi, side: Self.inputSize, keepAspectRatio: false)

        let present = try interpreter.withOutputBuffer(at: kind.flagOutput) { flag in
            guard flag.count == 1 else {
                throw PipelineInputError.tensorSizeMismatch(tensor: "face flag", expected: 1, actual: flag.count)
            }
            return presenceGate.passes(sigmoid(flag[0]))
        }
        guard present else { return nil }
        var cropLandmarks = try interpreter.withOutputBuffer(at: 0) { try LandmarkTensorLayout.face.decodeLandmarks($0) }
        if kind == .refined {
            let sets = try FaceLandmarkRefinement.pointCounts.indices.map { set in
                try interpreter.withOutputBuffer(at: 1 + set) { Self.decodePoints($0) }
            }
            cropLandmarks = try FaceLandmarkRefinement.refine(mesh: cropLandmarks, sets: sets)
        }
        return LandmarkProjection.project(cropLandmarks, through: roi)
    }

    /// A refinement set's (x, y) pairs in crop pixels, normalized to the crop (z 0), as
    /// MediaPipe's `TensorsToLandmarksCalculator` decodes a two-value layout.
    private static func decodePoints(_ values: UnsafeBufferPointer<Float>) -> [RawLandmark] {
        let side = Float(inputSize)
        return (0..<values.count / 2).map { RawLandmark(x: values[2 * $0] / side, y: values[2 * $0 + 1] / side, z: 0) }
    }
}
