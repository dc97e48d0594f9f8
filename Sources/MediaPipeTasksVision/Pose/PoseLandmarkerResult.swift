/// The poses found in one image or frame, mirroring the iOS `PoseLandmarkerResult`.
///
/// The arrays are indexed by pose, in the same order; each pose has 33 landmarks in
/// `PoseLandmark` order. All arrays are empty when no pose was found.
///
/// JSON keys: `landmarks`, `worldLandmarks`, `segmentationMasks`, `timestampInMilliseconds`, and
/// `trackIds` where there are track ids. Decoding takes a missing `segmentationMasks` (as this type
/// wrote it before masks became an array) as no masks, and a missing `trackIds` as none.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct PoseLandmarkerResult: Codable, Sendable, Equatable {
    /// `[poses][33]`, normalized image coordinates.
    public var landmarks: [[NormalizedLandmark]]
    /// `[poses][33]`, metres around the hip midpoint.
    public var worldLandmarks: [[Landmark]]
    /// One full-image `.float32` mask per pose (image width × height), in pose order; empty
    /// when `shouldOutputSegmentationMasks` is false (an array, as on iOS).
    public var segmentationMasks: [Mask]
    /// The input's timestamp: the caller's in video and live-stream modes, synthetic in image mode.
    public var timestampInMilliseconds: Int
    /// Video and live-stream modes: one person id per pose, in pose order. A person keeps their
    /// id from frame to frame, also when two people cross or one is hidden for up to a second,
    /// as matched by torso position, motion and size and body proportions; a person not matched gets a
    /// new id (ids count up from 0 and never repeat within a landmarker). Nil in image mode. Not
    /// part of MediaPipe's API (docs/PIPELINE.md, "Track ids").
    public var trackIds: [Int]?

    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
        segmentationMasks: [Mask], timestampInMilliseconds: Int, trackIds: [Int]? = nil
    ) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
        self.trackIds = trackIds
    }

    private enum CodingKeys: String, CodingKey {
        case landmarks, worldLandmarks, segmentationMasks, timestampInMilliseconds, trackIds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        landmarks = try container.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try container.decode([[Landmark]].self, forKey: .worldLandmarks)
        segmentationMasks = try container.decodeIfPresent([Mask].self, forKey: .segmentationMasks) ?? []
        timestampInMilliseconds = try container.decode(Int.self, forKey: .timestampInMilliseconds)
        trackIds = try container.decodeIfPresent([Int].self, forKey: .trackIds)
    }
}
