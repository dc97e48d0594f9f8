/// A decoded image together with what the container said about it.
public struct DecodedImage: Sendable, Hashable {
    /// The pixels exactly as stored (the EXIF orientation is not applied).
    public let image: RGBImage
    /// The format found by sniffing the leading bytes.
    public let format: ImageFormat
    /// The EXIF orientation of a JPEG, `nil` for PNG or when the file has none.
    public let exifOrientation: ExifOrientation?
}

/// Format-agnostic decoding: the format is chosen from the leading bytes, never the file name.
public enum ImageDecoder {
    /// Decodes PNG or JPEG bytes to RGB8; see ``PNGCodec/decode(_:limits:)`` and
    /// ``JPEGCodec/decode(_:limits:)`` for the per-format conversions.
    /// - Throws: ``ImageIOError/unknownFormat(leadingBytes:)`` when the bytes are neither.
    public static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(ImageIOError) -> DecodedImage {
        guard !bytes.isEmpty else { throw .emptyData }
        switch ImageFormat.sniff(bytes) {
        case .png:
            return DecodedImage(image: try PNGCodec.decode(bytes, limits: limits), format: .png, exifOrientation: nil)
        case .jpeg:
            let image = try JPEGCodec.decode(bytes, limits: limits)
            return DecodedImage(image: image, format: .jpeg, exifOrientation: ExifOrientation.fromJPEG(bytes))
        case nil:
            throw .unknownFormat(leadingBytes: Array(bytes.prefix(8)))
        }
    }

    /// Reads the file at `path` (refusing files over `limits.maxEncodedByteCount` before reading)
    /// and decodes it; see ``decode(_:limits:)``.
    public static func decode(contentsOfFile path: String, limits: DecodeLimits = DecodeLimits()) throws(ImageIOError) -> DecodedImage {
        try decode(FileBytes.readAll(path: path, limit: limits.maxEncodedByteCount), limits: limits)
    }
}
