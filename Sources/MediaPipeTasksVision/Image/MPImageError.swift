import ImageIO

/// Why an ``MPImage`` could not be created.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum MPImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Reading or decoding the file or bytes failed.
    case decodeFailed(ImageIOError)
    /// Mirrored orientations are refused, as MediaPipe Tasks does on iOS.
    case mirroredOrientationUnsupported(ImageOrientation)
    /// Width or height is not positive.
    case invalidDimensions(width: Int, height: Int)
    /// More pixels than the `DecodeLimits.maxPixelCount` cap.
    case tooLarge(width: Int, height: Int, maxPixelCount: Int)
    /// The row stride is shorter than one row of pixels (`width × bytesPerPixel`).
    case rowStrideTooSmall(rowStride: Int, minimum: Int)
    /// The buffer ends before the last pixel of the last row.
    case bufferTooSmall(byteCount: Int, required: Int)
    /// A size computation overflowed `Int`.
    case sizeOverflow
    /// A YUV frame's size, planes, strides or buffer do not fit together (see `YUVFrameError` (ImageIO)).
    case invalidYUVFrame(YUVFrameError)

    public var description: String {
        switch self {
        case let .decodeFailed(error):
            return "cannot load image: \(error)"
        case let .mirroredOrientationUnsupported(orientation):
            return "mirrored orientation .\(orientation) is not supported"
        case let .invalidDimensions(width, height):
            return "image size \(width)x\(height) must be positive"
        case let .tooLarge(width, height, maxPixelCount):
            return "image is \(width)x\(height), more than the limit of \(maxPixelCount) pixels"
        case let .rowStrideTooSmall(rowStride, minimum):
            return "row stride \(rowStride) is smaller than one row of pixels (\(minimum) bytes)"
        case let .bufferTooSmall(byteCount, required):
            return "pixel buffer has \(byteCount) bytes, the image needs \(required)"
        case .sizeOverflow:
            return "image size overflows"
        case let .invalidYUVFrame(error):
            return "invalid YUV frame: \(error)"
        }
    }
}
