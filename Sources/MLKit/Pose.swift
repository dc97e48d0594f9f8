import Foundation  // CGFloat, the type of the ML Kit API's coordinates
import MediaPipeTasksVision

/// A point in the input image, ML Kit's `Vision3DPoint`.
///
/// `x` and `y` are pixels of the input image as displayed, upright and, for a mirrored
/// orientation, mirrored (origin top-left, x to the right, y down; off-image points fall outside
/// `0..<width` / `0..<height`). `z` is depth on the same pixel
/// scale as `x`, with the hip midpoint at 0 and negative values toward the camera. As in ML
/// Kit, `z` of the face landmarks carries little meaning.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct Vision3DPoint: Sendable, Equatable {
    /// Pixels from the left edge of the displayed image.
    public var x: CGFloat
    /// Pixels from the top edge of the displayed image.
    public var y: CGFloat
    /// Depth in pixels (the scale of `x`); negative is closer to the camera than the hips.
    public var z: CGFloat

    public init(x: CGFloat, y: CGFloat, z: CGFloat) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// One body point of a ``Pose``: ML Kit's `PoseLandmark`.
///
/// Named `MLKPoseLandmark` (ML Kit's Objective-C name) here because the Tasks API this module
/// builds on (MediaPipeTasksVision) has an enum called `PoseLandmark`; `import MLKit` exposes
/// this struct as `PoseLandmark`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct MLKPoseLandmark: Sendable, Equatable {
    /// Which body point this is.
    public let type: PoseLandmarkType
    /// Where it is, in pixels of the displayed input image; see ``Vision3DPoint``.
    public let position: Vision3DPoint
    /// Likelihood in [0, 1] that the point lies inside the image frame.
    ///
    /// Design choice: this is MediaPipe's landmark **presence** (a sigmoid score meaning "in
    /// the frame"), not its `visibility`, which also drops for points that are in the frame but
    /// occluded. ML Kit does not publish how it computes this value. Points that the model
    /// places outside the image get low values.
    public let inFrameLikelihood: Float

    public init(type: PoseLandmarkType, position: Vision3DPoint, inFrameLikelihood: Float) {
        self.type = type
        self.position = position
        self.inFrameLikelihood = inFrameLikelihood
    }
}

/// One detected person: ML Kit's `Pose`. Either all 33 landmarks are present or there is no pose.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct Pose: Sendable, Equatable {
    /// The 33 landmarks, indexed by `PoseLandmarkType.rawValue` (``PoseLandmarkType/allTypes`` order).
    public let landmarks: [MLKPoseLandmark]

    /// The landmark of the given type.
    public func landmark(ofType type: PoseLandmarkType) -> MLKPoseLandmark {
        landmarks[type.rawValue]
    }

    /// Converts one pose of a `PoseLandmarkerResult` to pixels of a `width` × `height` upright
    /// image: x = x_n·W, y = y_n·H, z = z_n·W (computed in `Double`), and `inFrameLikelihood` =
    /// presence (0 where the model gives none). `mirrored`: the pose was found in the unmirrored
    /// image and is reported in its mirror image, x = W − x_n·W; types are not swapped (they name
    /// the person's own sides, which mirroring does not change).
    ///
    /// - Precondition: `normalized` has one landmark per ``PoseLandmarkType`` (the pose
    ///   landmarker always returns 33).
    init(normalized: [NormalizedLandmark], width: Int, height: Int, mirrored: Bool) {
        precondition(normalized.count == PoseLandmarkType.allCases.count,
                     "a pose has \(PoseLandmarkType.allCases.count) landmarks, got \(normalized.count)")
        let width = Double(width)
        let height = Double(height)
        landmarks = zip(PoseLandmarkType.allCases, normalized).map { type, landmark in
            let x = Double(landmark.x) * width
            return MLKPoseLandmark(
                type: type,
                position: Vision3DPoint(
                    x: CGFloat(mirrored ? width - x : x),
                    y: CGFloat(Double(landmark.y) * height),
                    z: CGFloat(Double(landmark.z) * width)),
                inFrameLikelihood: landmark.presence ?? 0)
        }
    }
}
