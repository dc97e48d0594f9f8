// The module name ML Kit's iOS guides import: `import MLKit` brings in the PoseDetector API
// (PoseDetector, PoseDetectorOptions, AccuratePoseDetectorOptions, VisionImage, Pose) and
// nothing else. The detector runs MediaPipeTasksVision's PoseLandmarker; a caller that builds a
// `VisionImage` from an `MPImage`, or names the `MPImage` vocabulary (`PixelFormat`,
// `ImageOrientation`, `MPImageError`), imports MediaPipeTasksVision too.
import MediaPipeTasksVision

/// ML Kit's `PoseLandmark`: one body point of a ``Pose``. Thread safety: a `Sendable` value.
public typealias PoseLandmark = MLKPoseLandmark
