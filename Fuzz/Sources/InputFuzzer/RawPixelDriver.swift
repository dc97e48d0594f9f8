import FuzzSupport
import ImageIO
import MediaPipeTasksVision

/// The geometry of a raw pixel buffer, read from the front of the input:
///
///     flags (1 byte) ++ width (Int64 LE) ++ height (Int64 LE)
///       ++ [row stride (Int64 LE), if flags bit 5] ++ pixel bytes
///
/// flags: bits 0–1 the pixel format (`PixelFormat.allCases`), bits 2–4 the
/// orientation (`ImageOrientation.allCases`), bit 5 an explicit row stride,
/// bit 6 the `[UInt8]` initializer instead of the raw-buffer one, bit 7 no
/// pixel cap (`maxPixelCount: .max`, as a caller may pass) instead of the
/// default one. Header bytes past the end of the input read as zero. Sizes are
/// full 64-bit values, so negative, huge and overflowing geometries all occur.
struct RawPixelHeader {
    var format: PixelFormat
    var orientation: ImageOrientation
    var width: Int
    var height: Int
    var rowStride: Int?
    var fromArray: Bool
    var uncapped: Bool

    var limits: DecodeLimits { uncapped ? DecodeLimits(maxPixelCount: .max) : DecodeLimits() }

    /// The header at the front of `bytes`, and the pixel bytes after it.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> (RawPixelHeader, pixels: UnsafeRawBufferPointer) {
        var cursor = 0
        func next(_ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<count where cursor + index < bytes.count {
                value |= UInt64(bytes[cursor + index]) << (8 * UInt64(index))
            }
            cursor += count
            return value
        }
        let flags = next(1)
        let width = Int(truncatingIfNeeded: next(8))
        let height = Int(truncatingIfNeeded: next(8))
        let rowStride = flags & 0x20 != 0 ? Int(truncatingIfNeeded: next(8)) : nil
        let header = RawPixelHeader(
            format: PixelFormat.allCases[Int(flags & 0x3)],
            orientation: ImageOrientation.allCases[Int(flags >> 2 & 0x7)],
            width: width, height: height, rowStride: rowStride, fromArray: flags & 0x40 != 0,
            uncapped: flags & 0x80 != 0)
        return (header, UnsafeRawBufferPointer(rebasing: bytes[min(cursor, bytes.count)...]))
    }

    /// This header followed by `pixels`, as `parse` reads it.
    func encoded(pixels: [UInt8]) -> [UInt8] {
        let formatIndex = PixelFormat.allCases.firstIndex(of: format)!
        let orientationIndex = ImageOrientation.allCases.firstIndex(of: orientation)!
        var flags = UInt8(formatIndex) | UInt8(orientationIndex) << 2
        if rowStride != nil { flags |= 0x20 }
        if fromArray { flags |= 0x40 }
        if uncapped { flags |= 0x80 }
        func littleEndian(_ value: Int) -> [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: Int64(value)) >> (8 * UInt64($0))) }
        }
        return [flags] + littleEndian(width) + littleEndian(height) + (rowStride.map(littleEndian) ?? []) + pixels
    }
}

/// `MPImage` from a raw pixel buffer: an absurd geometry must be refused
/// before anything is allocated, by the pixel cap or, without one, by the
/// buffer's length.
enum RawPixelDriver {
    static func makeImage(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let (header, pixels) = RawPixelHeader.parse(bytes)
        let image: MPImage
        do {
            if header.fromArray {
                image = try MPImage(pixels: Array(pixels), width: header.width, height: header.height,
                                    format: header.format, rowStride: header.rowStride, orientation: header.orientation,
                                    limits: header.limits)
            } else {
                // The fuzzer's own buffer: a read past its end is an address-sanitizer report.
                image = try MPImage(pixels: pixels, width: header.width, height: header.height,
                                    format: header.format, rowStride: header.rowStride, orientation: header.orientation,
                                    limits: header.limits)
            }
        } catch {
            return FuzzCheck.refused(error)
        }
        let stored = image.rgbImage
        FuzzCheck.requireConsistent(stored, "raw pixels")
        FuzzCheck.require(stored.width == header.width && stored.height == header.height,
                          "\(header.width)x\(header.height) pixels became \(stored.width)x\(stored.height)")
        checkLastPixel(stored, header: header, pixels: pixels)
        let upright = image.uprightRGBImage()
        FuzzCheck.requireConsistent(upright, "upright raw pixels")
        FuzzCheck.require(upright.width == image.width && upright.height == image.height,
                          "upright image \(upright.width)x\(upright.height) of a \(image.width)x\(image.height) MPImage")
        let region = image.fullImageROI
        FuzzCheck.require(region.width.isFinite && region.height.isFinite, "non-finite full-image region")
        return .parsed("\(header.format) \(stored.width)x\(stored.height), \(header.orientation)")
    }

    /// The last stored pixel is the source's last pixel, converted: it sits
    /// at the far end of the rows and strides, where a wrong offset shows.
    private static func checkLastPixel(_ image: RGBImage, header: RawPixelHeader, pixels: UnsafeRawBufferPointer) {
        let bytesPerPixel = header.format.bytesPerPixel
        let rowStride = header.rowStride ?? header.width * bytesPerPixel
        let source = (header.height - 1) * rowStride + (header.width - 1) * bytesPerPixel
        let expected: (UInt8, UInt8, UInt8)
        switch header.format {
        case .rgb8, .rgba8: expected = (pixels[source], pixels[source + 1], pixels[source + 2])
        case .bgra8: expected = (pixels[source + 2], pixels[source + 1], pixels[source])
        case .gray8: expected = (pixels[source], pixels[source], pixels[source])
        }
        let actual = image[image.width - 1, image.height - 1]!
        FuzzCheck.require(actual == expected, "last pixel \(actual), source says \(expected)")
    }
}
