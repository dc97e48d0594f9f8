/// The hands found in one image or frame, mirroring the iOS `HandLandmarkerResult`.
///
/// The arrays are indexed by hand, in the same order; each hand has 21 landmarks in
/// `HandLandmark` order and one handedness category. All arrays are empty when no hand was found.
///
/// JSON keys: `handedness`, `landmarks`, `worldLandmarks`, `timestampInMilliseconds`, and
/// `trackIds` where there are track ids (a missing `trackIds` decodes as none).
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
    /// Video and live-stream modes: one track id per hand, in hand order. A hand keeps its id
    /// from frame to frame while the landmarker follows it from the previous frame's landmarks;
    /// a hand the palm detector finds anew gets a new id (ids count up from 0 and never repeat
    /// within a landmarker). Nil in image mode. Not part of MediaPipe's API (docs/PIPELINE.md,
    /// "Track ids").
    public var trackIds: [Int]?

    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
        handedness: [[ResultCategory]], timestampInMilliseconds: Int, trackIds: [Int]? = nil
    ) {
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
        self.trackIds = trackIds
    }
}
