/// Resource limits applied while decoding untrusted images.
///
/// Both limits are checked before any large allocation: the byte count before a file is read,
/// the pixel count from the image header before the pixel buffer is allocated.
public struct DecodeLimits: Sendable, Hashable {
    /// The largest accepted `width × height`, in pixels. Default: 64 megapixels (64,000,000).
    public var maxPixelCount: Int
    /// The largest accepted encoded file or buffer, in bytes. Default: 256 MiB.
    public var maxEncodedByteCount: Int

    public init(maxPixelCount: Int = 64_000_000, maxEncodedByteCount: Int = 256 << 20) {
        self.maxPixelCount = maxPixelCount
        self.maxEncodedByteCount = maxEncodedByteCount
    }

    /// Throws unless `width` and `height` are positive and their product fits the pixel cap.
    func check(width: Int, height: Int) throws(ImageIOError) {
        guard width > 0, height > 0 else {
            throw .zeroDimension(width: width, height: height)
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixelCount else {
            throw .tooLarge(width: width, height: height, maxPixelCount: maxPixelCount)
        }
    }
}
