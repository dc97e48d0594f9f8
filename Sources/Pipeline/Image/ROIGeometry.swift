#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The geometry shared by the ROI warps: letterboxing, MediaPipe's ROI matrix, and the maps from
/// tensor pixels to image pixels.
enum ROIGeometry {
    /// MediaPipe's `PadRoi` (docs/PIPELINE.md, "ROI to tensor"), in float32 as MediaPipe computes
    /// it. Returns the enlarged size and the horizontal and vertical padding fractions.
    static func letterbox(width: Float, height: Float, tensorWidth: Int, tensorHeight: Int)
        -> (width: Float, height: Float, horizontal: Float, vertical: Float) {
        let tensorAspect = Float(tensorHeight) / Float(tensorWidth)
        let roiAspect = height / width
        if tensorAspect > roiAspect {
            return (width, width * tensorAspect, 0, (1 - roiAspect / tensorAspect) / 2)
        }
        return (height / tensorAspect, height, (1 - tensorAspect / roiAspect) / 2, 0)
    }

    /// MediaPipe's `GetRotatedSubRectToRectTransformMatrix` without flip (docs/PIPELINE.md,
    /// "ROI to tensor"), in float32: 4×4 row-major, tensor-normalized (u, v) of the ROI →
    /// image-normalized (x, y); z scales like x.
    static func roiMatrix(centerX e: Float, centerY f: Float, width a: Float, height b: Float, rotation: Float,
                          imageWidth: Int, imageHeight: Int) -> [Float] {
        let c = cosf(rotation), d = sinf(rotation)
        let g = 1 / Float(imageWidth), h = 1 / Float(imageHeight)
        return [
            a * c * g, -b * d * g, 0, (-0.5 * a * c + 0.5 * b * d + e) * g,
            a * d * h, b * c * h, 0, (-0.5 * b * c - 0.5 * a * d + f) * h,
            0, 0, a * g, 0,
            0, 0, 0, 1,
        ]
    }

    /// The four corners of an OpenCV `RotatedRect` as `cv::boxPoints` computes them in float32:
    /// bottom-left, top-left, top-right, bottom-right of the unrotated rect. `angleDegrees` is the
    /// float32 angle MediaPipe builds as `rotation × 180.f / M_PI`.
    static func boxPoints(centerX: Float, centerY: Float, width: Float, height: Float, angleDegrees: Float)
        -> [(x: Float, y: Float)] {
        let radians = Double(angleDegrees) * Double.pi / 180
        let b = Float(cos(radians)) * 0.5
        let a = Float(sin(radians)) * 0.5
        let p0 = (x: centerX - a * height - b * width, y: centerY + b * height - a * width)
        let p1 = (x: centerX + a * height - b * width, y: centerY - b * height - a * width)
        let p2 = (x: 2 * centerX - p0.x, y: 2 * centerY - p0.y)
        let p3 = (x: 2 * centerX - p1.x, y: 2 * centerY - p1.y)
        return [p0, p1, p2, p3]
    }

    /// MediaPipe's float32 rotation angle in degrees: `rotation * 180.f` in float, divided by
    /// `M_PI` in double, stored back as float.
    static func mediaPipeAngleDegrees(rotation: Float) -> Float {
        Float(Double(rotation * 180) / Double.pi)
    }
}
