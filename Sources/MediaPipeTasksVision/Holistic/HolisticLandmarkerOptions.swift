/// Options of a holistic landmarker, with the names MediaPipe's Tasks use for
/// `HolisticLandmarkerOptions` on its other platforms, plus `numPoses`.
///
/// A reference type, as the other landmarkers' options are. The landmarker follows MediaPipe's
/// legacy holistic graph; its options map onto the legacy ones as: `minPoseDetectionConfidence`
/// = `min_detection_confidence`, `minPosePresenceConfidence` = `min_tracking_confidence` (the
/// pose flag threshold); the face detector's and the face and hand models' thresholds are the
/// graph's constant 0.5. With the defaults (0.5 each) the landmarks are legacy Holistic's.
///
/// The live-stream delegate (`holisticLandmarkerLiveStreamDelegate`, declared beside the
/// landmarker class) is a weak reference that must be set exactly when `runningMode` is
/// `.liveStream`.
///
/// Thread safety: not `Sendable` (a mutable class): set it up on one thread. The landmarker
/// reads it once, when it is created.
public final class HolisticLandmarkerOptions {
    /// The largest accepted `numPoses`. Each person runs up to five models per frame.
    public static let maximumNumPoses = 64

    /// Where the `.task` bundle comes from: `holistic_landmarker.task` (468 face landmarks) or
    /// `holistic_landmarker_refined.task` (478), which `models/fetch_models.sh` assembles
    /// (members: see `LandmarkerBundleKind.holisticLandmarker`).
    public var baseOptions = BaseOptions()

    /// The running mode; `.image` by default.
    public var runningMode: RunningMode = .image

    /// The most people reported per image or frame, in `1...maximumNumPoses`; 1 by default,
    /// MediaPipe's holistic graph, which follows one person. More people are found and tracked
    /// as the pose landmarker finds and tracks them, each with their own face and hands and
    /// each smoothed on their own track (not part of MediaPipe).
    public var numPoses = 1

    /// The minimum pose-detector score (after the sigmoid) for a detection to be kept, in [0, 1].
    public var minPoseDetectionConfidence: Float = 0.5

    /// A person is reported only when the pose landmark model's pose score is strictly greater
    /// than this, in [0, 1].
    public var minPosePresenceConfidence: Float = 0.5

    /// The minimum face-detector score for a face to be looked for in the region the pose
    /// gives, in [0, 1].
    public var minFaceDetectionConfidence: Float = 0.5

    /// A face is reported only when the face landmark model's face score (after the sigmoid) is
    /// strictly greater than this, in [0, 1].
    public var minFacePresenceConfidence: Float = 0.5

    /// A hand is reported only when the hand landmark model's presence score is strictly
    /// greater than this, in [0, 1].
    public var minHandLandmarksConfidence: Float = 0.5

    /// Blendshape scores of the face. Their model is in no package this project fetches, so
    /// `true` makes the landmarker's creation throw `TaskError.unavailableOutput`.
    public var outputFaceBlendshapes = false

    /// Each person's segmentation mask in `HolisticLandmarkerResult.poseSegmentationMasks`
    /// (legacy Holistic's `enable_segmentation`): image size, 1 meaning person, in every mode
    /// the mask of that frame alone, as MediaPipe 0.10.21's legacy Holistic gives it (its
    /// `smooth_segmentation` changes nothing there).
    public var outputPoseSegmentationMasks = false

    /// Storage behind `holisticLandmarkerLiveStreamDelegate`, type-erased so that these options
    /// do not depend on the landmarker class. Weak, like the iOS delegate properties.
    package weak var liveStreamDelegateObject: AnyObject?

    public init() {}

    /// Checks every option and returns a `Sendable` snapshot of them.
    ///
    /// - Throws: `TaskError` naming the first invalid option.
    package func validated() throws(TaskError) -> HolisticLandmarkerConfiguration {
        let modelAsset = try baseOptions.validatedModelAsset()
        try baseOptions.validateDelegate()
        try OptionValidation.checkLiveStreamDelegate(
            isPresent: liveStreamDelegateObject != nil, runningMode: runningMode,
            option: "holisticLandmarkerLiveStreamDelegate")
        try OptionValidation.checkCount(numPoses, option: "numPoses", maximum: Self.maximumNumPoses)
        let confidences = [
            ("minPoseDetectionConfidence", minPoseDetectionConfidence),
            ("minPosePresenceConfidence", minPosePresenceConfidence),
            ("minFaceDetectionConfidence", minFaceDetectionConfidence),
            ("minFacePresenceConfidence", minFacePresenceConfidence),
            ("minHandLandmarksConfidence", minHandLandmarksConfidence),
        ]
        for (option, value) in confidences {
            try OptionValidation.checkConfidence(value, option: option)
        }
        if outputFaceBlendshapes {
            throw .unavailableOutput(
                option: "outputFaceBlendshapes",
                reason: "the blendshape model (face_blendshapes.tflite) is in no package this project fetches")
        }
        return HolisticLandmarkerConfiguration(
            modelAsset: modelAsset, runningMode: runningMode, numPoses: numPoses,
            minPoseDetectionConfidence: minPoseDetectionConfidence,
            minPosePresenceConfidence: minPosePresenceConfidence,
            minFaceDetectionConfidence: minFaceDetectionConfidence,
            minFacePresenceConfidence: minFacePresenceConfidence,
            minHandLandmarksConfidence: minHandLandmarksConfidence,
            outputPoseSegmentationMasks: outputPoseSegmentationMasks)
    }
}

/// The validated, immutable values of `HolisticLandmarkerOptions` (without the delegate).
package struct HolisticLandmarkerConfiguration: Sendable, Equatable {
    package var modelAsset: ModelAssetSource
    package var runningMode: RunningMode
    package var numPoses: Int
    package var minPoseDetectionConfidence: Float
    package var minPosePresenceConfidence: Float
    package var minFaceDetectionConfidence: Float
    package var minFacePresenceConfidence: Float
    package var minHandLandmarksConfidence: Float
    package var outputPoseSegmentationMasks: Bool
}
