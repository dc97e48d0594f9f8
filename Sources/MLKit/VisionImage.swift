import ImageIO
import MediaPipeTasksVision

/// An image handed to a ``PoseDetector`` (ML Kit's `VisionImage`): RGB pixels plus the
/// ``orientation`` in which they are stored.
///
/// Set ``orientation`` as with ML Kit: how the stored pixels are turned, and for a front camera
/// mirrored, to be displayed upright (a back camera held upright gives `.right`, a front camera
/// `.leftMirrored`). Landmarks are then reported in pixels of that displayed image, ``width`` ×
/// ``height``. For a mirrored orientation the detector runs on the unmirrored upright image (the
/// camera's own view, in which a person's left is on the image's right) and mirrors the positions
/// into the displayed image, x → width − x; landmark types keep naming the person's own sides,
/// so `.leftWrist` is the person's left wrist wherever the mirrored view shows it.
///
/// Thread safety: not `Sendable` (``orientation`` is mutable): use an image from one thread at a time. The
/// detector copies what it needs when a call starts, so changing the image afterwards does not
/// affect a detection already under way.
public final class VisionImage {
    /// The stored pixels, layout `[bufferHeight, bufferWidth, 3]` RGB8 (ImageIO's type, so
    /// `package`, as `MPImage`'s: the public API is in ML Kit's terms).
    package let rgbImage: RGBImage
    /// How the stored pixels must be turned (and mirrored) to be displayed upright (UIKit's
    /// `UIImage.Orientation` meaning).
    public var orientation: ImageOrientation

    /// Width of the displayed image in pixels.
    public var width: Int { orientation.swapsDimensions ? rgbImage.height : rgbImage.width }
    /// Height of the displayed image in pixels.
    public var height: Int { orientation.swapsDimensions ? rgbImage.width : rgbImage.height }

    /// Wraps an `MPImage`; the orientation starts as the `MPImage`'s.
    public init(image: MPImage) {
        rgbImage = image.rgbImage
        orientation = image.orientation
    }

    /// Loads a PNG or JPEG file (EXIF orientation applied to the pixels, as `MPImage` does);
    /// orientation `.up`.
    public convenience init(contentsOfFile path: String) throws(MPImageError) {
        self.init(image: try MPImage(contentsOfFile: path))
    }

    /// Copies a pixel buffer (the analogue of ML Kit's `VisionImage(buffer:)`): rows of
    /// `width × format.bytesPerPixel` bytes, `rowStride` bytes apart (default: tightly packed);
    /// orientation `.up`.
    /// - Throws: `MPImageError` for a bad size, stride or buffer length.
    public convenience init(pixels: [UInt8], width: Int, height: Int, format: PixelFormat,
                            rowStride: Int? = nil) throws(MPImageError) {
        self.init(image: try MPImage(pixels: pixels, width: width, height: height, format: format,
                                     rowStride: rowStride))
    }

    /// Converts a YUV frame stored in one buffer (the analogue of ML Kit's
    /// `VisionImage(buffer:)` for V4L2, GStreamer and ffmpeg frames); orientation `.up`. See
    /// `MPImage(yuvBuffer:format:width:height:rowStride:colorSpace:chromaUpsampling:orientation:limits:)`
    /// for the layout and the conversion.
    /// - Throws: `MPImageError.invalidYUVFrame` for a bad size, stride or buffer length.
    public convenience init(
        yuvBuffer: [UInt8], format: YUVFormat, width: Int, height: Int, rowStride: Int? = nil,
        colorSpace: YUVColorSpace = .bt601Limited
    ) throws(MPImageError) {
        self.init(image: try MPImage(
            yuvBuffer: yuvBuffer, format: format, width: width, height: height, rowStride: rowStride,
            colorSpace: colorSpace))
    }

    /// What the detector runs on: the image with the current orientation, unmirrored, and
    /// whether positions must be mirrored into the displayed image.
    func detectorInput() -> DetectorInput {
        DetectorInput(
            image: MPImage(rgbImage: rgbImage, unmirroredOrientation: orientation.withoutMirroring),
            mirrorsPositions: orientation.isMirrored)
    }
}

/// A ``VisionImage`` as the ``PoseDetector`` processes it: the pose landmarker's unmirrored
/// input, and whether the displayed image is its mirror image (x → width − x).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
struct DetectorInput: Sendable {
    let image: MPImage
    let mirrorsPositions: Bool
}
