import ImageIO
import Pipeline

/// An image handed to the vision tasks (the MediaPipe Tasks `MPImage`): 8-bit RGB pixels plus
/// the orientation in which they are stored.
///
/// The pixels are kept exactly as stored. The landmarkers turn them upright by exact quarter turns,
/// so no pixel is resampled to honour the orientation; `fullImageROI` is the same region expressed
/// as MediaPipe's Tasks API does, a rotated full-image region of interest (docs/PIPELINE.md,
/// "Image orientation"). ``width`` and ``height`` are those of the upright image (swapped for
/// `.left`/`.right`), like `UIImage.size`.
///
/// Files: the format is sniffed from the bytes. A JPEG's EXIF orientation is **applied to the
/// pixels at load** (all eight values, mirrored ones included, exact pixel moves), so the stored
/// pixels are the photo as a viewer shows it; the `orientation` argument then describes a
/// further rotation declared by the caller, as with `UIImage(cgImage:scale:orientation:)`.
///
/// Thread safety: `MPImage` is immutable, hence `Sendable`: share it freely between threads,
/// also with several landmarkers at once.
public final class MPImage: Sendable {
    /// The stored pixels, layout `[bufferHeight, bufferWidth, 3]` RGB8 (ImageIO's type, so
    /// `package`: the public API is in MediaPipe's terms).
    package let rgbImage: RGBImage
    /// How the stored pixels must be turned to appear upright; never mirrored.
    public let orientation: ImageOrientation

    /// Width of the upright image in pixels (the buffer height for `.left`/`.right`).
    public var width: Int { orientation.swapsDimensions ? rgbImage.height : rgbImage.width }
    /// Height of the upright image in pixels (the buffer width for `.left`/`.right`).
    public var height: Int { orientation.swapsDimensions ? rgbImage.width : rgbImage.height }

    /// Wraps decoded RGB pixels.
    /// - Throws: ``MPImageError/mirroredOrientationUnsupported(_:)`` for mirrored orientations.
    package convenience init(rgbImage: RGBImage, orientation: ImageOrientation = .up) throws(MPImageError) {
        guard !orientation.isMirrored else { throw .mirroredOrientationUnsupported(orientation) }
        self.init(rgbImage: rgbImage, unmirroredOrientation: orientation)
    }

    /// Wraps decoded RGB pixels whose orientation is known to be unmirrored.
    package init(rgbImage: RGBImage, unmirroredOrientation orientation: ImageOrientation) {
        precondition(!orientation.isMirrored, "MPImage orientation .\(orientation) is mirrored")
        self.rgbImage = rgbImage
        self.orientation = orientation
    }

    /// Loads a PNG or JPEG file (format sniffed from its bytes; see the type's notes on EXIF).
    public convenience init(contentsOfFile path: String, orientation: ImageOrientation = .up,
                            limits: DecodeLimits = DecodeLimits()) throws(MPImageError) {
        let decoded: DecodedImage
        do {
            decoded = try ImageDecoder.decode(contentsOfFile: path, limits: limits)
        } catch {
            throw .decodeFailed(error)
        }
        try self.init(decoded: decoded, orientation: orientation)
    }

    /// Decodes PNG or JPEG bytes (format sniffed; see the type's notes on EXIF).
    public convenience init(data: [UInt8], orientation: ImageOrientation = .up,
                            limits: DecodeLimits = DecodeLimits()) throws(MPImageError) {
        let decoded: DecodedImage
        do {
            decoded = try ImageDecoder.decode(data, limits: limits)
        } catch {
            throw .decodeFailed(error)
        }
        try self.init(decoded: decoded, orientation: orientation)
    }

    private convenience init(decoded: DecodedImage, orientation: ImageOrientation) throws(MPImageError) {
        let upright = decoded.exifOrientation.map { decoded.image.applyingExifOrientation($0) } ?? decoded.image
        try self.init(rgbImage: upright, orientation: orientation)
    }

    /// Copies raw 8-bit pixels, converting them to RGB8.
    /// - Parameters:
    ///   - pixels: rows of `width × format.bytesPerPixel` bytes, `rowStride` bytes apart
    ///     (default: tightly packed). Only `(height − 1) × rowStride + width × bytesPerPixel`
    ///     bytes are read.
    ///   - width: pixels per row.
    ///   - height: rows.
    ///   - format: RGBA/BGRA alpha is dropped; gray is replicated to R = G = B.
    ///   - rowStride: bytes from the start of one row to the next; nil for `width × bytesPerPixel`.
    ///   - orientation: how the pixels are turned relative to upright; not mirrored.
    ///   - limits: the largest accepted pixel count.
    /// - Throws: ``MPImageError`` for a non-positive size, a stride shorter than a row, a buffer
    ///   too short, a size over `limits.maxPixelCount`, an overflowing size, or a mirrored orientation.
    public convenience init(pixels: UnsafeRawBufferPointer, width: Int, height: Int, format: PixelFormat,
                            rowStride: Int? = nil, orientation: ImageOrientation = .up,
                            limits: DecodeLimits = DecodeLimits()) throws(MPImageError) {
        guard !orientation.isMirrored else { throw .mirroredOrientationUnsupported(orientation) }
        let image = try Self.rgbImage(pixels: pixels, width: width, height: height, format: format,
                                      rowStride: rowStride, limits: limits)
        try self.init(rgbImage: image, orientation: orientation)
    }

    /// Copies raw 8-bit pixels from an array; see ``init(pixels:width:height:format:rowStride:orientation:limits:)-(UnsafeRawBufferPointer,_,_,_,_,_,_)``.
    public convenience init(pixels: [UInt8], width: Int, height: Int, format: PixelFormat,
                            rowStride: Int? = nil, orientation: ImageOrientation = .up,
                            limits: DecodeLimits = DecodeLimits()) throws(MPImageError) {
        guard !orientation.isMirrored else { throw .mirroredOrientationUnsupported(orientation) }
        // Array.withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
        let converted = pixels.withUnsafeBytes { buffer in
            Result { () throws(MPImageError) -> RGBImage in
                try Self.rgbImage(pixels: buffer, width: width, height: height, format: format,
                                  rowStride: rowStride, limits: limits)
            }
        }
        try self.init(rgbImage: converted.get(), orientation: orientation)
    }

    /// Validates a raw buffer's geometry and converts it to RGB8.
    private static func rgbImage(pixels: UnsafeRawBufferPointer, width: Int, height: Int, format: PixelFormat,
                                 rowStride: Int?, limits: DecodeLimits) throws(MPImageError) -> RGBImage {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        let (pixelCount, pixelOverflow) = width.multipliedReportingOverflow(by: height)
        guard !pixelOverflow, pixelCount <= limits.maxPixelCount else {
            throw .tooLarge(width: width, height: height, maxPixelCount: limits.maxPixelCount)
        }
        let bytesPerPixel = format.bytesPerPixel
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: bytesPerPixel)
        guard !rowOverflow else { throw .sizeOverflow }
        let stride = rowStride ?? rowBytes
        guard stride >= rowBytes else { throw .rowStrideTooSmall(rowStride: stride, minimum: rowBytes) }
        let (lastRowStart, startOverflow) = (height - 1).multipliedReportingOverflow(by: stride)
        let (required, requiredOverflow) = lastRowStart.addingReportingOverflow(rowBytes)
        guard !startOverflow, !requiredOverflow else { throw .sizeOverflow }
        guard pixels.count >= required else { throw .bufferTooSmall(byteCount: pixels.count, required: required) }
        let (rgbCount, rgbOverflow) = pixelCount.multipliedReportingOverflow(by: 3)
        guard !rgbOverflow else { throw .sizeOverflow }

        // Every source index is < required and every destination index < rgbCount.
        var rgb = [UInt8](repeating: 0, count: rgbCount)
        rgb.withUnsafeMutableBufferPointer { destination in
            for y in 0..<height {
                let sourceRow = y * stride
                let targetRow = y * width * 3
                for x in 0..<width {
                    let source = sourceRow + x * bytesPerPixel
                    let target = targetRow + x * 3
                    switch format {
                    case .rgb8, .rgba8:
                        destination[target] = pixels[source]
                        destination[target + 1] = pixels[source + 1]
                        destination[target + 2] = pixels[source + 2]
                    case .bgra8:
                        destination[target] = pixels[source + 2]
                        destination[target + 1] = pixels[source + 1]
                        destination[target + 2] = pixels[source]
                    case .gray8:
                        let gray = pixels[source]
                        destination[target] = gray
                        destination[target + 1] = gray
                        destination[target + 2] = gray
                    }
                }
            }
        }
        do {
            return try RGBImage(width: width, height: height, pixels: rgb)
        } catch {
            throw .decodeFailed(error)
        }
    }

    /// The region of interest covering the whole image as the Tasks API builds it for this
    /// orientation (docs/PIPELINE.md, "Image orientation"), in stored-pixel coordinates: centre at
    /// the buffer centre, rotation ``ImageOrientation/roiRotation``, and for `.left`/`.right` the
    /// normalized width and height swapped and rescaled by the aspect ratio, so the sampled rect is
    /// the upright image turned back onto the buffer.
    package var fullImageROI: RotatedPixelRect {
        let normalizedWidth: Float, normalizedHeight: Float
        if orientation.swapsDimensions {
            normalizedWidth = Float(Double(rgbImage.height) / Double(rgbImage.width))
            normalizedHeight = Float(Double(rgbImage.width) / Double(rgbImage.height))
        } else {
            normalizedWidth = 1
            normalizedHeight = 1
        }
        return RotatedPixelRect(
            normalizedXCenter: 0.5, yCenter: 0.5, width: normalizedWidth, height: normalizedHeight,
            rotation: orientation.roiRotation, imageWidth: rgbImage.width, imageHeight: rgbImage.height)
    }

    /// The pixels turned upright (exact quarter turns), layout `[height, width, 3]`.
    package func uprightRGBImage() -> RGBImage {
        switch orientation.clockwiseQuarterTurns {
        case 1: return rgbImage.applyingExifOrientation(.rightTop)
        case 2: return rgbImage.applyingExifOrientation(.bottomRight)
        case 3: return rgbImage.applyingExifOrientation(.leftBottom)
        default: return rgbImage
        }
    }
}
