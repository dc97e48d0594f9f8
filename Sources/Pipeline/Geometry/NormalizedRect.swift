/// A rotated rectangle in normalized image coordinates (MediaPipe `NormalizedRect`): the
/// centre and size are fractions of the image width (x, width) and height (y, height);
/// `rotation` is in radians, positive = clockwise on screen (y points down).
///
/// A rect's local coordinates (u, v) in pixels from the centre map to image pixels as
/// `p = c + R(θ)·(u, v)` with `R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct NormalizedRect: Sendable, Hashable, Codable {
    package var xCenter: Float
    package var yCenter: Float
    package var width: Float
    package var height: Float
    package var rotation: Float

    package init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
        self.xCenter = xCenter
        self.yCenter = yCenter
        self.width = width
        self.height = height
        self.rotation = rotation
    }

    /// The axis-aligned box `(x_c ± w/2, y_c ± h/2)`, rotation ignored, as MediaPipe's rect
    /// IoU uses it (docs/PIPELINE.md, "ROI association").
    package var axisAlignedBox: RelativeBox {
        RelativeBox(xmin: xCenter - width / 2, ymin: yCenter - height / 2, width: width, height: height)
    }
}
