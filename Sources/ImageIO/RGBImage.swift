/// An 8-bit RGB image: `height` rows of `width` pixels, each pixel 3 bytes R, G, B.
///
/// Layout: `[H, W, 3]` UInt8, row-major, tightly packed (row stride `3 × width` bytes);
/// pixel (x, y) starts at byte `3 × (y × width + x)`.
public struct RGBImage: Sendable, Hashable {
    /// Width in pixels (> 0).
    public let width: Int
    /// Height in pixels (> 0).
    public let height: Int
    /// `width × height × 3` bytes, layout `[H, W, 3]`.
    public let pixels: [UInt8]

    /// Wraps a tightly packed RGB8 buffer.
    /// - Throws: ``ImageIOError/invalidPixelBuffer(_:)`` unless both sizes are positive and
    ///   `pixels.count == width × height × 3`.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(ImageIOError) {
        guard width > 0, height > 0 else {
            throw .invalidPixelBuffer("RGB image size \(width)x\(height) must be positive")
        }
        guard let expected = Self.byteCount(width: width, height: height, channels: 3),
              pixels.count == expected else {
            throw .invalidPixelBuffer(
                "RGB image \(width)x\(height) needs width*height*3 bytes, got \(pixels.count)")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// For sizes already validated by the caller.
    init(validatedWidth width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGB buffer size mismatch")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The R, G, B bytes of pixel (x, y), or `nil` outside the image.
    public subscript(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8)? {
        guard x >= 0, x < width, y >= 0, y < height else { return nil }
        let offset = 3 * (y * width + x)
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// `width × height × channels`, or `nil` on overflow.
    static func byteCount(width: Int, height: Int, channels: Int) -> Int? {
        let (pixels, overflow1) = width.multipliedReportingOverflow(by: height)
        let (bytes, overflow2) = pixels.multipliedReportingOverflow(by: channels)
        return overflow1 || overflow2 ? nil : bytes
    }
}
