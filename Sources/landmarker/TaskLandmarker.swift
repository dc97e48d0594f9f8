import MediaPipeTasksVision

/// What `pipeline-bench` and `soak` do with a landmarker, whatever its task: run a frame in
/// image or video mode and tell whether it found anything, submit a live-stream frame, close.
/// `PoseLandmarker`, `HandLandmarker`, `FaceLandmarker` and `HolisticLandmarker` have these
/// calls already.
protocol TaskLandmarker: AnyObject {
    associatedtype Result
    func detect(image: MPImage) throws -> Result
    func detect(videoFrame image: MPImage, timestampInMilliseconds: Int) throws -> Result
    func detectAsync(image: MPImage, timestampInMilliseconds: Int) throws
    func close()
    /// Whether `result` holds at least one pose, hand or face.
    static func hasDetections(_ result: Result) -> Bool
}

extension TaskLandmarker {
    /// Runs one frame, in video mode at `timestampInMilliseconds` when `video`, in image mode
    /// otherwise, and says whether it found at least one pose, hand or face.
    func findsAny(in image: MPImage, video: Bool, timestampInMilliseconds: Int) throws -> Bool {
        Self.hasDetections(
            video ? try detect(videoFrame: image, timestampInMilliseconds: timestampInMilliseconds)
                : try detect(image: image))
    }
}

extension PoseLandmarker: TaskLandmarker {
    static func hasDetections(_ result: PoseLandmarkerResult) -> Bool { !result.landmarks.isEmpty }
}

extension HandLandmarker: TaskLandmarker {
    static func hasDetections(_ result: HandLandmarkerResult) -> Bool { !result.landmarks.isEmpty }
}

extension FaceLandmarker: TaskLandmarker {
    static func hasDetections(_ result: FaceLandmarkerResult) -> Bool { !result.faceLandmarks.isEmpty }
}

extension HolisticLandmarker: TaskLandmarker {
    static func hasDetections(_ result: HolisticLandmarkerResult) -> Bool { !result.poseLandmarks.isEmpty }
}
