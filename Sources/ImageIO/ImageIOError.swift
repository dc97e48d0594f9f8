/// Everything that can go wrong while reading, decoding or encoding an image.
///
/// Every failure caused by a file, a byte buffer or a size is reported with one of these
/// cases; nothing in this module traps on hostile input.
public enum ImageIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read (`reason` is the system's message).
    case fileUnreadable(path: String, reason: String)
    /// The file could not be created or written (`reason` is the system's message).
    case fileUnwritable(path: String, reason: String)
    /// The file or buffer is larger than `DecodeLimits.maxEncodedByteCount`.
    case encodedDataTooLarge(byteCount: Int, limit: Int)
    /// The buffer is empty.
    case emptyData
    /// The leading bytes match no supported format (PNG, JPEG). `leadingBytes` holds up to 8 of them.
    case unknownFormat(leadingBytes: [UInt8])
    /// The header declares a width or height of 0.
    case zeroDimension(width: Int, height: Int)
    /// The header declares more pixels than `DecodeLimits.maxPixelCount` (checked before allocating).
    case tooLarge(width: Int, height: Int, maxPixelCount: Int)
    /// The data is truncated or corrupt; `message` is libpng's or TurboJPEG's own text.
    case corruptData(format: ImageFormat, message: String)
    /// The data is valid but uses a feature this decoder does not convert to RGB (e.g. CMYK JPEG).
    case unsupported(format: ImageFormat, message: String)
    /// A pixel buffer handed to an encoder does not match its declared size or layout.
    case invalidPixelBuffer(String)
    /// The encoder itself failed; `message` is the library's text.
    case encodeFailed(format: ImageFormat, message: String)

    public var description: String {
        switch self {
        case let .fileUnreadable(path, reason):
            return "cannot read image file '\(path)': \(reason)"
        case let .fileUnwritable(path, reason):
            return "cannot write image file '\(path)': \(reason)"
        case let .encodedDataTooLarge(byteCount, limit):
            return "encoded image is \(byteCount) bytes, more than the limit of \(limit) bytes"
        case .emptyData:
            return "image data is empty"
        case let .unknownFormat(leadingBytes):
            let hex = leadingBytes.map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return digits.count == 1 ? "0" + digits : digits
            }.joined(separator: " ")
            return "unknown image format (leading bytes: \(hex)); only PNG and JPEG are supported"
        case let .zeroDimension(width, height):
            return "image has a zero dimension (\(width)x\(height))"
        case let .tooLarge(width, height, maxPixelCount):
            return "image is \(width)x\(height), more than the limit of \(maxPixelCount) pixels"
        case let .corruptData(format, message):
            return "corrupt or truncated \(format) data: \(message)"
        case let .unsupported(format, message):
            return "unsupported \(format) image: \(message)"
        case let .invalidPixelBuffer(message):
            return "invalid pixel buffer: \(message)"
        case let .encodeFailed(format, message):
            return "\(format) encoding failed: \(message)"
        }
    }
}
