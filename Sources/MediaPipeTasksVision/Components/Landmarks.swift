/// A landmark in normalized image coordinates, mirroring the iOS `NormalizedLandmark`.
///
/// JSON keys: `x`, `y`, `z`, `visibility`, `presence` (the last two omitted when nil).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct NormalizedLandmark: Codable, Sendable, Equatable {
    /// Horizontal position divided by the image width: 0 = left edge, 1 = right edge
    /// (values outside [0, 1] are off-image).
    public var x: Float
    /// Vertical position divided by the image height: 0 = top edge, 1 = bottom edge.
    public var y: Float
    /// Depth, divided by the image width like `x`; smaller is closer to the camera. The origin
    /// is the hip midpoint for poses and the wrist for hands.
    public var z: Float
    /// Likelihood in [0, 1] that the landmark is visible (in frame and not occluded);
    /// nil where the model has no such output (hands). iOS: `NSNumber?`.
    public var visibility: Float?
    /// Likelihood in [0, 1] that the landmark is in the frame; nil where the model has no such
    /// output (hands). iOS: `NSNumber?`.
    public var presence: Float?

    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}

/// A landmark in world coordinates, mirroring the iOS `Landmark`.
///
/// Metres, with the origin at the hip midpoint (poses) or at the hand's
/// geometric centre (hands). JSON keys: `x`, `y`, `z`, `visibility`, `presence`.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct Landmark: Codable, Sendable, Equatable {
    /// Metres.
    public var x: Float
    /// Metres.
    public var y: Float
    /// Metres.
    public var z: Float
    /// As in `NormalizedLandmark.visibility`.
    public var visibility: Float?
    /// As in `NormalizedLandmark.presence`.
    public var presence: Float?

    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.visibility = visibility
        self.presence = presence
    }
}
