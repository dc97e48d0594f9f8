/// The 33 body points of an ML Kit pose, named as in ML Kit's `PoseLandmarkType`.
///
/// `rawValue` is the landmark's index in the model output and in ``Pose/landmarks`` (the
/// MediaPipe order, docs/PIPELINE.md, "Landmark order and connections"), so the mapping to the
/// Tasks ``PoseLandmark`` enum is 1:1 by index; only some names differ (`leftPinkyFinger` is Tasks'
/// `leftPinky`, `leftToe` is `leftFootIndex`, …). "Left" and "right" are the subject's sides.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum PoseLandmarkType: Int, CaseIterable, Sendable {
    case nose = 0
    case leftEyeInner, leftEye, leftEyeOuter
    case rightEyeInner, rightEye, rightEyeOuter
    case leftEar, rightEar
    case mouthLeft, mouthRight
    case leftShoulder, rightShoulder
    case leftElbow, rightElbow
    case leftWrist, rightWrist
    case leftPinkyFinger, rightPinkyFinger
    case leftIndexFinger, rightIndexFinger
    case leftThumb, rightThumb
    case leftHip, rightHip
    case leftKnee, rightKnee
    case leftAnkle, rightAnkle
    case leftHeel, rightHeel
    case leftToe, rightToe

    /// All 33 types, in landmark order (index 0 … 32).
    public static var allTypes: [PoseLandmarkType] { allCases }
}
