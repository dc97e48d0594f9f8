/// The Tasks smoothing of one followed pose (docs/PIPELINE.md, "Pose smoothing"): visibility
/// first (low-pass α = 0.1), then the coordinates (One-Euro, ``OneEuroParameters/poseLandmarks``
/// for the 33 landmarks, ``OneEuroParameters/poseWorldLandmarks`` for the 33 world landmarks).
///
/// With `numPoses` 1 the pose graph keeps one for the whole video, as MediaPipe does; with
/// per-track smoothing it keeps one per track (docs/PIPELINE.md, "Per-track smoothing").
///
/// Thread safety: a `Sendable` value that carries filter state: each copy filters on its own;
/// mutate one copy from one thread at a time.
struct PoseSmoother: Sendable {
    private var landmarkSmoother = LandmarksSmoother(parameters: .poseLandmarks)
    private var worldSmoother = LandmarksSmoother(parameters: .poseWorldLandmarks)
    private var visibilitySmoother = VisibilitySmoother(alpha: 0.1)
    private var worldVisibilitySmoother = VisibilitySmoother(alpha: 0.1)

    /// Smooths one frame's pose.
    ///
    /// - Parameters:
    ///   - landmarks: the 33 landmarks, normalized to the image.
    ///   - worldLandmarks: the 33 world landmarks, metres.
    ///   - objectScaleRect: the next-frame ROI built from this frame's auxiliary landmarks
    ///     (side 2.5·‖aux1 − aux0‖ pixels), normalized.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    ///   - timestampMicroseconds: the frame time.
    /// - Throws: as ``LandmarksSmoother/smooth(_:imageWidth:imageHeight:timestampMicroseconds:objectScaleRect:)``.
    mutating func smooth(
        landmarks: [RawLandmark], worldLandmarks: [RawWorldLandmark], objectScaleRect: NormalizedRect?,
        imageWidth: Int, imageHeight: Int, timestampMicroseconds: Int64
    ) throws -> (landmarks: [RawLandmark], worldLandmarks: [RawWorldLandmark]) {
        let smoothed = try landmarkSmoother.smooth(
            visibilitySmoother.smooth(landmarks), imageWidth: imageWidth, imageHeight: imageHeight,
            timestampMicroseconds: timestampMicroseconds, objectScaleRect: objectScaleRect)
        let smoothedWorld = try worldSmoother.smooth(
            worldVisibilitySmoother.smooth(worldLandmarks), timestampMicroseconds: timestampMicroseconds)
        return (smoothed, smoothedWorld)
    }

    /// A frame without the pose: the image landmarks' filters start afresh with the next pose;
    /// the world landmarks' and the visibility filters keep their state across the gap, as
    /// MediaPipe's do.
    mutating func poseLost() {
        landmarkSmoother.reset()
    }

    /// Forgets the landmark and world-landmark filter state (the visibility filters are never
    /// reset, as in MediaPipe).
    mutating func reset() {
        landmarkSmoother.reset()
        worldSmoother.reset()
    }
}
