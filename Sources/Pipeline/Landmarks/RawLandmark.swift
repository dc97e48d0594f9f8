/// A landmark in normalized coordinates: `x` and `y` as fractions of the width and height of
/// the frame it was decoded in (the model crop, then the image after projection), `z` at
/// roughly the scale of `x` (divided by the same width), smaller = closer to the camera.
///
/// `visibility` and `presence` are probabilities in `[0, 1]` (after the sigmoid); models that
/// do not predict them (the hand landmark models) leave them 0.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RawLandmark: Sendable, Hashable, Codable {
    package var x: Float
    package var y: Float
    package var z: Float
    package var visibility: Float
    package var presence: Float

    package init(x: Float, y: Float, z: Float, visibility: Float = 0, presence: Float = 0) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }

    /// The (x, y) position as a point.
    package var point: RelativePoint { RelativePoint(x: x, y: y) }
}

/// A world landmark: x, y, z in metres, origin at the object's centre (between the hips for
/// poses, the hand's approximate geometric centre for hands); x right, y down as in the image.
/// `visibility` and `presence` are copied from the normalized landmark (poses) or 0 (hands).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RawWorldLandmark: Sendable, Hashable, Codable {
    package var x: Float
    package var y: Float
    package var z: Float
    package var visibility: Float
    package var presence: Float

    package init(x: Float, y: Float, z: Float, visibility: Float = 0, presence: Float = 0) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}
