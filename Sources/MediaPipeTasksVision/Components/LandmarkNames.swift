/// The 33 pose landmarks, in model output order (`rawValue` = index into a pose's landmarks).
///
/// "Left" and "right" are the subject's sides.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum PoseLandmark: Int, CaseIterable, Sendable {
    case nose = 0
    case leftEyeInner, leftEye, leftEyeOuter
    case rightEyeInner, rightEye, rightEyeOuter
    case leftEar, rightEar
    case mouthLeft, mouthRight
    case leftShoulder, rightShoulder
    case leftElbow, rightElbow
    case leftWrist, rightWrist
    case leftPinky, rightPinky
    case leftIndex, rightIndex
    case leftThumb, rightThumb
    case leftHip, rightHip
    case leftKnee, rightKnee
    case leftAnkle, rightAnkle
    case leftHeel, rightHeel
    case leftFootIndex, rightFootIndex
}

/// The 21 hand landmarks, in model output order (`rawValue` = index into a hand's landmarks),
/// named as the iOS `HandLandmark`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum HandLandmark: Int, CaseIterable, Sendable {
    case wrist = 0
    case thumbCMC, thumbMCP, thumbIP, thumbTIP
    case indexFingerMCP, indexFingerPIP, indexFingerDIP, indexFingerTIP
    case middleFingerMCP, middleFingerPIP, middleFingerDIP, middleFingerTIP
    case ringFingerMCP, ringFingerPIP, ringFingerDIP, ringFingerTIP
    case pinkyMCP, pinkyPIP, pinkyDIP, pinkyTIP
}
