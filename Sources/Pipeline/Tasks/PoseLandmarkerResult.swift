/// The poses found in one image or frame, mirroring the iOS `PoseLandmarkerResult`.
///
/// The arrays are indexed by pose, in the same order; each pose has 33 landmarks in
/// `PoseLandmark` order. All arrays are empty when no pose was found.
///
/// JSON keys: `landmarks`, `worldLandmarks`, `segmentationMasks`, `timestampInMilliseconds`.
/// Decoding takes a missing `segmentationMasks` (as this type wrote it before masks became an
/// array) as no masks.
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

    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
        segmentationMasks: [Mask], timestampInMilliseconds: Int
    ) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case landmarks, worldLandmarks, segmentationMasks, timestampInMilliseconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        landmarks = try container.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try container.decode([[Landmark]].self, forKey: .worldLandmarks)
        segmentationMasks = try container.decodeIfPresent([Mask].self, forKey: .segmentationMasks) ?? []
        timestampInMilliseconds = try container.decode(Int.self, forKey: .timestampInMilliseconds)
    }
}
