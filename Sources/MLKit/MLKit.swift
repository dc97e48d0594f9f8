// The module name ML Kit's iOS guides import: `import MLKit` brings in the PoseDetector API
// (PoseDetector, PoseDetectorOptions, AccuratePoseDetectorOptions, VisionImage, Pose).
// `PoseLandmark` names the ML Kit landmark class here, as in ML Kit (the Tasks
// landmark-name enum of the same name stays reachable as `Pipeline.PoseLandmark`).
@_exported import Pipeline
/// ML Kit's `PoseLandmark`: one body point of a ``Pose``. Thread safety: a `Sendable` value.
public typealias PoseLandmark = MLKPoseLandmark
