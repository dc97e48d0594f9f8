import CLibPNG

/// PNG decoding and encoding with libpng's simplified API (`png_image_*`).
///
/// The simplified API reports failures in `png_image.warning_or_error` / `message` instead of
/// longjmp-ing out of the caller (which Swift frames cannot survive), so every libpng error
/// becomes an ``ImageIOError`` here.
public enum PNGCodec {
    /// Pixel layouts the encoder accepts; all are 8 bits per channel, rows tightly packed.
    public enum PixelLayout: Sendable, Hashable {
        /// 3 bytes per pixel: R, G, B. Layout `[H, W, 3]`.
        case rgb8
        /// 4 bytes per pixel: R, G, B, A (straight, not premultiplied, alpha). Layout `[H, W, 4]`.
        case rgba8
        /// 1 byte per pixel: gray. Layout `[H, W]`.
        case gray8

        /// Bytes per pixel.
        public var channels: Int {
            switch self {
            case .rgb8: return 3
            case .rgba8: return 4
            case .gray8: return 1
            }
        }

        var pngFormat: png_uint_32 {
            switch self {
            case .rgb8: return LANDMARKER_PNG_FORMAT_RGB
            case .rgba8: return LANDMARKER_PNG_FORMAT_RGBA
            case .gray8: return LANDMARKER_PNG_FORMAT_GRAY
            }
        }
    }

    /// Decodes PNG bytes to RGB8.
    ///
    /// Every PNG color type and bit depth is accepted: gray is replicated to R = G = B, palettes
    /// are expanded, 16-bit channels are scaled to 8 bits (16-bit data without a gAMA/sRGB chunk
    /// is taken as sRGB-encoded, not linear), and an alpha channel (RGBA, gray+alpha, or a
    /// palette with tRNS) is **dropped**, not composited: the color channels are kept as stored.
    /// Color-management chunks (`gAMA`, `cHRM`, `sRGB`, `iCCP`, ...) are ignored, as OpenCV,
    /// Pillow and MediaPipe ignore them: the samples are returned as stored, never converted
    /// (see ``PNGColorChunks``).
    ///
    /// The header's size is checked against `limits` before the pixel buffer is allocated.
    public static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(ImageIOError) -> RGBImage {
        guard !bytes.isEmpty else { throw .emptyData }
        guard bytes.count <= limits.maxEncodedByteCount else {
            throw .encodedDataTooLarge(byteCount: bytes.count, limit: limits.maxEncodedByteCount)
        }
        // libpng keeps the pointer between `begin` and `finish`, so both run while the
        // stripped bytes are pinned.
        let stripped = PNGColorChunks.stripped(bytes)
        return try stripped.withUnsafeBytes { buffer in
            Result { () throws(ImageIOError) in try decodeStored(buffer, limits: limits) }
        }.get()
    }

    /// Decodes PNG bytes that stay valid for the whole call; see ``decode(_:limits:)``.
    private static func decodeStored(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws(ImageIOError) -> RGBImage {
        var image = png_image()
        image.version = LANDMARKER_PNG_IMAGE_VERSION
        defer { png_image_free(&image) }

        let began = png_image_begin_read_from_memory(&image, bytes.baseAddress, bytes.count)
        guard began != 0 else {
            throw .corruptData(format: .png, message: message(of: &image))
        }
        let width = Int(image.width)
        let height = Int(image.height)
        try limits.check(width: width, height: height)

        let hasAlpha = image.format & LANDMARKER_PNG_FORMAT_FLAG_ALPHA != 0
        let channels = hasAlpha ? 4 : 3
        image.format = hasAlpha ? LANDMARKER_PNG_FORMAT_RGBA : LANDMARKER_PNG_FORMAT_RGB
        image.flags |= LANDMARKER_PNG_IMAGE_FLAG_16BIT_sRGB

        // The pixel cap keeps width * height * 4 far below Int.max and the row stride far
        // below Int32.max (64e6 * 4 < 2^31).
        guard let byteCount = RGBImage.byteCount(width: width, height: height, channels: channels),
              let rowStride = Int32(exactly: width * channels) else {
            throw .tooLarge(width: width, height: height, maxPixelCount: limits.maxPixelCount)
        }
        var decoded = [UInt8](repeating: 0, count: byteCount)
        let finished = decoded.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, nil, buffer.baseAddress, rowStride, nil)
        }
        guard finished != 0, image.warning_or_error & 0x03 < LANDMARKER_PNG_IMAGE_ERROR else {
            throw .corruptData(format: .png, message: message(of: &image))
        }
        if hasAlpha {
            decoded = dropAlpha(decoded, pixelCount: width * height)
        }
        return RGBImage(validatedWidth: width, height: height, pixels: decoded)
    }

    /// Reads and decodes the PNG file at `path`; see ``decode(_:limits:)``.
    public static func decode(contentsOfFile path: String, limits: DecodeLimits = DecodeLimits()) throws(ImageIOError) -> RGBImage {
        try decode(FileBytes.readAll(path: path, limit: limits.maxEncodedByteCount), limits: limits)
    }

    /// Encodes tightly packed 8-bit pixels as a PNG (sRGB, non-interlaced).
    /// - Parameters:
    ///   - pixels: `width × height × layout.channels` bytes, row-major.
    /// - Throws: ``ImageIOError/invalidPixelBuffer(_:)`` when the sizes do not match;
    ///   ``ImageIOError/encodeFailed(format:message:)`` when libpng fails.
    public static func encode(pixels: [UInt8], width: Int, height: Int, layout: PixelLayout) throws(ImageIOError) -> [UInt8] {
        guard width > 0, height > 0 else {
            throw .invalidPixelBuffer("PNG size \(width)x\(height) must be positive")
        }
        guard let expected = RGBImage.byteCount(width: width, height: height, channels: layout.channels),
              pixels.count == expected else {
            throw .invalidPixelBuffer(
                "\(layout) image \(width)x\(height) needs \(layout.channels) bytes per pixel, got \(pixels.count) bytes")
        }
        guard let pngWidth = png_uint_32(exactly: width), let pngHeight = png_uint_32(exactly: height),
              let rowStride = Int32(exactly: width * layout.channels) else {
            throw .invalidPixelBuffer("PNG size \(width)x\(height) exceeds the format's limits")
        }

        var image = png_image()
        image.version = LANDMARKER_PNG_IMAGE_VERSION
        image.width = pngWidth
        image.height = pngHeight
        image.format = layout.pngFormat
        defer { png_image_free(&image) }

        // First pass: ask libpng how many bytes the stream needs.
        var size: png_alloc_size_t = 0
        let measured = pixels.withUnsafeBytes { buffer in
            png_image_write_to_memory(&image, nil, &size, 0, buffer.baseAddress, rowStride, nil)
        }
        guard measured != 0, size > 0, let byteCount = Int(exactly: size) else {
            throw .encodeFailed(format: .png, message: message(of: &image))
        }
        var encoded = [UInt8](repeating: 0, count: byteCount)
        let written = encoded.withUnsafeMutableBytes { output in
            pixels.withUnsafeBytes { input in
                png_image_write_to_memory(&image, output.baseAddress, &size, 0, input.baseAddress, rowStride, nil)
            }
        }
        guard written != 0, let finalCount = Int(exactly: size), finalCount <= byteCount else {
            throw .encodeFailed(format: .png, message: message(of: &image))
        }
        encoded.removeLast(byteCount - finalCount)
        return encoded
    }

    /// Encodes like ``encode(pixels:width:height:layout:)`` and writes the PNG to `path`.
    public static func write(pixels: [UInt8], width: Int, height: Int, layout: PixelLayout, toFile path: String) throws(ImageIOError) {
        try FileBytes.writeAll(encode(pixels: pixels, width: width, height: height, layout: layout), path: path)
    }

    /// Encodes an ``RGBImage`` as a PNG.
    public static func encode(_ image: RGBImage) throws(ImageIOError) -> [UInt8] {
        try encode(pixels: image.pixels, width: image.width, height: image.height, layout: .rgb8)
    }

    /// libpng's message from a failed simplified-API call.
    private static func message(of image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw -> String in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
        return text.isEmpty ? "libpng reported an error without a message" : text
    }

    /// RGBA → RGB by discarding every fourth byte.
    private static func dropAlpha(_ rgba: [UInt8], pixelCount: Int) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: pixelCount * 3)
        rgba.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { destination in
                for pixel in 0..<pixelCount {
                    destination[3 * pixel] = source[4 * pixel]
                    destination[3 * pixel + 1] = source[4 * pixel + 1]
                    destination[3 * pixel + 2] = source[4 * pixel + 2]
                }
            }
        }
        return rgb
    }
}
