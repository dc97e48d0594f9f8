import ImageIO
import Inference

/// One frame's work of MediaPipe's legacy holistic graph (`holistic_landmark_cpu`, model
/// complexity 1; docs/PIPELINE.md, "Holistic"): the body, then the face and both hands found
/// from the body; with `numPoses` > 1, the same for every person (beyond MediaPipe).
///
/// 1. **Pose**: ``PoseGraph`` in its legacy flavour (one pose: detector only when last frame
///    gave no pose ROI; in stream mode the legacy smoothing; several: the pose graph's
///    multi-person tracking, each track smoothed on its own); each person's segmentation mask
///    when asked for (not smoothed over time: docs/PIPELINE.md, "Segmentation mask").
/// 2. **Face**: the region around pose landmarks 0–10 (``HolisticFaceRegion``), the short-range
///    face detector inside it, the first detection's face ROI (with several people, the first
///    whose box holds the pose's nose: where two heads are close, the region can hold
///    another person's face, found first); ``RoiTracking/holisticFace``
///    keeps last frame's face ROI while it still fits; the face landmark model
///    (``FaceLandmarkModel``, plain or refined).
/// 3. **Hands**, each side the same way: when the wrist is visible, the region around the
///    wrist, pinky and index landmarks (``HolisticHandRegion``), narrowed by the hand-recrop
///    model (``HandRecropModel``); ``RoiTracking/holisticHand`` keeps last frame's hand ROI
///    while it still fits; the hand landmark model (``HandLandmarkModel``).
///
/// The face and hands are tracked from frame to frame in every mode, as MediaPipe's graph
/// does whenever it sees consecutive frames (its static mode only stops the pose from being
/// tracked and smoothed): call ``reset()`` between unrelated images. Each person's face and
/// hands are tracked from that person's own last frame (by ROI track id, docs/PIPELINE.md,
/// "Per-person state"), never from another's; each person reports their person id.
/// Nothing of the face or the hands is smoothed.
///
/// Holds mutable tracking state and the interpreters' tensor memory: one graph serves one
/// caller at a time.
package final class HolisticGraph {
    /// What the graph needs from the task options.
    package struct Configuration {
        /// The most people per frame. 1 is MediaPipe's graph; more is the pose graph's
        /// multi-person tracking with each person smoothed on their own track
        /// (docs/PIPELINE.md, "Holistic, several people").
        package var numPoses: Int
        /// Legacy `min_detection_confidence`: the pose detector's score threshold.
        package var minDetectionConfidence: Float
        /// Legacy `min_tracking_confidence`: the pose landmark model's presence threshold.
        package var minTrackingConfidence: Float
        /// The face detector's score threshold (a constant 0.5 in the legacy graph).
        package var minFaceDetectionConfidence: Float
        /// The face landmark model's presence threshold (a constant 0.5 in the legacy graph).
        package var minFacePresenceConfidence: Float
        /// The hand landmark model's presence threshold (a constant 0.5 in the legacy graph).
        package var minHandPresenceConfidence: Float
        /// Video and live-stream modes: the pose is tracked (the detector skipped while it is
        /// found) and smoothed; legacy `static_image_mode` off.
        package var streamMode: Bool
        /// Each person's segmentation mask (legacy `enable_segmentation`).
        package var outputSegmentationMasks: Bool

        package init(
            numPoses: Int = 1, minDetectionConfidence: Float, minTrackingConfidence: Float,
            minFaceDetectionConfidence: Float = 0.5, minFacePresenceConfidence: Float = 0.5,
            minHandPresenceConfidence: Float = 0.5, streamMode: Bool, outputSegmentationMasks: Bool = false
        ) {
            self.numPoses = numPoses
            self.minDetectionConfidence = minDetectionConfidence
            self.minTrackingConfidence = minTrackingConfidence
            self.minFaceDetectionConfidence = minFaceDetectionConfidence
            self.minFacePresenceConfidence = minFacePresenceConfidence
            self.minHandPresenceConfidence = minHandPresenceConfidence
            self.streamMode = streamMode
            self.outputSegmentationMasks = outputSegmentationMasks
        }
    }

    /// The models the graph runs.
    package struct Models {
        /// `pose_detection.tflite`.
        package var poseDetector: Interpreter
        /// `pose_landmark_full.tflite`.
        package var poseLandmarks: Interpreter
        /// `face_detection_short_range.tflite`.
        package var faceDetector: Interpreter
        /// `face_landmark.tflite`, or `face_landmark_with_attention.tflite` for 478 refined landmarks.
        package var faceLandmarks: Interpreter
        /// `hand_recrop.tflite`.
        package var handRecrop: Interpreter
        /// `hand_landmark_full.tflite`.
        package var handLandmarks: Interpreter

        package init(
            poseDetector: Interpreter, poseLandmarks: Interpreter, faceDetector: Interpreter,
            faceLandmarks: Interpreter, handRecrop: Interpreter, handLandmarks: Interpreter
        ) {
            self.poseDetector = poseDetector
            self.poseLandmarks = poseLandmarks
            self.faceDetector = faceDetector
            self.faceLandmarks = faceLandmarks
            self.handRecrop = handRecrop
            self.handLandmarks = handLandmarks
        }
    }

    /// A part (face or hand) found on a frame: its landmarks and the ROI the landmark model saw.
    package struct Part<Landmarks> {
        package var landmarks: Landmarks
        /// Normalized to the image.
        package var roi: NormalizedRect
    }

    /// One person, in the coordinates of the upright image.
    package struct Person {
        /// The body: landmarks, world landmarks, next-frame ROI, and the segmentation mask when
        /// asked for.
        package var pose: PoseGraph.Pose
        /// 468 (plain model) or 478 (refined model) face landmarks, normalized to the image;
        /// nil when no face was found.
        package var face: Part<[RawLandmark]>?
        /// The person's left hand, nil when not found.
        package var leftHand: Part<HandLandmarkModel.Output>?
        /// The person's right hand, nil when not found.
        package var rightHand: Part<HandLandmarkModel.Output>?
    }

    /// The ROIs a frame built on the way to its parts (for tests and profiling): nil where the
    /// graph built none.
    package struct IntermediateROIs {
        /// The region searched for a face (``HolisticFaceRegion/region(poseLandmarks:imageWidth:imageHeight:)``).
        package var faceRegion: NormalizedRect?
        /// The face ROI from the face detection chosen in that region.
        package var faceRecrop: NormalizedRect?
        /// Each hand's region around the pose's wrist, pinky and index.
        package var handRegions: [HolisticHandRegion.Side: NormalizedRect] = [:]
        /// Each hand's ROI from the hand-recrop model.
        package var handRecrops: [HolisticHandRegion.Side: NormalizedRect] = [:]
    }

    package static let faceDetectorInputSize = 128

    package let configuration: Configuration
    private let poseGraph: PoseGraph
    private let faceDetector: SingleShotDetector
    private let faceModel: FaceLandmarkModel
    private let handRecrop: HandRecropModel
    private let handModel: HandLandmarkModel

    /// A person's face and hands on the last frame, with the ROIs built from their landmarks,
    /// for ``RoiTracking``; nil where last frame had none.
    private struct PartHistory {
        var face: (landmarks: [RawLandmark], rect: NormalizedRect)?
        var hands: [HolisticHandRegion.Side: (landmarks: [RawLandmark], rect: NormalizedRect)] = [:]
    }

    /// Last frame's parts of each person, by ROI track id, not person id (docs/PIPELINE.md,
    /// "Per-person state"; by position without track ids: image mode, or the legacy static mode
    /// of one person).
    private var histories: [Int: PartHistory] = [:]
    /// The last frame's intermediate ROIs, one per person.
    package private(set) var intermediate: [IntermediateROIs] = []

    /// - Throws: `ModelShapeError` when a model has other tensor shapes than the graph's.
    package init(models: Models, configuration: Configuration) throws {
        poseGraph = try PoseGraph(
            detector: models.poseDetector, landmarkModel: models.poseLandmarks,
            configuration: PoseGraph.Configuration(
                numPoses: configuration.numPoses, minDetectionConfidence: configuration.minDetectionConfidence,
                minPresenceConfidence: configuration.minTrackingConfidence,
                minTrackingConfidence: configuration.minTrackingConfidence,
                outputSegmentationMasks: configuration.outputSegmentationMasks,
                streamMode: configuration.streamMode, smoothsEachTrack: configuration.streamMode && configuration.numPoses > 1,
                flavour: .legacy))
        try ModelShapeError.requireShapes(
            of: models.faceDetector, inputs: [[1, 128, 128, 3]], outputs: [[1, 896, 16], [1, 896, 1]],
            role: "face detector")
        faceDetector = SingleShotDetector(
            interpreter: models.faceDetector, inputSize: Self.faceDetectorInputSize, valueRange: (-1, 1),
            decoder: DetectionDecoder.faceDetector(minScoreThreshold: configuration.minFaceDetectionConfidence),
            suppression: .faceDetector)
        faceModel = try FaceLandmarkModel(
            interpreter: models.faceLandmarks, presenceThreshold: configuration.minFacePresenceConfidence)
        handRecrop = try HandRecropModel(interpreter: models.handRecrop)
        handModel = try HandLandmarkModel(
            interpreter: models.handLandmarks, presenceThreshold: configuration.minHandPresenceConfidence)
        self.configuration = configuration
    }

    /// Which face landmark model the graph runs.
    package var faceModelKind: FaceLandmarkModel.Kind { faceModel.kind }

    /// Forgets everything tracked and smoothed.
    package func reset() {
        poseGraph.reset()
        histories = [:]
    }

    /// Processes one upright RGB image.
    /// - Parameter timestampMicroseconds: the frame time (stream mode smoothing).
    /// - Returns: at most `numPoses` people, in the pose graph's order, each with the face and
    ///   hands found from their own body.
    package func process(_ image: RGBImage, timestampMicroseconds: Int64) throws -> [Person] {
        let poses = try poseGraph.process(image, timestampMicroseconds: timestampMicroseconds)
        var people: [Person] = []
        var newHistories: [Int: PartHistory] = [:]
        intermediate = []
        for (index, pose) in poses.enumerated() {
            let key = pose.trackId ?? index
            var history = histories[key] ?? PartHistory()
            var rois = IntermediateROIs()
            var person = Person(pose: pose)
            person.face = try face(in: image, poseLandmarks: pose.landmarks, history: &history, rois: &rois)
            person.leftHand = try hand(.left, in: image, poseLandmarks: pose.landmarks, history: &history, rois: &rois)
            person.rightHand = try hand(.right, in: image, poseLandmarks: pose.landmarks, history: &history, rois: &rois)
            people.append(person)
            intermediate.append(rois)
            newHistories[key] = history
        }
        histories = newHistories
        return people
    }

    private func face(
        in image: RGBImage, poseLandmarks: [RawLandmark], history: inout PartHistory, rois: inout IntermediateROIs
    ) throws -> Part<[RawLandmark]>? {
        let width = image.width, height = image.height
        let region = try HolisticFaceRegion.region(poseLandmarks: poseLandmarks, imageWidth: width, imageHeight: height)
        let (detections, transform) = try faceDetector.detect(
            in: image, roi: RotatedPixelRect(region, imageWidth: width, imageHeight: height))
        let projected = detections.map { DetectionProjection.project($0, through: transform.matrix) }
        let chosen = configuration.numPoses == 1
            ? projected.first
            : projected.first { HolisticFaceRegion.contains(poseLandmarks[0], in: $0.box) }
        let recrop = try chosen.map { detection in
            try HolisticFaceRegion.roi(fromDetection: detection, imageWidth: width, imageHeight: height)
        }
        rois.faceRegion = region
        rois.faceRecrop = recrop
        let found = try RoiTracking.holisticFace
            .roi(recrop: recrop, previous: history.face, imageWidth: width, imageHeight: height)
            .flatMap { roi in try faceModel.landmarks(in: image, roi: roi).map { Part(landmarks: $0, roi: roi) } }
        history.face = try found.map {
            ($0.landmarks, try FaceTrackingRect.nextFrameROI(landmarks: $0.landmarks, imageWidth: width, imageHeight: height))
        }
        return found
    }

    private func hand(
        _ side: HolisticHandRegion.Side, in image: RGBImage, poseLandmarks: [RawLandmark], history: inout PartHistory,
        rois: inout IntermediateROIs
    ) throws -> Part<HandLandmarkModel.Output>? {
        let width = image.width, height = image.height
        let region = try HolisticHandRegion.region(
            poseLandmarks: poseLandmarks, side: side, imageWidth: width, imageHeight: height)
        let recrop = try region.map { try handRecrop.roi(in: image, region: $0) }
        rois.handRegions[side] = region
        rois.handRecrops[side] = recrop
        let found = try RoiTracking.holisticHand
            .roi(recrop: recrop, previous: history.hands[side], imageWidth: width, imageHeight: height)
            .flatMap { roi in try handModel.hand(in: image, roi: roi).map { Part(landmarks: $0, roi: roi) } }
        history.hands[side] = try found.map {
            ($0.landmarks.landmarks,
             try HandTrackingRect.nextFrameROI(landmarks: $0.landmarks.landmarks, imageWidth: width, imageHeight: height))
        }
        return found
    }
}
