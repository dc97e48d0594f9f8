/// A rotated rectangle in image pixel coordinates: the region of interest that an image-to-tensor
/// warp samples.
///
/// Conventions (docs/PIPELINE.md, "Conventions"): x right, y down, integer coordinates at pixel
/// centres. A local offset (u, v) from the centre (u along the rect width, v along its height, in
/// pixels) lands at `center + R(rotation)·(u, v)`, `R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]`; with
/// y down a positive rotation turns clockwise on screen.
///
/// Stored in `Double`. The warp (``ImageToTensor``) rounds every field to `Float` first, as
/// MediaPipe holds them.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RotatedPixelRect: Sendable, Hashable {
    /// Centre x, pixels.
    package var centerX: Double
    /// Centre y, pixels.
    package var centerY: Double
    /// Extent along the rect's own x axis, pixels.
    package var width: Double
    /// Extent along the rect's own y axis, pixels.
    package var height: Double
    /// Radians, clockwise on screen.
    package var rotation: Double

    package init(centerX: Double, centerY: Double, width: Double, height: Double, rotation: Double = 0) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The pixel rect of a MediaPipe `NormalizedRect` (centre and size normalized by the image
    /// width and height), with the products rounded to `Float` exactly as MediaPipe's
    /// `ImageToTensorCalculator` computes them.
    package init(normalizedXCenter xCenter: Float, yCenter: Float, width: Float, height: Float,
                rotation: Float, imageWidth: Int, imageHeight: Int) {
        let imageWidth = Float(imageWidth), imageHeight = Float(imageHeight)
        self.init(centerX: Double(xCenter * imageWidth), centerY: Double(yCenter * imageHeight),
                  width: Double(width * imageWidth), height: Double(height * imageHeight),
                  rotation: Double(rotation))
    }

    /// The pixel rect of a MediaPipe `NormalizedRect`: ``init(normalizedXCenter:yCenter:width:height:rotation:imageWidth:imageHeight:)``
    /// with the rect's fields.
    package init(_ rect: NormalizedRect, imageWidth: Int, imageHeight: Int) {
        self.init(normalizedXCenter: rect.xCenter, yCenter: rect.yCenter, width: rect.width, height: rect.height,
                  rotation: rect.rotation, imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// The whole image, unrotated: centre (W/2, H/2), size W × H.
    package static func fullImage(width: Int, height: Int) -> RotatedPixelRect {
        RotatedPixelRect(centerX: Double(Float(width) * 0.5), centerY: Double(Float(height) * 0.5),
                         width: Double(width), height: Double(height))
    }

    /// Whether every field is finite and the size is positive (MediaPipe's `ValidateRoi`).
    var isValid: Bool {
        centerX.isFinite && centerY.isFinite && width.isFinite && height.isFinite && rotation.isFinite
            && width > 0 && height > 0
    }
}
