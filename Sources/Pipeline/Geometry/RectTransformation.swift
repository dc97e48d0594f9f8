#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scale, shift and square a ``NormalizedRect`` (MediaPipe `RectTransformationCalculator`,
/// docs/PIPELINE.md, "Rect transformation"). Only the options the pose, hand and face graphs use are
/// modelled: a common scale for x and y, a shift along the rect's own y axis, and `square_long`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RectTransformation: Sendable, Hashable {
    /// Multiplies the width and the height (after squaring).
    package var scale: Float
    /// Shift of the centre along the rect's rotated y axis, as a fraction of its height before
    /// squaring. Negative moves towards the rect's top (towards the fingers for hand ROIs).
    package var shiftY: Float
    /// Make the rect square in pixels with side = the longer side.
    package var squareLong: Bool

    package init(scale: Float, shiftY: Float = 0, squareLong: Bool = true) {
        self.scale = scale
        self.shiftY = shiftY
        self.squareLong = squareLong
    }

    /// Pose ROI, from a detection (docs/PIPELINE.md, "Pose ROI from a detection") and from
    /// landmarks for the next frame (docs/PIPELINE.md, "Pose tracking"): scale 1.25, no shift,
    /// square_long.
    package static let pose = RectTransformation(scale: 1.25)
    /// Hand ROI from a palm detection (docs/PIPELINE.md, "Hand ROI from a palm"): scale 2.6,
    /// shift_y −0.5, square_long.
    package static let handFromPalm = RectTransformation(scale: 2.6, shiftY: -0.5)
    /// Hand ROI for the next frame from landmarks (docs/PIPELINE.md, "Hand tracking"): scale 2.0,
    /// shift_y −0.1, square_long.
    package static let handFromLandmarks = RectTransformation(scale: 2.0, shiftY: -0.1)
    /// Face ROI, from a detection and from landmarks for the next frame (docs/PIPELINE.md,
    /// "Face ROI from a detection", "Face tracking"): scale 1.5, no shift, square_long.
    package static let face = RectTransformation(scale: 1.5)
    /// Holistic: the region searched for a face, from the pose's face landmarks
    /// (docs/PIPELINE.md, "Holistic face"): scale 3, no shift, square_long.
    package static let faceRegionFromPose = RectTransformation(scale: 3)
    /// Holistic: the face ROI from a face detection in that region (docs/PIPELINE.md,
    /// "Holistic face"): scale 2, shift_y −0.1, square_long.
    package static let faceFromRegionDetection = RectTransformation(scale: 2, shiftY: -0.1)
    /// Holistic: the region the hand-recrop model looks at, from the pose's wrist, pinky and
    /// index landmarks (docs/PIPELINE.md, "Holistic hands"): scale 2.7, shift_y −0.1, square_long.
    package static let handRegionFromPose = RectTransformation(scale: 2.7, shiftY: -0.1)
    /// Holistic: the hand ROI from the hand-recrop model's two points (docs/PIPELINE.md,
    /// "Holistic hands"): scale 1, shift_y −0.1, square_long.
    package static let handFromRecrop = RectTransformation(scale: 1, shiftY: -0.1)

    /// Applies the transformation; the rotation is kept as is (not re-normalized).
    ///
    /// 1. Shift, using the pre-square size: with θ = 0, `y_c += h·shift_y`; otherwise in pixels
    ///    `Δx = −h·H·shift_y·sin θ`, `Δy = h·H·shift_y·cos θ`.
    /// 2. square_long: `side = max(w·W, h·H)`, `w = side/W`, `h = side/H`.
    /// 3. `w ·= scale`, `h ·= scale`.
    package func apply(to rect: NormalizedRect, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let imageW = Float(imageWidth)
        let imageH = Float(imageHeight)
        var result = rect
        var width = rect.width
        var height = rect.height
        if rect.rotation == 0 {
            result.yCenter += height * shiftY
        } else {
            let xShift = -(imageH * height * shiftY * sin(rect.rotation)) / imageW
            let yShift = (imageH * height * shiftY * cos(rect.rotation)) / imageH
            result.xCenter += xShift
            result.yCenter += yShift
        }
        if squareLong {
            let longSide = max(width * imageW, height * imageH)
            width = longSide / imageW
            height = longSide / imageH
        }
        result.width = width * scale
        result.height = height * scale
        return result
    }
}
