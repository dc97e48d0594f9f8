import ImageIO
import Inference

/// One frame's work of MediaPipe's legacy Face Mesh graph (`face_landmark_front_cpu`,
/// docs/PIPELINE.md, "Face landmarker"): the short-range face detector when tracking does not
/// cover `numFaces` faces, one landmark-model run per face ROI, the presence gate, projection,
/// track ids and next-frame ROIs.
///
/// Steps, with the graph's constants:
/// 1. **Detector** (stream mode: only while fewer than `numFaces` faces are tracked): the whole
///    image letterboxed to 128×128 in [−1, 1] (border zero), 896 SSD anchors, sigmoid scores
///    clipped at ±100, score ≥ `minDetectionConfidence`, weighted NMS at IoU 0.3, projected
///    through the letterbox matrix to the image; the first `numFaces` detections in descending score.
/// 2. **ROI from a detection**: the face box, rotation from the right eye (keypoint 0) to the
///    left eye (keypoint 1) with target 0°, squared (longer side) and scaled by 1.5.
/// 3. **Association**: the detections' ROIs, then the previous frame's ROIs from landmarks;
///    of two with axis-aligned IoU > 0.5 (`associationThreshold`) the later one stays (a
///    tracked face keeps its ROI).
/// 4. **Landmark model** per ROI: the ROI stretched to 192×192 in [0, 1] (border replicate);
///    the face flag logit through a sigmoid must be > `minPresenceConfidence`; 468 landmarks
///    (x, y in crop pixels / 192, z / 192), or with the refined model 478
///    (``FaceLandmarkRefinement``), projected through the ROI.
/// 5. **Next-frame ROI** (stream mode) from the landmarks' bounding box, rotation from
///    landmark 33 to 263, squared and scaled by 1.5.
///
/// There is no smoothing: the face mesh graph smooths nothing.
///
/// Holds mutable tracking state and the interpreters' tensor memory: one graph serves one
/// caller at a time (the task runner serialises calls).
package final class FaceGraph {
    /// What the graph needs from the task options.
    package struct Configuration {
        package var numFaces: Int
        /// Legacy `min_detection_confidence`: the detector's score threshold.
        package var minDetectionConfidence: Float
        /// Legacy `min_tracking_confidence`: the face flag threshold of the landmark model.
        package var minPresenceConfidence: Float
        /// The axis-aligned IoU above which a tracked ROI replaces a detection's (the legacy
        /// graph's constant 0.5).
        package var associationThreshold: Float
        /// Video and live-stream modes: track faces from frame to frame.
        package var streamMode: Bool

        package init(
            numFaces: Int, minDetectionConfidence: Float, minPresenceConfidence: Float,
            associationThreshold: Float = 0.5, streamMode: Bool
        ) {
            self.numFaces = numFaces
            self.minDetectionConfidence = minDetectionConfidence
            self.minPresenceConfidence = minPresenceConfidence
            self.associationThreshold = associationThreshold
            self.streamMode = streamMode
        }
    }

    /// Which face landmark model the graph runs, told apart by its outputs.
    package enum LandmarkModelKind: Sendable, Equatable {
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

    /// One face, in the coordinates of the upright image.
    package struct Face {
        /// 468 (plain model) or 478 (refined model) landmarks, normalized to the image; z in units of about the image width
        /// (smaller = closer), centred near the face's centre of mass.
        package var landmarks: [RawLandmark]
        /// The rotated square ROI the landmark model saw (normalized to the image).
        package var roi: NormalizedRect
        /// Stream mode: the id of the track this face belongs to (docs/PIPELINE.md, "Track ids");
        /// nil in image mode.
        package var trackId: Int?
    }

    package static let detectorInputSize = 128
    package static let landmarkInputSize = 192

    package let configuration: Configuration
    package let landmarkModelKind: LandmarkModelKind
    private let detector: WholeImageDetector
    private let landmarkModel: Interpreter
    private let presenceGate: PresenceGate

    /// Next-frame ROIs from the previous frame's faces, with their track ids (stream mode only).
    private var trackedROIs: [TrackedRect] = []
    private var trackIds = TrackIdSource()
    /// How many times the face detector ran (for tests and profiling).
    package private(set) var detectorRuns = 0

    /// - Parameters:
    ///   - detector: `face_detection_short_range.tflite`: input `[1, 128, 128, 3]` in [−1, 1];
    ///     outputs `[1, 896, 16]` box/keypoint regressions and `[1, 896, 1]` score logits.
    ///   - landmarkModel: `face_landmark.tflite`: input `[1, 192, 192, 3]` in [0, 1]; outputs
    ///     landmarks `[1, 1, 1, 1404]` (pixels of the crop) and the face flag `[1, 1, 1, 1]`
    ///     (a logit). Or `face_landmark_with_attention.tflite`: the same input; outputs the mesh
    ///     `[1, 1, 1, 1404]`, lips `[1, 1, 1, 160]`, the eyes `[1, 1, 1, 142]` each, the irises
    ///     `[1, 1, 1, 10]` each (x, y in crop pixels) and the face flag `[1, 1, 1, 1]`.
    /// - Throws: `ModelShapeError` when a model has other tensor shapes.
    package init(detector: Interpreter, landmarkModel: Interpreter, configuration: Configuration) throws {
        try ModelShapeError.requireShapes(
            of: detector, inputs: [[1, 128, 128, 3]], outputs: [[1, 896, 16], [1, 896, 1]], role: "face detector")
        let kind: LandmarkModelKind = landmarkModel.outputs.count == LandmarkModelKind.refined.outputShapes.count
            ? .refined : .plain
        try ModelShapeError.requireShapes(
            of: landmarkModel, inputs: [[1, 192, 192, 3]], outputs: kind.outputShapes,
            role: kind == .refined ? "refined face landmark model" : "face landmark model")
        self.landmarkModelKind = kind
        self.detector = WholeImageDetector(
            interpreter: detector, inputSize: Self.detectorInputSize, valueRange: (-1, 1),
            decoder: DetectionDecoder.faceDetector(minScoreThreshold: configuration.minDetectionConfidence),
            suppression: .faceDetector)
        self.landmarkModel = landmarkModel
        self.configuration = configuration
        self.presenceGate = PresenceGate(threshold: configuration.minPresenceConfidence)
    }

    /// Forgets the tracked faces; the faces found after it get new track ids.
    package func reset() {
        trackedROIs = []
    }

    /// Processes one upright RGB image; returns at most `numFaces` faces: newly detected faces
    /// first (in descending detection score), then the tracked ones (in their previous order),
    /// the order of MediaPipe's graph.
    package func process(_ image: RGBImage) throws -> [Face] {
        let tracked = configuration.streamMode ? trackedROIs : []
        var detected: [NormalizedRect] = []
        if tracked.count < configuration.numFaces {
            detected = Array(try detectROIs(in: image).prefix(configuration.numFaces))
        }
        let rois = RectAssociation.laterWins(
            detected: detected, tracked: tracked, iouThreshold: configuration.associationThreshold)

        var faces: [Face] = []
        for roi in rois {
            guard let landmarks = try landmarks(in: image, roi: roi.rect) else { continue }
            faces.append(Face(landmarks: landmarks, roi: roi.rect, trackId: roi.trackId))
        }

        if configuration.streamMode {
            for index in faces.indices where faces[index].trackId == nil {
                faces[index].trackId = trackIds.newId()
            }
            trackedROIs = try faces.map {
                TrackedRect(
                    rect: try FaceTrackingRect.nextFrameROI(
                        landmarks: $0.landmarks, imageWidth: image.width, imageHeight: image.height),
                    trackId: $0.trackId)
            }
        }
        return faces
    }

    /// Runs the face detector on the whole (letterboxed) image and returns one face ROI per
    /// detection surviving NMS, in descending score.
    private func detectROIs(in image: RGBImage) throws -> [NormalizedRect] {
        detectorRuns += 1
        let (detections, transform) = try detector.detect(in: image)
        return try detections.map { detection in
            let face = DetectionProjection.project(detection, through: transform.matrix)
            let rect = try DetectionToRect.faceDetector.rect(for: face, imageWidth: image.width, imageHeight: image.height)
            return RectTransformation.face.apply(to: rect, imageWidth: image.width, imageHeight: image.height)
        }
    }

    /// Runs the landmark model on one ROI (stretched to the model input) and returns the
    /// landmarks projected to the image, or nil when the presence gate fails.
    private func landmarks(in image: RGBImage, roi: NormalizedRect) throws -> [RawLandmark]? {
        let options = ImageToTensor.Options(
            outputWidth: Self.landmarkInputSize, outputHeight: Self.landmarkInputSize,
            rangeMin: 0, rangeMax: 1, keepAspectRatio: false, borderMode: .replicate)
        let pixelROI = RotatedPixelRect(
            normalizedXCenter: roi.xCenter, yCenter: roi.yCenter, width: roi.width, height: roi.height,
            rotation: roi.rotation, imageWidth: image.width, imageHeight: image.height)
        _ = try landmarkModel.withInputBuffer(at: 0) { buffer in
            try ImageToTensor.convert(image, roi: pixelROI, options: options, into: buffer)
        }
        landmarkModel.invoke()

        let present = try landmarkModel.withOutputBuffer(at: landmarkModelKind.flagOutput) { flag in
            guard flag.count == 1 else {
                throw PipelineInputError.tensorSizeMismatch(tensor: "face flag", expected: 1, actual: flag.count)
            }
            return presenceGate.passes(sigmoid(flag[0]))
        }
        guard present else { return nil }
        var cropLandmarks = try landmarkModel.withOutputBuffer(at: 0) { try LandmarkTensorLayout.face.decodeLandmarks($0) }
        if landmarkModelKind == .refined {
            let sets = try FaceLandmarkRefinement.pointCounts.indices.map { set in
                try landmarkModel.withOutputBuffer(at: 1 + set) { Self.decodePoints($0) }
            }
            cropLandmarks = try FaceLandmarkRefinement.refine(mesh: cropLandmarks, sets: sets)
        }
        return LandmarkProjection.project(cropLandmarks, through: roi)
    }

    /// A refinement set's (x, y) pairs in crop pixels, normalized to the crop (z 0), as
    /// MediaPipe's `TensorsToLandmarksCalculator` decodes a two-value layout.
    private static func decodePoints(_ values: UnsafeBufferPointer<Float>) -> [RawLandmark] {
        let side = Float(landmarkInputSize)
        return (0..<values.count / 2).map { RawLandmark(x: values[2 * $0] / side, y: values[2 * $0 + 1] / side, z: 0) }
    }
}
