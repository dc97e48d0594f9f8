/// Why an image-to-tensor conversion or a mask warp was refused.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
package enum ImageWarpError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The region of interest has a non-finite field or a non-positive size
    /// (MediaPipe's width-0/height-0 "sentinel" rect must be skipped by the caller).
    case invalidROI(RotatedPixelRect)
    /// An output or image size is not positive, or its element count overflows.
    case invalidSize(width: Int, height: Int)
    /// The value range is not finite or has `min >= max`.
    case invalidValueRange(min: Float, max: Float)
    /// A caller-supplied buffer holds fewer elements than required.
    case bufferTooSmall(count: Int, required: Int)

    package var description: String {
        switch self {
        case let .invalidROI(roi):
            return "invalid region of interest (centre \(roi.centerX), \(roi.centerY); size \(roi.width)x\(roi.height); rotation \(roi.rotation)): fields must be finite and the size positive"
        case let .invalidSize(width, height):
            return "invalid size \(width)x\(height): both must be positive and the element count must fit in memory"
        case let .invalidValueRange(min, max):
            return "invalid value range [\(min), \(max)]: bounds must be finite with min < max"
        case let .bufferTooSmall(count, required):
            return "buffer holds \(count) elements, \(required) are required"
        }
    }
}
