/// The legacy pose graph's smoothing of its one pose (`PoseLandmarkFiltering` of
/// `pose_landmark_cpu`, which the holistic graph runs; docs/PIPELINE.md, "Legacy pose
/// smoothing"): the Tasks filters of ``PoseSmoother`` for the 33 landmarks and world landmarks,
/// and besides them the two auxiliary landmarks, whose smoothed form places the next frame's ROI.
///
/// Both the landmarks' and the auxiliary landmarks' object scale is the alignment rect of this
/// frame's *raw* auxiliary landmarks, without the ×1.25 (``PoseTrackingRect/alignmentRect(auxiliary:imageWidth:imageHeight:)``).
///
/// Without landmark smoothing (legacy `smooth_landmarks` off: its static mode) the auxiliary
/// landmarks are still smoothed (that filter is outside the graph's switch), and the landmarks
/// go through the smoothing calculator's pixel round trip unfiltered
/// (``LandmarksSmoother/pixelRoundTrip(_:imageWidth:imageHeight:)``).
///
/// Thread safety: a `Sendable` value that carries filter state: each copy filters on its own;
/// mutate one copy from one thread at a time.
struct LegacyPoseSmoother: Sendable {
    /// Legacy `smooth_landmarks`: filter the landmarks, world landmarks and their visibility.
    let smoothsLandmarks: Bool
    private var poseSmoother = PoseSmoother()
    private var auxiliaryVisibilitySmoother = VisibilitySmoother(alpha: 0.1)
    private var auxiliarySmoother = LandmarksSmoother(parameters: .legacyAuxiliaryLandmarks)

    init(smoothsLandmarks: Bool = true) {
        self.smoothsLandmarks = smoothsLandmarks
    }

    /// Smooths one frame's pose.
    ///
    /// - Parameters:
    ///   - landmarks: the 33 landmarks, normalized to the image.
    ///   - worldLandmarks: the 33 world landmarks, metres.
    ///   - auxiliary: the 2 auxiliary landmarks, normalized to the image.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    ///   - timestampMicroseconds: the frame time.
    /// - Returns: the smoothed landmarks, world landmarks and auxiliary landmarks.
    /// - Throws: ``PipelineInputError/tooFewLandmarks(needed:available:)`` for fewer than 2
    ///   auxiliary landmarks; as
    ///   ``LandmarksSmoother/smooth(_:imageWidth:imageHeight:timestampMicroseconds:objectScaleRect:)``.
    mutating func smooth(
        landmarks: [RawLandmark], worldLandmarks: [RawWorldLandmark], auxiliary: [RawLandmark],
        imageWidth: Int, imageHeight: Int, timestampMicroseconds: Int64
    ) throws -> (landmarks: [RawLandmark], worldLandmarks: [RawWorldLandmark], auxiliary: [RawLandmark]) {
        let objectScale = try PoseTrackingRect.alignmentRect(
            auxiliary: auxiliary, imageWidth: imageWidth, imageHeight: imageHeight)
        let smoothedAuxiliary = try auxiliarySmoother.smooth(
            auxiliaryVisibilitySmoother.smooth(auxiliary), imageWidth: imageWidth, imageHeight: imageHeight,
            timestampMicroseconds: timestampMicroseconds, objectScaleRect: objectScale)
        guard smoothsLandmarks else {
            return (LandmarksSmoother.pixelRoundTrip(landmarks, imageWidth: imageWidth, imageHeight: imageHeight),
                    worldLandmarks, smoothedAuxiliary)
        }
        let (smoothed, smoothedWorld) = try poseSmoother.smooth(
            landmarks: landmarks, worldLandmarks: worldLandmarks, objectScaleRect: objectScale,
            imageWidth: imageWidth, imageHeight: imageHeight, timestampMicroseconds: timestampMicroseconds)
        return (smoothed, smoothedWorld, smoothedAuxiliary)
    }

    /// A frame without the pose: the image and auxiliary landmarks' filters start afresh with
    /// the next pose; the world landmarks' and the visibility filters keep their state.
    mutating func poseLost() {
        poseSmoother.poseLost()
        auxiliarySmoother.reset()
    }

    /// Forgets the landmark, auxiliary and world-landmark filter state (the visibility filters
    /// are never reset, as in MediaPipe).
    mutating func reset() {
        poseSmoother.reset()
        auxiliarySmoother.reset()
    }
}
