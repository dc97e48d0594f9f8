#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the holistic graph looks for a person's hand (`HandLandmarksFromPoseCpu`,
/// docs/PIPELINE.md, "Holistic hands"): a region around the pose's wrist, pinky and index
/// landmarks, which the hand-recrop model then narrows to the hand ROI
/// (``HandRecropModel``).
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum HolisticHandRegion {
    /// Which of the person's hands: the person's own left and right, as MediaPipe's pose
    /// landmarks name them.
    package enum Side: Sendable, Hashable, CaseIterable {
        case left, right

        /// The pose landmarks of this side's wrist, pinky and index knuckle.
        var poseLandmarks: (wrist: Int, pinky: Int, index: Int) {
            switch self {
            case .left: return (15, 17, 19)
            case .right: return (16, 18, 20)
            }
        }
    }

    /// The wrist visibility (after smoothing) a hand needs to be looked for: strictly more than
    /// 0.1, compared in `Double` as MediaPipe's `ThresholdingCalculator` does.
    package static let minimumWristVisibility = 0.1

    /// The region the hand-recrop model looks at, or nil when the wrist is not visible enough.
    ///
    /// In pixels, with the middle knuckle estimated as `m = (2·index + pinky)/3`: centre m,
    /// side `2·‖m − wrist‖`, rotation from the wrist to m with target 90°; then shifted up by a
    /// tenth of its height, squared and scaled by 2.7.
    ///
    /// - Parameters:
    ///   - poseLandmarks: the 33 pose landmarks, normalized to the image.
    ///   - side: which hand.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    /// - Throws: ``PipelineInputError/tooFewLandmarks(needed:available:)`` for fewer than 21.
    package static func region(
        poseLandmarks: [RawLandmark], side: Side, imageWidth: Int, imageHeight: Int
    ) throws -> NormalizedRect? {
        guard poseLandmarks.count >= 21 else {
            throw PipelineInputError.tooFewLandmarks(needed: 21, available: poseLandmarks.count)
        }
        let indices = side.poseLandmarks
        let wrist = poseLandmarks[indices.wrist]
        guard Double(wrist.visibility) > minimumWristVisibility else { return nil }
        let rect = rectFromPose(
            wrist: wrist.point, pinky: poseLandmarks[indices.pinky].point, index: poseLandmarks[indices.index].point,
            imageWidth: imageWidth, imageHeight: imageHeight)
        return RectTransformation.handRegionFromPose.apply(to: rect, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// MediaPipe's `HandDetectionsFromPoseToRectsCalculator`, in `Float` and pixels.
    static func rectFromPose(
        wrist: RelativePoint, pinky: RelativePoint, index: RelativePoint, imageWidth: Int, imageHeight: Int
    ) -> NormalizedRect {
        let width = Float(imageWidth), height = Float(imageHeight)
        let wristX = wrist.x * width, wristY = wrist.y * height
        let middleX = (2 * (index.x * width) + pinky.x * width) / 3
        let middleY = (2 * (index.y * height) + pinky.y * height) / 3
        let side = ((middleX - wristX) * (middleX - wristX) + (middleY - wristY) * (middleY - wristY)).squareRoot() * 2
        let rotation = normalizeRadians(Float(Double.pi / 2) - atan2(-(middleY - wristY), middleX - wristX))
        return NormalizedRect(
            xCenter: middleX / width, yCenter: middleY / height, width: side / width, height: side / height,
            rotation: rotation)
    }
}
