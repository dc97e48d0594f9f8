import ImageIO

/// `MPImage`s from YUV camera and video frames (a Linux addition: iOS hands over `CVPixelBuffer`s).
///
/// The frame is converted to RGB8 at once by libyuv (`YUVConversion` in ImageIO); the image keeps no
/// reference to the caller's memory. Defaults: BT.601 limited range, what V4L2 cameras and SD
/// video deliver (pass ``YUVColorSpace/bt709Limited`` for HD video, ``YUVColorSpace/bt601Full``
/// for MJPEG webcams), and linear chroma upsampling.
extension MPImage {
    /// Converts a YUV frame stored in one buffer, planes one after the other: V4L2's
    /// single-planar formats with `rowStride` its `bytesperline`, or `ffmpeg -f rawvideo`
    /// output (tightly packed, no `rowStride`). See
    /// `YUVConversion.rgbImage(buffer:format:width:height:rowStride:colorSpace:chromaUpsampling:limits:)` (ImageIO)
    /// for the layout.
    /// - Throws: ``MPImageError/invalidYUVFrame(_:)`` for a bad size, stride or buffer length;
    ///   ``MPImageError/mirroredOrientationUnsupported(_:)`` for a mirrored orientation.
    public convenience init(
        yuvBuffer: UnsafeRawBufferPointer, format: YUVFormat, width: Int, height: Int, rowStride: Int? = nil,
        colorSpace: YUVColorSpace = .bt601Limited, chromaUpsampling: YUVChromaUpsampling = .linear,
        orientation: ImageOrientation = .up, limits: DecodeLimits = DecodeLimits()
    ) throws(MPImageError) {
        guard !orientation.isMirrored else { throw .mirroredOrientationUnsupported(orientation) }
        let image: RGBImage
        do {
            image = try YUVConversion.rgbImage(
                buffer: yuvBuffer, format: format, width: width, height: height, rowStride: rowStride,
                colorSpace: colorSpace, chromaUpsampling: chromaUpsampling, limits: limits)
        } catch {
            throw .invalidYUVFrame(error)
        }
        try self.init(rgbImage: image, orientation: orientation)
    }

    /// Converts a YUV frame stored in an array; see
    /// ``init(yuvBuffer:format:width:height:rowStride:colorSpace:chromaUpsampling:orientation:limits:)-(UnsafeRawBufferPointer,_,_,_,_,_,_,_,_)``.
    public convenience init(
        yuvBuffer: [UInt8], format: YUVFormat, width: Int, height: Int, rowStride: Int? = nil,
        colorSpace: YUVColorSpace = .bt601Limited, chromaUpsampling: YUVChromaUpsampling = .linear,
        orientation: ImageOrientation = .up, limits: DecodeLimits = DecodeLimits()
    ) throws(MPImageError) {
        guard !orientation.isMirrored else { throw .mirroredOrientationUnsupported(orientation) }
        // Array.withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
        let converted = yuvBuffer.withUnsafeBytes { buffer in
            Result { () throws(YUVFrameError) -> RGBImage in
                try YUVConversion.rgbImage(
                    buffer: buffer, format: format, width: width, height: height, rowStride: rowStride,
                    colorSpace: colorSpace, chromaUpsampling: chromaUpsampling, limits: limits)
            }
        }
        let image: RGBImage
        do {
            image = try converted.get()
        } catch {
            throw .invalidYUVFrame(error)
        }
        try self.init(rgbImage: image, orientation: orientation)
    }

    /// Converts a YUV frame whose planes lie in separate memory: ffmpeg's `AVFrame` (`data[i]`,
    /// `linesize[i]`), a GStreamer buffer at its `GstVideoInfo` offsets and strides, V4L2's
    /// multi-planar formats. `planes` are in `YUVFormat.planeNames` order, each starting at
    /// its first row, `rowStrides` one per plane. See
    /// `YUVConversion.rgbImage(planes:rowStrides:format:width:height:colorSpace:chromaUpsampling:limits:)` (ImageIO).
    /// - Throws: ``MPImageError/invalidYUVFrame(_:)`` for a bad size, plane count, stride or
    ///   buffer length; ``MPImageError/mirroredOrientationUnsupported(_:)`` for a mirrored orientation.
    public convenience init(
        yuvPlanes planes: [UnsafeRawBufferPointer], rowStrides: [Int], format: YUVFormat, width: Int, height: Int,
        colorSpace: YUVColorSpace = .bt601Limited, chromaUpsampling: YUVChromaUpsampling = .linear,
        orientation: ImageOrientation = .up, limits: DecodeLimits = DecodeLimits()
    ) throws(MPImageError) {
        guard !orientation.isMirrored else { throw .mirroredOrientationUnsupported(orientation) }
        let image: RGBImage
        do {
            image = try YUVConversion.rgbImage(
                planes: planes, rowStrides: rowStrides, format: format, width: width, height: height,
                colorSpace: colorSpace, chromaUpsampling: chromaUpsampling, limits: limits)
        } catch {
            throw .invalidYUVFrame(error)
        }
        try self.init(rgbImage: image, orientation: orientation)
    }
}
