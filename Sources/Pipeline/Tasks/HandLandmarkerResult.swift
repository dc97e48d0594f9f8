/// The hands found in one image or frame, mirroring the iOS `HandLandmarkerResult`.
///
/// The arrays are indexed by hand, in the same order; each hand has 21 landmarks in
/// `HandLandmark` order and one handedness category. All arrays are empty when no hand was found.
///
/// JSON keys: `handedness`, `landmarks`, `worldLandmarks`, `timestampInMilliseconds`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct HandLandmarkerResult: Codable, Sendable, Equatable {
    /// `[hands][1]`: "Left" or "Right", the subject's hand in a non-mirrored image.
    public var handedness: [[ResultCategory]]
    /// `[hands][21]`, normalized image coordinates (no visibility or presence).
    public var landmarks: [[NormalizedLandmark]]
    /// `[hands][21]`, metres around the hand's centre.
    public var worldLandmarks: [[Landmark]]
    /// The input's timestamp: the caller's in video and live-stream modes, synthetic in image mode.
    public var timestampInMilliseconds: Int

    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
        handedness: [[ResultCategory]], timestampInMilliseconds: Int
    ) {
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
