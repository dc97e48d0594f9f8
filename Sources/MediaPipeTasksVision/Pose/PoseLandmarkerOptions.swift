/// Options of a pose landmarker, mirroring the iOS `PoseLandmarkerOptions`.
///
/// A reference type, so that `let options = PoseLandmarkerOptions(); options.numPoses = 2`
/// works as in the iOS snippets. The landmarker reads the options once, when it is created.
///
/// The live-stream delegate (`poseLandmarkerLiveStreamDelegate`, declared beside the landmarker
/// class) is a weak reference that must be set exactly when `runningMode` is `.liveStream`.
///
/// Thread safety: not `Sendable` (a mutable class, as on iOS): set it up on one thread. The
/// landmarker reads it once, when it is created; later changes do not reach an existing landmarker.
public final class PoseLandmarkerOptions {
    /// The largest accepted `numPoses`. Each pose runs the landmark model once per frame.
    public static let maximumNumPoses = 64

    /// Where the `.task` bundle (`pose_detector.tflite` + `pose_landmarks_detector.tflite`) comes from.
    public var baseOptions = BaseOptions()

    /// The running mode; `.image` by default.
    public var runningMode: RunningMode = .image

    /// The most poses reported per image or frame, in `1...maximumNumPoses`; 1 by default.
    public var numPoses = 1

    /// The minimum pose-detector score (after the sigmoid) for a detection to be kept, in [0, 1].
    public var minPoseDetectionConfidence: Float = 0.5

    /// A pose is reported only when the landmark model's presence score is strictly greater
    /// than this, in [0, 1].
    public var minPosePresenceConfidence: Float = 0.5

    /// In video and live-stream modes: the IoU above which a tracked pose region and a new
    /// detection count as the same pose, in [0, 1].
    public var minTrackingConfidence: Float = 0.5

    /// Whether each result carries one full-image segmentation mask per pose.
    /// (MediaPipe's C++ and Python APIs honour this option, and so does this one.)
    public var shouldOutputSegmentationMasks = false

    /// In video and live-stream modes: smooth every tracked person with their own filters, the
    /// same filters MediaPipe applies to the one pose of `numPoses` 1, so that `numPoses` > 1
    /// is smoothed too. A person keeps their filters while the landmarker follows them from frame
    /// to frame; after a gap they start with fresh ones, though they keep their id
    /// (`PoseLandmarkerResult.trackIds`). Off by default,
    /// which gives MediaPipe's output: only `numPoses` 1 is smoothed, and its filters carry
    /// over from one person to the next. Not part of MediaPipe's API (docs/PIPELINE.md,
    /// "Per-track smoothing"); refused in image mode.
    public var shouldSmoothEachTrack = false

    /// Storage behind `poseLandmarkerLiveStreamDelegate`, type-erased so that these options do
    /// not depend on the landmarker class. Weak, like the iOS delegate property.
    package weak var liveStreamDelegateObject: AnyObject?

    public init() {}

    /// Checks every option and returns a `Sendable` snapshot of them.
    ///
    /// - Throws: `TaskError` naming the first invalid option: a missing or doubly-set model
    ///   asset, an unsupported `baseOptions.delegate`, a live-stream delegate set outside (or
    ///   missing in) live-stream mode, `numPoses` outside `1...maximumNumPoses`, a confidence
    ///   outside [0, 1], or `shouldSmoothEachTrack` in image mode.
    package func validated() throws(TaskError) -> PoseLandmarkerConfiguration {
        let modelAsset = try baseOptions.validatedModelAsset()
        try baseOptions.validateDelegate()
        try OptionValidation.checkLiveStreamDelegate(
            isPresent: liveStreamDelegateObject != nil, runningMode: runningMode,
            option: "poseLandmarkerLiveStreamDelegate")
        try OptionValidation.checkCount(numPoses, option: "numPoses", maximum: Self.maximumNumPoses)
        try OptionValidation.checkConfidence(
            minPoseDetectionConfidence, option: "minPoseDetectionConfidence")
        try OptionValidation.checkConfidence(
            minPosePresenceConfidence, option: "minPosePresenceConfidence")
        try OptionValidation.checkConfidence(minTrackingConfidence, option: "minTrackingConfidence")
        try OptionValidation.checkTrackingOption(
            isOn: shouldSmoothEachTrack, runningMode: runningMode, option: "shouldSmoothEachTrack")
        return PoseLandmarkerConfiguration(
            modelAsset: modelAsset,
            runningMode: runningMode,
            numPoses: numPoses,
            minPoseDetectionConfidence: minPoseDetectionConfidence,
            minPosePresenceConfidence: minPosePresenceConfidence,
            minTrackingConfidence: minTrackingConfidence,
            shouldOutputSegmentationMasks: shouldOutputSegmentationMasks,
            shouldSmoothEachTrack: shouldSmoothEachTrack)
    }
}

/// The validated, immutable values of `PoseLandmarkerOptions` (without the delegate).
package struct PoseLandmarkerConfiguration: Sendable, Equatable {
    package var modelAsset: ModelAssetSource
    package var runningMode: RunningMode
    package var numPoses: Int
    package var minPoseDetectionConfidence: Float
    package var minPosePresenceConfidence: Float
    package var minTrackingConfidence: Float
    package var shouldOutputSegmentationMasks: Bool
    package var shouldSmoothEachTrack: Bool
}
