import ImageIO

/// How the stored pixels are oriented relative to the upright image, with the meaning of
/// UIKit's `UIImage.Orientation`: `.right` means the stored pixels must be turned 90° clockwise
/// to appear upright, `.left` 90° counter-clockwise, `.down` 180°.
///
/// Mirrored cases (a front camera's preview, in ML Kit's guide `.leftMirrored` for a phone held
/// upright) mean the displayed image is also flipped left to right. ``MPImage`` refuses them, as
/// MediaPipe Tasks does on iOS; `VisionImage` (module `MLKit`) accepts them, as ML Kit does.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum ImageOrientation: Sendable, Hashable, CaseIterable {
    case up, down, left, right
    case upMirrored, downMirrored, leftMirrored, rightMirrored

    /// Whether this is one of the four mirrored orientations.
    public var isMirrored: Bool {
        switch self {
        case .up, .down, .left, .right: return false
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: return true
        }
    }

    /// Whether the upright image has width and height swapped relative to the stored pixels.
    public var swapsDimensions: Bool {
        switch self {
        case .left, .right, .leftMirrored, .rightMirrored: return true
        case .up, .down, .upMirrored, .downMirrored: return false
        }
    }

    /// The unmirrored orientation of the same camera frame: the displayed image of a mirrored
    /// orientation is the upright image of this one flipped left to right (`.upMirrored` →
    /// `.up`, `.downMirrored` → `.down`, `.leftMirrored` → `.right`, `.rightMirrored` →
    /// `.left`, with UIKit's meanings, which are EXIF's 2, 4, 5 and 7). Unmirrored cases map to
    /// themselves.
    package var withoutMirroring: ImageOrientation {
        switch self {
        case .up, .upMirrored: return .up
        case .down, .downMirrored: return .down
        case .right, .leftMirrored: return .right
        case .left, .rightMirrored: return .left
        }
    }

    /// The clockwise quarter turns that bring the stored pixels upright (0…3), for unmirrored cases.
    var clockwiseQuarterTurns: Int {
        switch self {
        case .up, .upMirrored: return 0
        case .right, .rightMirrored: return 1
        case .down, .downMirrored: return 2
        case .left, .leftMirrored: return 3
        }
    }

    /// The rotation of the full-image region of interest that makes the model see the image
    /// upright (docs/PIPELINE.md, "Image orientation"), in radians: up 0, right 3π/2 (≡ −π/2), down
    /// π, left π/2. Ignores mirroring.
    public var roiRotation: Float {
        switch clockwiseQuarterTurns {
        case 1: return Float(270.0 * Double.pi / 180.0)
        case 2: return Float(180.0 * Double.pi / 180.0)
        case 3: return Float(90.0 * Double.pi / 180.0)
        default: return 0
        }
    }

    /// The orientation matching an EXIF orientation tag (the usual UIKit mapping:
    /// 1 up, 2 upMirrored, 3 down, 4 downMirrored, 5 leftMirrored, 6 right, 7 rightMirrored, 8 left).
    public init(exif: ExifOrientation) {
        switch exif {
        case .topLeft: self = .up
        case .topRight: self = .upMirrored
        case .bottomRight: self = .down
        case .bottomLeft: self = .downMirrored
        case .leftTop: self = .leftMirrored
        case .rightTop: self = .right
        case .rightBottom: self = .rightMirrored
        case .leftBottom: self = .left
        }
    }
}
