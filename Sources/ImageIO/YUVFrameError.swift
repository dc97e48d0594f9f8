/// Why a YUV frame handed to ``YUVConversion`` cannot be converted. Every check runs before a
/// byte of the frame is read.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum YUVFrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The widest frame libyuv's 32-bit sizes can convert: its RGB rows (`3 × width` bytes)
    /// must fit in an `Int32`.
    public static let maximumWidth = Int(Int32.max) / 3
    /// The highest frame libyuv's 32-bit sizes can convert.
    public static let maximumHeight = Int(Int32.max)
    /// The largest row stride libyuv accepts (`Int32.max` bytes).
    public static let maximumRowStride = Int(Int32.max)

    /// Width or height is not positive.
    case invalidDimensions(width: Int, height: Int)
    /// More pixels than `DecodeLimits.maxPixelCount`.
    case tooLarge(width: Int, height: Int, maxPixelCount: Int)
    /// Wider than ``maximumWidth`` or higher than ``maximumHeight`` (possible only with a raised
    /// `DecodeLimits.maxPixelCount`).
    case exceedsLibyuvLimits(width: Int, height: Int)
    /// The format packs pixel pairs (YUYV) and the width is odd.
    case oddWidth(format: YUVFormat, width: Int)
    /// The number of planes or of row strides is not the format's plane count.
    case wrongPlaneCount(format: YUVFormat, planes: Int, rowStrides: Int)
    /// A plane's row stride is shorter than one row of its samples or longer than
    /// ``maximumRowStride``.
    case rowStrideOutOfRange(plane: String, rowStride: Int, allowed: ClosedRange<Int>)
    /// The memory holding a plane ends before the plane's last row does: `required` bytes are
    /// needed from the start of that memory, `byteCount` are there.
    case bufferTooSmall(plane: String, byteCount: Int, required: Int)

    public var description: String {
        switch self {
        case let .invalidDimensions(width, height):
            return "YUV frame size \(width)x\(height) must be positive"
        case let .tooLarge(width, height, maxPixelCount):
            return "YUV frame is \(width)x\(height), more than the limit of \(maxPixelCount) pixels"
        case let .exceedsLibyuvLimits(width, height):
            return "YUV frame is \(width)x\(height); libyuv converts frames of at most "
                + "\(Self.maximumWidth) x \(Self.maximumHeight) pixels"
        case let .oddWidth(format, width):
            return "\(format) frames pack two pixels per group, so the width must be even, got \(width)"
        case let .wrongPlaneCount(format, planes, rowStrides):
            return "\(format) frames have \(format.planeNames.count) planes "
                + "(\(format.planeNames.joined(separator: ", "))), got \(planes) planes and \(rowStrides) row strides"
        case let .rowStrideOutOfRange(plane, rowStride, allowed):
            return "row stride \(rowStride) of plane \(plane) must be in \(allowed.lowerBound)...\(allowed.upperBound) "
                + "(at least one row of its samples)"
        case let .bufferTooSmall(plane, byteCount, required):
            return "plane \(plane) needs \(required) bytes of the buffer holding it, which has \(byteCount)"
        }
    }
}
