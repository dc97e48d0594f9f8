#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ImageIO
import Inference

/// One frame's work of the pose landmarker (docs/PIPELINE.md, "Pose landmarker"): detector
/// when tracking does not cover `numPoses` people, one landmark-model run per ROI, presence
/// gate, heatmap refinement, projection, world landmarks, segmentation mask, track ids,
/// smoothing and next-frame ROIs.
///
/// Two flavours (``Flavour``): the Tasks `PoseLandmarker`'s, and the legacy `pose_landmark_cpu`
/// graph's, which MediaPipe's holistic graph runs (docs/PIPELINE.md, "Legacy pose").
///
/// Holds mutable tracking state and the interpreters' tensor memory: one
/// graph serves one caller at a time (the task runner serialises calls).
package final class PoseGraph {
    /// Which MediaPipe pose graph to reproduce.
    package enum Flavour: Sendable, Equatable {
        /// The Tasks `PoseLandmarker`: detector NMS at IoU 0.5, the landmark crop stretched to
        /// the model input, smoothing of the landmarks only, next-frame ROIs from the raw
        /// auxiliary landmarks.
        case tasks
        /// The legacy `pose_landmark_cpu` graph: detector NMS at IoU 0.3, the landmark crop
        /// letterboxed (the letterbox removed from the landmarks), and in stream mode with one
        /// pose the auxiliary landmarks smoothed too, the next-frame ROI built from the smoothed
        /// ones (``LegacyPoseSmoother``). Its presence threshold is the caller's
        /// `min_tracking_confidence`: pass it as `minPresenceConfidence`.
        case legacy
    }

    /// What the graph needs from the task options.
    package struct Configuration {
        package var flavour: Flavour
        package var numPoses: Int
        package var minDetectionConfidence: Float
        package var minPresenceConfidence: Float
        package var minTrackingConfidence: Float
        package var outputSegmentationMasks: Bool
        /// Video and live-stream modes: track and smooth across frames.
        package var streamMode: Bool
        /// Stream mode: smooth every track with its own filters (docs/PIPELINE.md, "Per-track
        /// smoothing") instead of MediaPipe's smoothing of the one pose of `numPoses` 1.
        package var smoothsEachTrack = false

        package init(
            numPoses: Int, minDetectionConfidence: Float, minPresenceConfidence: Float,
            minTrackingConfidence: Float, outputSegmentationMasks: Bool, streamMode: Bool,
            smoothsEachTrack: Bool = false, flavour: Flavour = .tasks
        ) {
            self.flavour = flavour
            self.numPoses = numPoses
            self.minDetectionConfidence = minDetectionConfidence
            self.minPresenceConfidence = minPresenceConfidence
            self.minTrackingConfidence = minTrackingConfidence
            self.outputSegmentationMasks = outputSegmentationMasks
            self.streamMode = streamMode
            self.smoothsEachTrack = smoothsEachTrack
        }
    }

    /// One detected person, in the coordinates of the upright image.
    package struct Pose {
        /// 33 landmarks, normalized to the image.
        package var landmarks: [RawLandmark]
        /// 33 world landmarks, metres, origin between the hips.
        package var worldLandmarks: [RawWorldLandmark]
        /// `[height, width]` of the image, row-major, in [0, 1]; nil unless masks were asked for.
        package var mask: [Float]?
        /// The rotated square ROI the landmark model saw (normalized to the image).
        package var roi: NormalizedRect
        /// The two auxiliary landmarks (body centre and scale point), normalized to the image;
        /// smoothed in the legacy flavour's stream mode.
        package var auxiliaryLandmarks: [RawLandmark]
        /// The next frame's ROI, built from this pose's auxiliary landmarks (docs/PIPELINE.md,
        /// "Pose tracking"), normalized; also the Tasks smoother's object scale.
        package var trackingROI: NormalizedRect
        /// Stream mode: the id of the ROI track this pose continues (docs/PIPELINE.md, "Track
        /// ids"), which keys its smoothing; nil in image mode.
        package var trackId: Int?
        /// Stream mode: the id of the person this pose is (``PersonIdentities``), which the
        /// landmarker reports; nil in image mode.
        package var personId: Int?
    }

    package static let detectorInputSize = 224
    package static let landmarkInputSize = 256
    package static let heatmapSize = 64
    /// The landmark model's segmentation output, by position: read only when masks are asked
    /// for, so a landmarker without masks loads the model not to compute it
    /// (`Interpreter.Options.skippedOutputs`).
    package static let segmentationOutput = 2

    package let configuration: Configuration
    private let detector: SingleShotDetector
    private let landmarkModel: Interpreter

    /// Next-frame ROIs from the previous frame, with their track ids (stream mode only).
    private var trackedROIs: [TrackedRect] = []
    private var trackIds = TrackIdSource()
    /// Who each pose is, from frame to frame (stream mode only).
    private var identities = PersonIdentities()
    /// The smoothing of the one pose of `numPoses` 1 (stream mode, without per-track smoothing).
    private var smoother = PoseSmoother()
    /// Per-track smoothing: the filters of each track found on the previous frame, by track id.
    private var trackSmoothers: [Int: PoseSmoother] = [:]
    /// The legacy flavour's smoothing of the one pose of `numPoses` 1 (stream mode; in image
    /// mode only its auxiliary filter and the landmarks' pixel round trip).
    private var legacySmoother: LegacyPoseSmoother
    /// The legacy flavour's per-track smoothing, by track id.
    private var legacyTrackSmoothers: [Int: LegacyPoseSmoother] = [:]
    /// How many times the detector ran (for tests and profiling).
    package private(set) var detectorRuns = 0

    /// - Parameters:
    ///   - detector: `pose_detection.tflite`: input `[1, 224, 224, 3]` in [-1, 1]; outputs
    ///     `[1, 2254, 12]` box/keypoint regressions and `[1, 2254, 1]` score logits.
    ///   - landmarkModel: `pose_landmark_full.tflite`: input `[1, 256, 256, 3]` in [0, 1];
    ///     outputs landmarks `[1, 195]`, flag `[1, 1]`, segmentation `[1, 256, 256, 1]`,
    ///     heatmap `[1, 64, 64, 39]`, world `[1, 117]`.
    package init(detector: Interpreter, landmarkModel: Interpreter, configuration: Configuration) throws {
        try ModelShapeError.requireShapes(
            of: detector, inputs: [[1, 224, 224, 3]], outputs: [[1, 2254, 12], [1, 2254, 1]], role: "pose detector")
        try ModelShapeError.requireShapes(
            of: landmarkModel, inputs: [[1, 256, 256, 3]],
            outputs: [[1, 195], [1, 1], [1, 256, 256, 1], [1, 64, 64, 39], [1, 117]], role: "pose landmark model")
        self.detector = SingleShotDetector(
            interpreter: detector, inputSize: Self.detectorInputSize, valueRange: (-1, 1),
            decoder: DetectionDecoder.poseDetector(minScoreThreshold: configuration.minDetectionConfidence),
            suppression: configuration.flavour == .legacy ? .poseDetectorLegacy : .poseDetector)
        self.landmarkModel = landmarkModel
        self.configuration = configuration
        legacySmoother = LegacyPoseSmoother(smoothsLandmarks: configuration.streamMode)
    }

    /// Forgets tracking, smoothing and identity state; the tracks and people found after it get
    /// new ids.
    package func reset() {
        trackedROIs = []
        identities.reset()
        smoother.reset()
        trackSmoothers = [:]
        legacySmoother.reset()
        legacyTrackSmoothers = [:]
    }

    /// Processes one upright RGB image.
    /// - Parameter timestampMicroseconds: the frame time (stream mode smoothing).
    package func process(_ image: RGBImage, timestampMicroseconds: Int64) throws -> [Pose] {
        let width = image.width, height = image.height
        let rois = configuration.streamMode
            ? try Self.streamROIs(
                tracked: trackedROIs, numPoses: configuration.numPoses,
                iouThreshold: configuration.minTrackingConfidence, detect: { try detectROIs(in: image) })
            : try detectROIs(in: image).prefix(configuration.numPoses).map { TrackedRect(rect: $0, trackId: nil) }

        var poses: [Pose] = []
        for roi in rois {
            guard var pose = try landmarks(in: image, roi: roi.rect) else { continue }
            if configuration.streamMode {
                pose.trackId = roi.trackId ?? trackIds.newId()
            }
            poses.append(pose)
        }

        if configuration.flavour == .legacy && !configuration.streamMode {
            // The legacy graph's static mode still smooths the auxiliary landmarks of consecutive
            // frames and round-trips the landmarks through pixels (docs/PIPELINE.md, "Legacy pose");
            // several people get the round trip alone.
            if configuration.numPoses == 1 {
                try smoothLegacy(&poses, width: width, height: height, timestampMicroseconds: timestampMicroseconds)
            } else {
                for index in poses.indices {
                    poses[index].landmarks = LandmarksSmoother.pixelRoundTrip(
                        poses[index].landmarks, imageWidth: width, imageHeight: height)
                }
            }
        }
        if configuration.streamMode {
            if configuration.smoothsEachTrack {
                try smoothEachTrack(&poses, width: width, height: height, timestampMicroseconds: timestampMicroseconds)
            } else if configuration.numPoses == 1 {
                switch configuration.flavour {
                case .tasks:
                    try smooth(&poses, width: width, height: height, timestampMicroseconds: timestampMicroseconds)
                case .legacy:
                    try smoothLegacy(&poses, width: width, height: height, timestampMicroseconds: timestampMicroseconds)
                }
            }
            trackedROIs = poses.map { TrackedRect(rect: $0.trackingROI, trackId: $0.trackId) }
            try identify(&poses, width: width, height: height, timestampMicroseconds: timestampMicroseconds)
        }
        return poses
    }

    /// One stream-mode frame's ROIs, at most `numPoses` (docs/PIPELINE.md, "Video / live
    /// tracking (pose)" and "Association of ROIs"): the previous frame's `tracked` ROIs, and the
    /// detector's (`detect`) when fewer than `numPoses` were tracked, merged by
    /// `RectAssociation.laterWins` on every frame, as MediaPipe's `AssociationNormRectCalculator`
    /// is: it also drops a tracked ROI that a later tracked one overlaps, so two tracks that
    /// converged on one person after a crossing become one, and the detector runs on the next
    /// frame to find the other.
    static func streamROIs(
        tracked: [TrackedRect], numPoses: Int, iouThreshold: Float, detect: () throws -> [NormalizedRect]
    ) rethrows -> [TrackedRect] {
        let detected = tracked.count < numPoses ? try detect() : []
        return Array(RectAssociation.laterWins(tracked: tracked, detected: detected, iouThreshold: iouThreshold)
            .prefix(numPoses))
    }

    /// Runs the detector on the whole image and returns one ROI per detection
    /// surviving NMS, in descending score.
    private func detectROIs(in image: RGBImage) throws -> [NormalizedRect] {
        detectorRuns += 1
        let (detections, transform) = try detector.detect(in: image)
        return try detections.map { detection in
            let unpadded = transform.padding.removing(from: detection)
            let rect = try DetectionToRect.poseDetector.rect(for: unpadded, imageWidth: image.width, imageHeight: image.height)
            return RectTransformation.pose.apply(to: rect, imageWidth: image.width, imageHeight: image.height)
        }
    }

    /// Runs the landmark model on one ROI. Returns nil when the presence gate fails.
    private func landmarks(in image: RGBImage, roi: NormalizedRect) throws -> Pose? {
        let width = image.width, height = image.height
        let transform = try landmarkModel.invoke(
            onCropOf: image, roi: roi, side: Self.landmarkInputSize, keepAspectRatio: configuration.flavour == .legacy)

        let presence = try landmarkModel.withOutputBuffer(at: 1) { try PresenceGate(threshold: configuration.minPresenceConfidence).passes(flagTensor: $0) }
        guard presence else { return nil }

        var raw = try landmarkModel.withOutputBuffer(at: 0) { try LandmarkTensorLayout.pose.decodeLandmarks($0) }
        try landmarkModel.withOutputBuffer(at: 3) { heatmap in
            try (configuration.flavour == .legacy ? HeatmapRefinement.legacyPose : .pose).refine(
                &raw, heatmap: heatmap, height: Self.heatmapSize, width: Self.heatmapSize, channels: 39)
        }
        let (poseLandmarks, auxiliary) = try PoseLandmarkSplit.split(raw)
        var world = try landmarkModel.withOutputBuffer(at: 4) { try LandmarkTensorLayout.pose.decodeWorldLandmarks($0) }
        world = Array(world.prefix(PoseLandmarkSplit.poseLandmarkCount))
        world = LandmarkProjection.copyVisibilityAndPresence(from: poseLandmarks, to: world)
        world = LandmarkProjection.rotate(world, by: roi.rotation)

        var mask: [Float]?
        if configuration.outputSegmentationMasks {
            mask = try landmarkModel.withOutputBuffer(at: Self.segmentationOutput) { logits in
                // MediaPipe's TensorsToSegmentationCalculator: a float exponential, the rest in double.
                let probabilities = logits.map { Float(1.0 / (Double(exp(-$0)) + 1.0)) }
                return try SegmentationMaskWarp.toImage(
                    probabilities, maskWidth: Self.landmarkInputSize, maskHeight: Self.landmarkInputSize,
                    roi: transform.sampledROI, imageWidth: width, imageHeight: height)
            }
        }
        let projectedAuxiliary = LandmarkProjection.project(transform.padding.removing(from: auxiliary), through: roi)
        let trackingROI = try PoseTrackingRect.nextFrameROI(
            auxiliary: projectedAuxiliary, imageWidth: width, imageHeight: height)
        return Pose(
            landmarks: LandmarkProjection.project(transform.padding.removing(from: poseLandmarks), through: roi),
            worldLandmarks: world, mask: mask, roi: roi, auxiliaryLandmarks: projectedAuxiliary, trackingROI: trackingROI,
            trackId: nil)
    }

    /// Gives each pose the id of the person it is (docs/PIPELINE.md, "Track ids"), from its
    /// landmarks as returned; changes nothing else.
    private func identify(_ poses: inout [Pose], width: Int, height: Int, timestampMicroseconds: Int64) throws {
        let observations = try poses.map { pose in
            try PersonIdentities.Observation(
                trackId: pose.trackId, landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks,
                imageWidth: width, imageHeight: height)
        }
        for (index, id) in identities.assign(observations, timestampMicroseconds: timestampMicroseconds).enumerated() {
            poses[index].personId = id
        }
    }

    /// Tasks smoothing for a single tracked pose (docs/PIPELINE.md, "Pose smoothing"): a frame
    /// without a pose resets the image landmarks' filter; the world landmarks' filter keeps its
    /// state across the gap, as MediaPipe's does.
    private func smooth(_ poses: inout [Pose], width: Int, height: Int, timestampMicroseconds: Int64) throws {
        guard let pose = poses.first else {
            smoother.poseLost()
            return
        }
        (poses[0].landmarks, poses[0].worldLandmarks) = try smoother.smooth(
            landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks, objectScaleRect: pose.trackingROI,
            imageWidth: width, imageHeight: height, timestampMicroseconds: timestampMicroseconds)
    }

    /// The legacy graph's smoothing of its one pose (docs/PIPELINE.md, "Legacy pose
    /// smoothing"): the next-frame ROI is rebuilt from the smoothed auxiliary landmarks.
    private func smoothLegacy(_ poses: inout [Pose], width: Int, height: Int, timestampMicroseconds: Int64) throws {
        guard !poses.isEmpty else {
            legacySmoother.poseLost()
            return
        }
        try Self.smooth(&poses[0], with: &legacySmoother, width: width, height: height, timestampMicroseconds: timestampMicroseconds)
    }

    /// One pose through a ``LegacyPoseSmoother``; its next-frame ROI rebuilt from the smoothed
    /// auxiliary landmarks.
    private static func smooth(
        _ pose: inout Pose, with smoother: inout LegacyPoseSmoother, width: Int, height: Int, timestampMicroseconds: Int64
    ) throws {
        let smoothed = try smoother.smooth(
            landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks, auxiliary: pose.auxiliaryLandmarks,
            imageWidth: width, imageHeight: height, timestampMicroseconds: timestampMicroseconds)
        pose.landmarks = smoothed.landmarks
        pose.worldLandmarks = smoothed.worldLandmarks
        pose.auxiliaryLandmarks = smoothed.auxiliary
        pose.trackingROI = try PoseTrackingRect.nextFrameROI(
            auxiliary: smoothed.auxiliary, imageWidth: width, imageHeight: height)
    }

    /// Per-track smoothing (docs/PIPELINE.md, "Per-track smoothing"): each pose goes through its
    /// track's own ``PoseSmoother`` (legacy flavour: ``LegacyPoseSmoother``), a new track's
    /// starting afresh; the filters of a track not found on this frame are dropped, as its id
    /// never returns.
    private func smoothEachTrack(_ poses: inout [Pose], width: Int, height: Int, timestampMicroseconds: Int64) throws {
        if configuration.flavour == .legacy {
            var smoothers: [Int: LegacyPoseSmoother] = [:]
            for index in poses.indices {
                guard let trackId = poses[index].trackId else { continue }
                var trackSmoother = legacyTrackSmoothers[trackId] ?? LegacyPoseSmoother()
                try Self.smooth(
                    &poses[index], with: &trackSmoother, width: width, height: height,
                    timestampMicroseconds: timestampMicroseconds)
                smoothers[trackId] = trackSmoother
            }
            legacyTrackSmoothers = smoothers
            return
        }
        var smoothers: [Int: PoseSmoother] = [:]
        for index in poses.indices {
            let pose = poses[index]
            guard let trackId = pose.trackId else { continue }
            var trackSmoother = trackSmoothers[trackId] ?? PoseSmoother()
            (poses[index].landmarks, poses[index].worldLandmarks) = try trackSmoother.smooth(
                landmarks: pose.landmarks, worldLandmarks: pose.worldLandmarks, objectScaleRect: pose.trackingROI,
                imageWidth: width, imageHeight: height, timestampMicroseconds: timestampMicroseconds)
            smoothers[trackId] = trackSmoother
        }
        trackSmoothers = smoothers
    }
}
