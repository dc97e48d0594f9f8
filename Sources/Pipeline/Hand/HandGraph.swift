import ImageIO
import Inference

/// One frame's work of the Tasks-flavour hand landmarker (docs/PIPELINE.md, "Hand landmarker"):
/// palm detector when tracking does not cover `numHands` hands, one landmark-model run per hand
/// ROI, presence gate, projection, world landmarks, handedness, duplicate removal, track ids and
/// next-frame ROIs.
///
/// Three deliberate choices:
/// - **Palm ROI rotation target 90°** (π/2), as the legacy graph uses. The Tasks hand detector
///   passes 90 to a field that expects radians (90 rad ≡ 116.62°, docs/PIPELINE.md,
///   "Detection to rotated rect"); that quirk tilts every palm-derived crop by +26.62° and is
///   deliberately not copied.
/// - **Landmark crop letterboxed as in the legacy graph** (``HandLandmarkModel``): the crop
///   keeps its aspect ratio and the letterbox is removed from the landmarks (docs/PIPELINE.md,
///   "Hand landmark model").
/// - **Handedness in the Tasks convention** (index 0 = "Right", 1 = "Left": the subject's
///   actual hand in a non-mirrored image), the opposite of the legacy labels for the same
///   model score.
///
/// There is no smoothing: neither MediaPipe flavour smooths hand landmarks (docs/PIPELINE.md,
/// "Hand landmarker").
///
/// Holds mutable tracking state and the interpreters' tensor memory: one graph serves one
/// caller at a time (the task runner serialises calls).
package final class HandGraph {
    /// What the graph needs from the task options.
    package struct Configuration {
        package var numHands: Int
        package var minDetectionConfidence: Float
        package var minPresenceConfidence: Float
        package var minTrackingConfidence: Float
        /// Video and live-stream modes: track hands from frame to frame.
        package var streamMode: Bool

        package init(
            numHands: Int, minDetectionConfidence: Float, minPresenceConfidence: Float,
            minTrackingConfidence: Float, streamMode: Bool
        ) {
            self.numHands = numHands
            self.minDetectionConfidence = minDetectionConfidence
            self.minPresenceConfidence = minPresenceConfidence
            self.minTrackingConfidence = minTrackingConfidence
            self.streamMode = streamMode
        }
    }

    /// One detected hand, in the coordinates of the upright image.
    package struct Hand {
        /// 21 landmarks, normalized to the image; z normalized like x, wrist ≈ 0.
        package var landmarks: [RawLandmark]
        /// 21 world landmarks, metres, origin at the hand's approximate centre, rotated by the ROI.
        package var worldLandmarks: [RawWorldLandmark]
        /// Tasks convention: index 0 "Right", index 1 "Left".
        package var handedness: HandednessCategory
        /// The rotated square ROI the landmark model saw (normalized to the image).
        package var roi: NormalizedRect
        /// Stream mode: the id of the track this hand belongs to (docs/PIPELINE.md, "Track ids");
        /// nil in image mode.
        package var trackId: Int?
    }

    package static let detectorInputSize = 192
    package static let handedness = HandednessConvention.tasks

    package let configuration: Configuration
    private let detector: SingleShotDetector
    private let landmarkModel: HandLandmarkModel

    /// Next-frame ROIs from the previous frame's hands, with their track ids (stream mode only).
    private var trackedROIs: [TrackedRect] = []
    private var trackIds = TrackIdSource()
    /// How many times the palm detector ran (for tests and profiling).
    package private(set) var detectorRuns = 0

    /// - Parameters:
    ///   - detector: `palm_detection_full/lite.tflite`: input `[1, 192, 192, 3]` in [0, 1];
    ///     outputs `[1, 2016, 18]` box/keypoint regressions and `[1, 2016, 1]` score logits.
    ///   - landmarkModel: `hand_landmark_full/lite.tflite`
    ///     (``HandLandmarkModel/init(interpreter:presenceThreshold:)``).
    /// - Throws: `ModelShapeError` when a model has other tensor shapes.
    package init(detector: Interpreter, landmarkModel: Interpreter, configuration: Configuration) throws {
        try ModelShapeError.requireShapes(
            of: detector, inputs: [[1, 192, 192, 3]], outputs: [[1, 2016, 18], [1, 2016, 1]], role: "palm detector")
        self.detector = SingleShotDetector(
            interpreter: detector, inputSize: Self.detectorInputSize, valueRange: (0, 1),
            decoder: DetectionDecoder.palmDetector(minScoreThreshold: configuration.minDetectionConfidence),
            suppression: .palmDetector)
        self.landmarkModel = try HandLandmarkModel(
            interpreter: landmarkModel, presenceThreshold: configuration.minPresenceConfidence)
        self.configuration = configuration
    }

    /// Forgets the tracked hands; the hands found after it get new track ids.
    package func reset() {
        trackedROIs = []
    }

    /// Processes one upright RGB image; returns at most `numHands` hands, tracked hands first
    /// (in their previous order), then new ones in descending palm score.
    package func process(_ image: RGBImage) throws -> [Hand] {
        let numHands = configuration.numHands
        var rois = configuration.streamMode ? trackedROIs : []
        if rois.count < numHands {
            let detected = Array(try detectROIs(in: image).prefix(numHands))
            rois = configuration.streamMode
                ? RectAssociation.trackedFirst(
                    tracked: rois, new: detected, iouThreshold: configuration.minTrackingConfidence)
                : detected.map { TrackedRect(rect: $0, trackId: nil) }
        }
        rois = Array(rois.prefix(numHands))

        var hands: [Hand] = []
        for roi in rois {
            guard let found = try landmarkModel.hand(in: image, roi: roi.rect) else { continue }
            hands.append(Hand(
                landmarks: found.landmarks, worldLandmarks: found.worldLandmarks,
                handedness: Self.handedness.decode(score: found.handednessScore), roi: roi.rect, trackId: roi.trackId))
        }
        let retained = try HandDeduplication.retainedIndices(
            of: hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
        hands = retained.map { hands[$0] }

        if configuration.streamMode {
            for index in hands.indices where hands[index].trackId == nil {
                hands[index].trackId = trackIds.newId()
            }
            trackedROIs = try hands.map {
                TrackedRect(
                    rect: try HandTrackingRect.nextFrameROI(
                        landmarks: $0.landmarks, imageWidth: image.width, imageHeight: image.height),
                    trackId: $0.trackId)
            }
        }
        return hands
    }

    /// Runs the palm detector on the whole (letterboxed) image and returns one hand ROI per
    /// palm surviving NMS, in descending score: the palm box's centre and size, rotation from
    /// the wrist (keypoint 0) to the middle-finger base (keypoint 2) with target 90°, then
    /// shifted half a box towards the fingers, squared and scaled by 2.6.
    private func detectROIs(in image: RGBImage) throws -> [NormalizedRect] {
        detectorRuns += 1
        let (detections, transform) = try detector.detect(in: image)
        // The letterbox removed as the legacy graph removes it; the Tasks graph projects palms
        // through the warp matrix instead, which can differ in the last bits (docs/PIPELINE.md,
        // "Back to image coordinates").
        return try detections.map { detection in
            let palm = transform.padding.removing(from: detection)
            let rect = try DetectionToRect.palmDetector.rect(for: palm, imageWidth: image.width, imageHeight: image.height)
            return RectTransformation.handFromPalm.apply(to: rect, imageWidth: image.width, imageHeight: image.height)
        }
    }
}
