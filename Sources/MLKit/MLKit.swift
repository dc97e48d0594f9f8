// The module name ML Kit's iOS guides import: `import MLKit` brings in the PoseDetector API
// (PoseDetector, PoseDetectorOptions, AccuratePoseDetectorOptions, VisionImage, Pose).
@_exported import Pipeline
