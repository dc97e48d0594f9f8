import FuzzSupport
import ImageIO
import MediaPipeTasksVision

/// The encoded-image parsers: PNG, JPEG through `MPImage(data:)`, and the EXIF
/// orientation reader.
enum ImageDrivers {
    /// `PNGCodec.decode`: colour-chunk stripping, then libpng.
    static func decodePNG(_ bytes: [UInt8]) -> Outcome {
        let image: RGBImage
        do {
            image = try PNGCodec.decode(bytes, limits: InputKind.decodeLimits)
        } catch {
            return FuzzCheck.refused(error)
        }
        FuzzCheck.requireConsistent(image, "PNG")
        FuzzCheck.require(image.width * image.height <= InputKind.decodeLimits.maxPixelCount,
                          "PNG of \(image.width)x\(image.height) passed the pixel cap")
        return .parsed("\(image.width)x\(image.height)")
    }

    /// `MPImage(data:)`: sniffing, PNG or JPEG decoding, the EXIF orientation
    /// applied to the pixels; then the upright copy and the full-image region.
    static func loadImageFile(_ bytes: [UInt8]) -> Outcome {
        let image: MPImage
        do {
            image = try MPImage(data: bytes, limits: InputKind.decodeLimits)
        } catch {
            return FuzzCheck.refused(error)
        }
        FuzzCheck.requireConsistent(image.rgbImage, "image file")
        FuzzCheck.require(image.width * image.height <= InputKind.decodeLimits.maxPixelCount,
                          "image of \(image.width)x\(image.height) passed the pixel cap")
        FuzzCheck.requireConsistent(image.uprightRGBImage(), "upright image")
        let region = image.fullImageROI
        FuzzCheck.require(region.width.isFinite && region.height.isFinite, "non-finite full-image region")
        return .parsed("\(image.width)x\(image.height) upright")
    }

    /// `ExifOrientation.fromJPEG` on the fuzzer's own buffer, so that a read
    /// past its end is an address-sanitizer report.
    static func readOrientation(jpeg bytes: UnsafeRawBufferPointer) -> Outcome {
        .parsed(describe(ExifOrientation.fromJPEG(bytes)))
    }

    /// The bytes as the TIFF part of an APP1 "Exif" segment: SOI, the APP1
    /// marker and length, `Exif\0\0`, then `tiff` (cut to the longest segment
    /// a JPEG can hold). The buffer ends where the segment ends and is
    /// allocated to that exact size, so a read past the segment is an
    /// address-sanitizer report.
    static func readOrientation(tiff: UnsafeRawBufferPointer) -> Outcome {
        let prefix: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1]
        let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]
        // The length field counts itself (2 bytes), the Exif header and the TIFF bytes.
        let tiffCount = min(tiff.count, Int(UInt16.max) - 2 - exifHeader.count)
        let segmentLength = 2 + exifHeader.count + tiffCount
        let jpeg = UnsafeMutableRawBufferPointer.allocate(byteCount: prefix.count + segmentLength, alignment: 1)
        defer { jpeg.deallocate() }
        let header = prefix + [UInt8(segmentLength >> 8), UInt8(segmentLength & 0xFF)] + exifHeader
        jpeg.copyBytes(from: header)
        UnsafeMutableRawBufferPointer(rebasing: jpeg[header.count...])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: tiff.prefix(tiffCount)))
        return .parsed(describe(ExifOrientation.fromJPEG(UnsafeRawBufferPointer(jpeg))))
    }

    private static func describe(_ orientation: ExifOrientation?) -> String {
        orientation.map { "EXIF orientation \($0.rawValue)" } ?? "no EXIF orientation"
    }
}
