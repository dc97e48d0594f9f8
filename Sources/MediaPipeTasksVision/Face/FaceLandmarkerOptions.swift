/// Options of a face landmarker, mirroring the iOS `FaceLandmarkerOptions`.
///
/// A reference type, so that `let options = FaceLandmarkerOptions(); options.numFaces = 2`
/// works as in the iOS snippets. The landmarker reads the options once, when it is created.
///
/// The landmarker follows MediaPipe's legacy Face Mesh graph; its options map onto the legacy
/// ones as: `minFaceDetectionConfidence` = `min_detection_confidence`,
/// `minFacePresenceConfidence` = `min_tracking_confidence` (the face flag threshold), and
/// `minTrackingConfidence` = the IoU of the graph's ROI association (a constant 0.5 there).
/// With the defaults (0.5 each) the landmarks are legacy Face Mesh's.
///
/// The live-stream delegate (`faceLandmarkerLiveStreamDelegate`, declared beside the landmarker
/// class) is a weak reference that must be set exactly when `runningMode` is `.liveStream`.
///
/// Thread safety: not `Sendable` (a mutable class, as on iOS): set it up on one thread. The
/// landmarker reads it once, when it is created; later changes do not reach an existing landmarker.
public final class FaceLandmarkerOptions {
    /// The largest accepted `numFaces`. Each face runs the landmark model once per frame.
    public static let maximumNumFaces = 64

    /// Where the `.task` bundle (`face_detector.tflite` + `face_landmarks_detector.tflite`)
    /// comes from: `face_landmarker.task` (468 landmarks) or `face_landmarker_refined.task`
    /// (478: refined lips and eyes, and the irises), which `models/fetch_models.sh` assembles.
    public var baseOptions = BaseOptions()

    /// The running mode; `.image` by default.
    public var runningMode: RunningMode = .image

    /// The most faces reported per image or frame, in `1...maximumNumFaces`; 1 by default.
    public var numFaces = 1

    /// The minimum face-detector score (after the sigmoid) for a detection to be kept, in [0, 1].
    public var minFaceDetectionConfidence: Float = 0.5

    /// A face is reported only when the landmark model's face score (after the sigmoid) is
    /// strictly greater than this, in [0, 1].
    public var minFacePresenceConfidence: Float = 0.5

    /// In video and live-stream modes: the IoU above which a tracked face region replaces a new
    /// detection's region of the same face, in [0, 1].
    public var minTrackingConfidence: Float = 0.5

    /// Blendshape scores per face. Their model (`face_blendshapes.tflite`) is in no package this
    /// project fetches from, so `true` makes the landmarker's creation throw
    /// `TaskError.unavailableOutput`; `false` by default.
    public var outputFaceBlendshapes = false

    /// The face's pose as a 4 × 4 matrix per face. MediaPipe computes it from its canonical face
    /// geometry data, which is in no package this project fetches from, so `true` makes the
    /// landmarker's creation throw `TaskError.unavailableOutput`; `false` by default.
    public var outputFacialTransformationMatrixes = false

    /// Storage behind `faceLandmarkerLiveStreamDelegate`, type-erased so that these options do
    /// not depend on the landmarker class. Weak, like the iOS delegate property.
    package weak var liveStreamDelegateObject: AnyObject?

    public init() {}

    /// Checks every option and returns a `Sendable` snapshot of them.
    ///
    /// - Throws: `TaskError` naming the first invalid option: a missing or doubly-set model
    ///   asset, an unsupported `baseOptions.delegate`, a live-stream delegate set outside (or
    ///   missing in) live-stream mode, `numFaces` outside `1...maximumNumFaces`, a confidence
    ///   outside [0, 1], or an output that cannot be produced.
    package func validated() throws(TaskError) -> FaceLandmarkerConfiguration {
        let modelAsset = try baseOptions.validatedModelAsset()
        try baseOptions.validateDelegate()
        try OptionValidation.checkLiveStreamDelegate(
            isPresent: liveStreamDelegateObject != nil, runningMode: runningMode,
            option: "faceLandmarkerLiveStreamDelegate")
        try OptionValidation.checkCount(numFaces, option: "numFaces", maximum: Self.maximumNumFaces)
        try OptionValidation.checkConfidence(minFaceDetectionConfidence, option: "minFaceDetectionConfidence")
        try OptionValidation.checkConfidence(minFacePresenceConfidence, option: "minFacePresenceConfidence")
        try OptionValidation.checkConfidence(minTrackingConfidence, option: "minTrackingConfidence")
        if outputFaceBlendshapes {
            throw .unavailableOutput(
                option: "outputFaceBlendshapes",
                reason: "the blendshape model (face_blendshapes.tflite) is in no package this project fetches")
        }
        if outputFacialTransformationMatrixes {
            throw .unavailableOutput(
                option: "outputFacialTransformationMatrixes",
                reason: "MediaPipe's canonical face geometry data is in no package this project fetches")
        }
        return FaceLandmarkerConfiguration(
            modelAsset: modelAsset,
            runningMode: runningMode,
            numFaces: numFaces,
            minFaceDetectionConfidence: minFaceDetectionConfidence,
            minFacePresenceConfidence: minFacePresenceConfidence,
            minTrackingConfidence: minTrackingConfidence)
    }
}

/// The validated, immutable values of `FaceLandmarkerOptions` (without the delegate).
package struct FaceLandmarkerConfiguration: Sendable, Equatable {
    package var modelAsset: ModelAssetSource
    package var runningMode: RunningMode
    package var numFaces: Int
    package var minFaceDetectionConfidence: Float
    package var minFacePresenceConfidence: Float
    package var minTrackingConfidence: Float
}
