/// Options of a hand landmarker, mirroring the iOS `HandLandmarkerOptions`.
///
/// A reference type, so that `let options = HandLandmarkerOptions(); options.numHands = 2`
/// works as in the iOS snippets. The landmarker reads the options once, when it is created.
///
/// The live-stream delegate (`handLandmarkerLiveStreamDelegate`, declared beside the landmarker
/// class) is a weak reference that must be set exactly when `runningMode` is `.liveStream`.
///
/// Thread safety: not `Sendable` (a mutable class, as on iOS): set it up on one thread. The
/// landmarker reads it once, when it is created; later changes do not reach an existing landmarker.
public final class HandLandmarkerOptions {
    /// The largest accepted `numHands`. Each hand runs the landmark model once per frame.
    public static let maximumNumHands = 64

    /// Where the `.task` bundle (`hand_detector.tflite` + `hand_landmarks_detector.tflite`) comes from.
    public var baseOptions = BaseOptions()

    /// The running mode; `.image` by default.
    public var runningMode: RunningMode = .image

    /// The most hands reported per image or frame, in `1...maximumNumHands`; 1 by default.
    public var numHands = 1

    /// The minimum palm-detector score (after the sigmoid) for a detection to be kept, in [0, 1].
    public var minHandDetectionConfidence: Float = 0.5

    /// A hand is reported only when the landmark model's presence score is strictly greater
    /// than this, in [0, 1].
    public var minHandPresenceConfidence: Float = 0.5

    /// In video and live-stream modes: the IoU above which a tracked hand region and a new
    /// palm detection count as the same hand, in [0, 1].
    public var minTrackingConfidence: Float = 0.5

    /// Storage behind `handLandmarkerLiveStreamDelegate`, type-erased so that these options do
    /// not depend on the landmarker class. Weak, like the iOS delegate property.
    package weak var liveStreamDelegateObject: AnyObject?

    public init() {}

    /// Checks every option and returns a `Sendable` snapshot of them.
    ///
    /// - Throws: `TaskError` naming the first invalid option: a missing or doubly-set model
    ///   asset, an unsupported `baseOptions.delegate`, a live-stream delegate set outside (or
    ///   missing in) live-stream mode, `numHands` outside `1...maximumNumHands`, or a confidence
    ///   outside [0, 1].
    package func validated() throws(TaskError) -> HandLandmarkerConfiguration {
        let modelAsset = try baseOptions.validatedModelAsset()
        try baseOptions.validateDelegate()
        try OptionValidation.checkLiveStreamDelegate(
            isPresent: liveStreamDelegateObject != nil, runningMode: runningMode,
            option: "handLandmarkerLiveStreamDelegate")
        try OptionValidation.checkCount(numHands, option: "numHands", maximum: Self.maximumNumHands)
        try OptionValidation.checkConfidence(
            minHandDetectionConfidence, option: "minHandDetectionConfidence")
        try OptionValidation.checkConfidence(
            minHandPresenceConfidence, option: "minHandPresenceConfidence")
        try OptionValidation.checkConfidence(minTrackingConfidence, option: "minTrackingConfidence")
        return HandLandmarkerConfiguration(
            modelAsset: modelAsset,
            runningMode: runningMode,
            numHands: numHands,
            minHandDetectionConfidence: minHandDetectionConfidence,
            minHandPresenceConfidence: minHandPresenceConfidence,
            minTrackingConfidence: minTrackingConfidence)
    }
}

/// The validated, immutable values of `HandLandmarkerOptions` (without the delegate).
package struct HandLandmarkerConfiguration: Sendable, Equatable {
    package var modelAsset: ModelAssetSource
    package var runningMode: RunningMode
    package var numHands: Int
    package var minHandDetectionConfidence: Float
    package var minHandPresenceConfidence: Float
    package var minTrackingConfidence: Float
}
