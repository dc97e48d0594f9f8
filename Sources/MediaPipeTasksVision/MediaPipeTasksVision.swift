// The module name MediaPipe's iOS guides import: `import MediaPipeTasksVision` brings in the
// landmarker APIs (PoseLandmarker, HandLandmarker, MPImage, options and results).
@_exported import Pipeline
