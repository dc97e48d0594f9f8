/// The people found in one image or frame, with the names MediaPipe's Tasks use for
/// `HolisticLandmarkerResult` on its other platforms, one entry per person.
///
/// Every array is indexed by person (at most `numPoses`). A part that was not found is an empty
/// list: `faceLandmarks[i]` is empty when person i's face was not found, `leftHandLandmarks[i]`
/// when their left hand was not. "Left" is the person's own left, as in MediaPipe (in an
/// unmirrored photo of someone facing the camera, it is on the image's right).
///
/// JSON keys: the property names; a missing `poseSegmentationMasks` decodes as none (as this
/// type encoded before it had them), a missing `trackIds` as nil.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct HolisticLandmarkerResult: Codable, Sendable, Equatable {
    /// `[people][33]`, normalized image coordinates, with visibility and presence.
    public var poseLandmarks: [[NormalizedLandmark]]
    /// `[people][33]`, metres, origin between the hips.
    public var poseWorldLandmarks: [[Landmark]]
    /// One float32 mask per person, image size, values in [0, 1] (1 meaning person); empty
    /// unless `outputPoseSegmentationMasks` is on.
    public var poseSegmentationMasks: [Mask]
    /// `[people][468 or 478 or 0]`, normalized image coordinates.
    public var faceLandmarks: [[NormalizedLandmark]]
    /// `[people][21 or 0]`, normalized image coordinates.
    public var leftHandLandmarks: [[NormalizedLandmark]]
    /// `[people][21 or 0]`, metres, origin at the hand's approximate centre.
    public var leftHandWorldLandmarks: [[Landmark]]
    /// `[people][21 or 0]`, normalized image coordinates.
    public var rightHandLandmarks: [[NormalizedLandmark]]
    /// `[people][21 or 0]`, metres.
    public var rightHandWorldLandmarks: [[Landmark]]
    /// Always empty: asking for blendshapes throws (see `HolisticLandmarkerOptions.outputFaceBlendshapes`).
    public var faceBlendshapes: [Classifications]
    /// The input's timestamp: the caller's in video and live-stream modes (microsecond
    /// timestamps rounded down), synthetic in image mode.
    public var timestampInMilliseconds: Int
    /// Video and live-stream modes: one person id per person, kept as the pose landmarker keeps
    /// it (docs/PIPELINE.md, "Person ids"); nil in image mode. Not part of MediaPipe's API.
    public var trackIds: [Int]?

    public init(
        poseLandmarks: [[NormalizedLandmark]], poseWorldLandmarks: [[Landmark]], poseSegmentationMasks: [Mask] = [],
        faceLandmarks: [[NormalizedLandmark]],
        leftHandLandmarks: [[NormalizedLandmark]], leftHandWorldLandmarks: [[Landmark]],
        rightHandLandmarks: [[NormalizedLandmark]], rightHandWorldLandmarks: [[Landmark]],
        faceBlendshapes: [Classifications] = [], timestampInMilliseconds: Int, trackIds: [Int]? = nil
    ) {
        self.poseLandmarks = poseLandmarks
        self.poseWorldLandmarks = poseWorldLandmarks
        self.poseSegmentationMasks = poseSegmentationMasks
        self.faceLandmarks = faceLandmarks
        self.leftHandLandmarks = leftHandLandmarks
        self.leftHandWorldLandmarks = leftHandWorldLandmarks
        self.rightHandLandmarks = rightHandLandmarks
        self.rightHandWorldLandmarks = rightHandWorldLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.timestampInMilliseconds = timestampInMilliseconds
        self.trackIds = trackIds
    }

    private enum CodingKeys: String, CodingKey {
        case poseLandmarks, poseWorldLandmarks, poseSegmentationMasks, faceLandmarks, leftHandLandmarks,
            leftHandWorldLandmarks, rightHandLandmarks, rightHandWorldLandmarks, faceBlendshapes,
            timestampInMilliseconds, trackIds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        poseLandmarks = try container.decode([[NormalizedLandmark]].self, forKey: .poseLandmarks)
        poseWorldLandmarks = try container.decode([[Landmark]].self, forKey: .poseWorldLandmarks)
        poseSegmentationMasks = try container.decodeIfPresent([Mask].self, forKey: .poseSegmentationMasks) ?? []
        faceLandmarks = try container.decode([[NormalizedLandmark]].self, forKey: .faceLandmarks)
        leftHandLandmarks = try container.decode([[NormalizedLandmark]].self, forKey: .leftHandLandmarks)
        leftHandWorldLandmarks = try container.decode([[Landmark]].self, forKey: .leftHandWorldLandmarks)
        rightHandLandmarks = try container.decode([[NormalizedLandmark]].self, forKey: .rightHandLandmarks)
        rightHandWorldLandmarks = try container.decode([[Landmark]].self, forKey: .rightHandWorldLandmarks)
        faceBlendshapes = try container.decode([Classifications].self, forKey: .faceBlendshapes)
        timestampInMilliseconds = try container.decode(Int.self, forKey: .timestampInMilliseconds)
        trackIds = try container.decodeIfPresent([Int].self, forKey: .trackIds)
    }
}
