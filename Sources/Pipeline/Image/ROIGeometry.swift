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

/// A projective map from tensor pixel (x, y) to image pixel
/// `((m0 x + m1 y + m2) / w, (m3 x + m4 y + m5) / w)`, `w = m6 x + m7 y + m8`, in double.
struct ProjectiveMap: Sendable {
    let m: (Double, Double, Double, Double, Double, Double, Double, Double, Double)

    /// The map sending tensor corners (0, 0), (W_t, 0), (W_t, H_t), (0, H_t) to `topLeft`,
    /// `topRight`, `bottomRight`, `bottomLeft` — what `cv::getPerspectiveTransform` of MediaPipe's
    /// corner pairs followed by the inversion inside `cv::warpPerspective` yields, computed in
    /// closed form (unit square → quadrilateral). `nil` for a degenerate quadrilateral.
    init?(topLeft: (x: Float, y: Float), topRight: (x: Float, y: Float), bottomRight: (x: Float, y: Float),
          bottomLeft: (x: Float, y: Float), tensorWidth: Int, tensorHeight: Int) {
        let x0 = Double(topLeft.x), y0 = Double(topLeft.y)
        let x1 = Double(topRight.x), y1 = Double(topRight.y)
        let x2 = Double(bottomRight.x), y2 = Double(bottomRight.y)
        let x3 = Double(bottomLeft.x), y3 = Double(bottomLeft.y)
        let sumX = x0 - x1 + x2 - x3, sumY = y0 - y1 + y2 - y3
        let a, b, c, d, e, f, g, h: Double
        if sumX == 0 && sumY == 0 {
            (a, b, c, d, e, f, g, h) = (x1 - x0, x2 - x1, x0, y1 - y0, y2 - y1, y0, 0, 0)
        } else {
            let dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2
            let determinant = dx1 * dy2 - dx2 * dy1
            guard determinant != 0, determinant.isFinite else { return nil }
            g = (sumX * dy2 - dx2 * sumY) / determinant
            h = (dx1 * sumY - sumX * dy1) / determinant
            (a, b, c) = (x1 - x0 + g * x1, x3 - x0 + h * x3, x0)
            (d, e, f) = (y1 - y0 + g * y1, y3 - y0 + h * y3, y0)
        }
        let tensorWidth = Double(tensorWidth), tensorHeight = Double(tensorHeight)
        m = (a / tensorWidth, b / tensorHeight, c, d / tensorWidth, e / tensorHeight, f,
             g / tensorWidth, h / tensorHeight, 1)
        guard a * e - b * d != 0, [m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7].allSatisfy(\.isFinite) else { return nil }
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
