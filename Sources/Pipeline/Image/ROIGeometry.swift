#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The geometry shared by the ROI warps: letterboxing, MediaPipe's ROI matrix, and the maps from
/// tensor pixels to image pixels.
enum ROIGeometry {
    /// MediaPipe's `PadRoi` (docs/PIPELINE.md, "ROI to tensor"), generic so that the float32 and
    /// float64 paths each round as their reference does. Returns the enlarged size and the
    /// horizontal and vertical padding fractions.
    static func letterbox<T: BinaryFloatingPoint>(width: T, height: T, tensorWidth: Int, tensorHeight: Int)
        -> (width: T, height: T, horizontal: T, vertical: T) {
        let tensorAspect = T(tensorHeight) / T(tensorWidth)
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

/// An affine map from tensor pixel (x, y) to image pixel `(m0 x + m1 y + m2, m3 x + m4 y + m5)`
/// with float32 coefficients, as `cv::warpAffine` (OpenCV ≥ 4.11) holds them.
struct AffineMapF32: Sendable {
    let m0, m1, m2, m3, m4, m5: Float

    /// The inverse map of a rotated ROI: tensor pixel (i, j) → `c + R(θ)·(i·roiW/W_t − roiW/2, …)`,
    /// computed in double and rounded to float32 once.
    init(roi: RotatedPixelRect, tensorWidth: Int, tensorHeight: Int) {
        let c = cos(roi.rotation), s = sin(roi.rotation)
        let scaleX = roi.width / Double(tensorWidth), scaleY = roi.height / Double(tensorHeight)
        m0 = Float(c * scaleX)
        m1 = Float(-s * scaleY)
        m2 = Float(roi.centerX - (c * roi.width) / 2 + (s * roi.height) / 2)
        m3 = Float(s * scaleX)
        m4 = Float(c * scaleY)
        m5 = Float(roi.centerY - (s * roi.width) / 2 - (c * roi.height) / 2)
    }
}
