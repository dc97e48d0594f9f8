/// The faces found in one image or frame, mirroring the iOS `FaceLandmarkerResult`.
///
/// `faceLandmarks` is indexed by face: 468 landmarks per face (478 with the refined model:
/// the irises are 468–477), in MediaPipe's face mesh order. Empty when no face was found.
///
/// JSON keys: `faceLandmarks`, `faceBlendshapes`, `facialTransformationMatrixes`,
/// `timestampInMilliseconds`, and `trackIds` where there are track ids (a missing `trackIds`
/// decodes as none).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct FaceLandmarkerResult: Codable, Sendable, Equatable {
    /// `[faces][468 or 478]`, normalized image coordinates; z in units of about the image width,
    /// smaller = closer to the camera, centred near the head's centre. No visibility or presence.
    public var faceLandmarks: [[NormalizedLandmark]]
    /// Always empty: asking for blendshapes throws (see `FaceLandmarkerOptions.outputFaceBlendshapes`).
    public var faceBlendshapes: [Classifications]
    /// Always empty: asking for the matrices throws (see
    /// `FaceLandmarkerOptions.outputFacialTransformationMatrixes`).
    public var facialTransformationMatrixes: [TransformMatrix]
    /// The input's timestamp: the caller's in video and live-stream modes, synthetic in image mode.
    public var timestampInMilliseconds: Int
    /// Video and live-stream modes: one track id per face, in face order. A face keeps its id
    /// from frame to frame while the landmarker follows it from the previous frame's landmarks;
    /// a face the detector finds anew gets a new id (ids count up from 0 and never repeat within
    /// a landmarker). Nil in image mode. Not part of MediaPipe's API (docs/PIPELINE.md, "Track ids").
    public var trackIds: [Int]?

    public init(
        faceLandmarks: [[NormalizedLandmark]], faceBlendshapes: [Classifications] = [],
        facialTransformationMatrixes: [TransformMatrix] = [], timestampInMilliseconds: Int,
        trackIds: [Int]? = nil
    ) {
        self.faceLandmarks = faceLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.facialTransformationMatrixes = facialTransformationMatrixes
        self.timestampInMilliseconds = timestampInMilliseconds
        self.trackIds = trackIds
    }
}

/// Classification results of one head of a model, mirroring the iOS `Classifications`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct Classifications: Codable, Sendable, Equatable {
    /// The index of the model head that produced the categories.
    public var headIndex: Int
    /// The name of that head, if the model names it.
    public var headName: String?
    /// The categories, in decreasing score.
    public var categories: [ResultCategory]

    public init(headIndex: Int, headName: String?, categories: [ResultCategory]) {
        self.headIndex = headIndex
        self.headName = headName
        self.categories = categories
    }
}

/// A row-major matrix of floats, mirroring the iOS `TransformMatrix`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct TransformMatrix: Codable, Sendable, Equatable {
    public var rows: Int
    public var columns: Int
    /// `rows × columns` values, row by row.
    public var data: [Float]

    public init(rows: Int, columns: Int, data: [Float]) {
        self.rows = rows
        self.columns = columns
        self.data = data
    }
}
