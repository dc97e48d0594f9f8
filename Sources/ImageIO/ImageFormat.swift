/// The encoded image formats this module reads.
public enum ImageFormat: String, Sendable, Hashable, CustomStringConvertible {
    case png = "PNG"
    case jpeg = "JPEG"

    public var description: String { rawValue }

    /// The PNG signature, 8 bytes.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Identifies the format from the leading bytes (magic numbers), never from a file name.
    ///
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A`. JPEG: SOI followed by a marker, `FF D8 FF`.
    /// - Returns: `nil` when the bytes match neither.
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> ImageFormat? {
        if bytes.count >= pngSignature.count, zip(bytes, pngSignature).allSatisfy({ $0 == $1 }) {
            return .png
        }
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF {
            return .jpeg
        }
        return nil
    }

    /// Identifies the format from the leading bytes; see ``sniff(_:)-(UnsafeRawBufferPointer)``.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
        bytes.withUnsafeBytes { sniff($0) }
    }
}
