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
/// 4. **Landmark model** per ROI (``FaceLandmarkModel``), the presence threshold
///    `minPresenceConfidence`.
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

    package let configuration: Configuration
    private let detector: SingleShotDetector
    private let landmarkModel: FaceLandmarkModel

    /// Next-frame ROIs from the previous frame's faces, with their track ids (stream mode only).
    private var trackedROIs: [TrackedRect] = []
    private var trackIds = TrackIdSource()
    /// How many times the face detector ran (for tests and profiling).
    package private(set) var detectorRuns = 0

    /// - Parameters:
    ///   - detector: `face_detection_short_range.tflite`: input `[1, 128, 128, 3]` in [−1, 1];
    ///     outputs `[1, 896, 16]` box/keypoint regressions and `[1, 896, 1]` score logits.
    ///   - landmarkModel: `face_landmark.tflite` or `face_landmark_with_attention.tflite`
    ///     (``FaceLandmarkModel/init(interpreter:presenceThreshold:)``).
    /// - Throws: `ModelShapeError` when a model has other tensor shapes.
    package init(detector: Interpreter, landmarkModel: Interpreter, configuration: Configuration) throws {
        try ModelShapeError.requireShapes(
            of: detector, inputs: [[1, 128, 128, 3]], outputs: [[1, 896, 16], [1, 896, 1]], role: "face detector")
        self.detector = SingleShotDetector(
            interpreter: detector, inputSize: Self.detectorInputSize, valueRange: (-1, 1),
            decoder: DetectionDecoder.faceDetector(minScoreThreshold: configuration.minDetectionConfidence),
            suppression: .faceDetector)
        self.landmarkModel = try FaceLandmarkModel(
            interpreter: landmarkModel, presenceThreshold: configuration.minPresenceConfidence)
        self.configuration = configuration
    }

    /// Which face landmark model the graph runs.
    package var landmarkModelKind: FaceLandmarkModel.Kind { landmarkModel.kind }

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
            guard let landmarks = try landmarkModel.landmarks(in: image, roi: roi.rect) else { continue }
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
}
