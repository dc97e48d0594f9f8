import CTurboJPEG

/// JPEG decoding and encoding with the TurboJPEG 2.x API, which reports errors through return
/// codes and `tjGetErrorStr2` (never by longjmp-ing into the caller).
public enum JPEGCodec {
    /// Decodes baseline or progressive JPEG bytes to RGB8 (libjpeg's accurate integer IDCT and
    /// smooth chroma upsampling, the same defaults as Pillow).
    ///
    /// The EXIF orientation is **not** applied here; read it with ``ExifOrientation/fromJPEG(_:)-([UInt8])``.
    /// Progressive files with an unreasonable number of scans are refused (TurboJPEG's
    /// `TJFLAG_LIMITSCANS`), and libjpeg warnings (for example a truncated file, which libjpeg
    /// would pad with gray) are reported as ``ImageIOError/corruptData(format:message:)``.
    /// CMYK/YCCK files give ``ImageIOError/unsupported(format:message:)``.
    public static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(ImageIOError) -> RGBImage {
        guard !bytes.isEmpty else { throw .emptyData }
        guard bytes.count <= limits.maxEncodedByteCount else {
            throw .encodedDataTooLarge(byteCount: bytes.count, limit: limits.maxEncodedByteCount)
        }
        guard let handle = tjInitDecompress() else {
            throw .corruptData(format: .jpeg, message: "cannot create a TurboJPEG decompressor")
        }
        defer { tjDestroy(handle) }

        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let headerStatus = bytes.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(handle, buffer.baseAddress, UInt(buffer.count),
                                &width, &height, &subsampling, &colorspace)
        }
        guard headerStatus == 0 else {
            throw .corruptData(format: .jpeg, message: errorMessage(handle))
        }
        // TurboJPEG 2.1 reports success with a 0x0 size when the stream ends before the
        // frame header; libjpeg itself never accepts a zero-sized frame.
        guard width > 0, height > 0 else {
            throw .corruptData(format: .jpeg, message: "no frame header (SOF) before the end of the data")
        }
        if colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue) {
            throw .unsupported(format: .jpeg, message: "CMYK/YCCK JPEG images cannot be converted to RGB")
        }
        try limits.check(width: Int(width), height: Int(height))
        // The pixel cap keeps width * height * 3 and the row pitch far below Int32.max.
        guard let byteCount = RGBImage.byteCount(width: Int(width), height: Int(height), channels: 3),
              let pitch = Int32(exactly: Int(width) * 3) else {
            throw .tooLarge(width: Int(width), height: Int(height), maxPixelCount: limits.maxPixelCount)
        }

        var pixels = [UInt8](repeating: 0, count: byteCount)
        let status = pixels.withUnsafeMutableBufferPointer { output in
            bytes.withUnsafeBufferPointer { input in
                tjDecompress2(handle, input.baseAddress, UInt(input.count), output.baseAddress,
                              width, pitch, height, Int32(TJPF_RGB.rawValue),
                              LANDMARKER_TJFLAG_LIMITSCANS | LANDMARKER_TJFLAG_ACCURATEDCT)
            }
        }
        guard status == 0 else {
            throw .corruptData(format: .jpeg, message: errorMessage(handle))
        }
        return RGBImage(validatedWidth: Int(width), height: Int(height), pixels: pixels)
    }

    /// Reads and decodes the JPEG file at `path`; see ``decode(_:limits:)``.
    public static func decode(contentsOfFile path: String, limits: DecodeLimits = DecodeLimits()) throws(ImageIOError) -> RGBImage {
        try decode(FileBytes.readAll(path: path, limit: limits.maxEncodedByteCount), limits: limits)
    }

    /// Encodes an RGB8 image as a baseline JPEG with 4:4:4 chroma (no subsampling).
    /// - Parameter quality: 1…100.
    /// - Throws: ``ImageIOError/invalidPixelBuffer(_:)`` for a quality outside 1…100 or a size
    ///   beyond the format's 65535-pixel limit; ``ImageIOError/encodeFailed(format:message:)``.
    public static func encode(_ image: RGBImage, quality: Int = 95) throws(ImageIOError) -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw .invalidPixelBuffer("JPEG quality \(quality) is outside 1...100")
        }
        guard image.width <= 65535, image.height <= 65535 else {
            throw .invalidPixelBuffer("JPEG size \(image.width)x\(image.height) exceeds 65535 pixels")
        }
        guard let handle = tjInitCompress() else {
            throw .encodeFailed(format: .jpeg, message: "cannot create a TurboJPEG compressor")
        }
        defer { tjDestroy(handle) }

        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { tjFree(output) }
        let status = image.pixels.withUnsafeBufferPointer { input in
            tjCompress2(handle, input.baseAddress, Int32(image.width), Int32(image.width * 3),
                        Int32(image.height), Int32(TJPF_RGB.rawValue), &output, &size,
                        Int32(TJSAMP_444.rawValue), Int32(quality), LANDMARKER_TJFLAG_ACCURATEDCT)
        }
        guard status == 0, let output, let count = Int(exactly: size) else {
            throw .encodeFailed(format: .jpeg, message: errorMessage(handle))
        }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    private static func errorMessage(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "TurboJPEG reported an error without a message" }
        return String(cString: text)
    }
}
