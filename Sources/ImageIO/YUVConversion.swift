import CLibYUV

/// Converts 8-bit YUV frames (I420, NV12, YUYV) to RGB8 with libyuv, the conversion library
/// of Chromium and WebRTC (Debian's `libyuv-dev`).
///
/// Every frame is converted by libyuv's planar converters: I420 directly; NV12 after its UV
/// plane is split into U and V planes (`SplitUVPlane`); YUYV after it is split into Y, U and V
/// planes (`YUY2ToI422`). Then `I420ToRGB24MatrixFilter` / `I422ToRGB24MatrixFilter` apply the
/// colour matrix of a ``YUVColorSpace`` (for BT.709 limited range, after expanding the samples
/// to full range; see ``YUVColorSpace``) and the ``YUVChromaUpsampling``. Splitting only moves
/// bytes, so the RGB values are those libyuv computes from the original samples.
///
/// Thread safety: stateless; call it from any number of threads at once.
public enum YUVConversion {
    /// Converts a frame whose planes lie in separate memory, as ffmpeg's `AVFrame` (`data`,
    /// `linesize`) or a GStreamer buffer with its `GstVideoInfo` plane offsets and strides hold it.
    /// - Parameters:
    ///   - planes: one buffer per plane, in ``YUVFormat/planeNames`` order, each starting at the
    ///     plane's first row. Only `(rows − 1) × rowStride + row bytes` bytes of each are read.
    ///   - rowStrides: bytes from one row of each plane to the next; at least one row of the
    ///     plane's samples (``YUVFormat`` lists them), at most ``YUVFrameError/maximumRowStride``.
    ///   - width: frame width in pixels (> 0; even for YUYV).
    ///   - height: frame height in pixels (> 0).
    ///   - limits: `maxPixelCount` caps `width × height`.
    /// - Returns: the frame as RGB8, `[height, width, 3]`.
    /// - Throws: ``YUVFrameError`` for a bad size, plane count, stride or buffer length.
    public static func rgbImage(
        planes: [UnsafeRawBufferPointer], rowStrides: [Int], format: YUVFormat, width: Int, height: Int,
        colorSpace: YUVColorSpace = .bt601Limited, chromaUpsampling: YUVChromaUpsampling = .linear,
        limits: DecodeLimits = DecodeLimits()
    ) throws(YUVFrameError) -> RGBImage {
        let geometry = try YUVFrameGeometry.separate(
            planeByteCounts: planes.map(\.count), rowStrides: rowStrides, format: format, width: width,
            height: height, limits: limits)
        // The geometry holds every plane inside its buffer, and each is non-empty, so it has an address.
        let starts = planes.map { $0.baseAddress!.assumingMemoryBound(to: UInt8.self) }
        return convert(starts: starts, geometry: geometry, colorSpace: colorSpace, chromaUpsampling: chromaUpsampling)
    }

    /// Converts a frame stored in one buffer, its planes one after the other: V4L2's
    /// single-planar formats (`bytesperline` is `rowStride`), `ffmpeg -f rawvideo` output.
    ///
    /// Without `rowStride`, every plane is tightly packed (ffmpeg's `rawvideo` layout). With it,
    /// the first plane's rows are `rowStride` bytes apart, I420's U and V planes' `⌈rowStride / 2⌉`,
    /// NV12's UV plane's `rowStride` (V4L2's layout). Each plane starts right after the previous
    /// one's last full row; only the last plane's last row may end at its samples. (For layouts
    /// that pad otherwise, such as GStreamer's, pass the planes separately.)
    /// - Throws: ``YUVFrameError`` for a bad size, stride or buffer length.
    public static func rgbImage(
        buffer: UnsafeRawBufferPointer, format: YUVFormat, width: Int, height: Int, rowStride: Int? = nil,
        colorSpace: YUVColorSpace = .bt601Limited, chromaUpsampling: YUVChromaUpsampling = .linear,
        limits: DecodeLimits = DecodeLimits()
    ) throws(YUVFrameError) -> RGBImage {
        let geometry = try YUVFrameGeometry.contiguous(
            byteCount: buffer.count, format: format, width: width, height: height, rowStride: rowStride,
            limits: limits)
        // The geometry holds every plane inside the buffer, which is therefore non-empty.
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let starts = geometry.offsets.map { base + $0 }
        return convert(starts: starts, geometry: geometry, colorSpace: colorSpace, chromaUpsampling: chromaUpsampling)
    }

    /// Converts checked planes starting at `starts`.
    private static func convert(
        starts: [UnsafePointer<UInt8>], geometry: YUVFrameGeometry, colorSpace: YUVColorSpace,
        chromaUpsampling: YUVChromaUpsampling
    ) -> RGBImage {
        let width = geometry.width
        let height = geometry.height
        let strides = geometry.rowStrides
        let pixels: [UInt8]
        switch geometry.format {
        case .i420:
            pixels = PlanarYUV.rgb(
                y: starts[0], yStride: strides[0], u: starts[1], uStride: strides[1], v: starts[2], vStride: strides[2],
                chroma: .subsampled420, width: width, height: height, colorSpace: colorSpace,
                chromaUpsampling: chromaUpsampling)
        case .nv12:
            let chromaWidth = (width + 1) / 2
            let chromaHeight = (height + 1) / 2
            var u = [UInt8](repeating: 0, count: chromaWidth * chromaHeight)
            var v = u
            u.withUnsafeMutableBufferPointer { u in
                v.withUnsafeMutableBufferPointer { v in
                    SplitUVPlane(
                        starts[1], Int32(strides[1]), u.baseAddress, Int32(chromaWidth), v.baseAddress,
                        Int32(chromaWidth), Int32(chromaWidth), Int32(chromaHeight))
                }
            }
            pixels = PlanarYUV.rgb(
                y: starts[0], yStride: strides[0], u: u, uStride: chromaWidth, v: v, vStride: chromaWidth,
                chroma: .subsampled420, width: width, height: height, colorSpace: colorSpace,
                chromaUpsampling: chromaUpsampling)
        case .yuyv:
            let chromaWidth = width / 2
            var y = [UInt8](repeating: 0, count: width * height)
            var u = [UInt8](repeating: 0, count: chromaWidth * height)
            var v = u
            y.withUnsafeMutableBufferPointer { y in
                u.withUnsafeMutableBufferPointer { u in
                    v.withUnsafeMutableBufferPointer { v in
                        let status = YUY2ToI422(
                            starts[0], Int32(strides[0]), y.baseAddress, Int32(width), u.baseAddress,
                            Int32(chromaWidth), v.baseAddress, Int32(chromaWidth), Int32(width), Int32(height))
                        precondition(status == 0, "libyuv refused a checked YUYV frame (\(width)x\(height))")
                    }
                }
            }
            pixels = PlanarYUV.rgb(
                y: y, yStride: width, u: u, uStride: chromaWidth, v: v, vStride: chromaWidth,
                chroma: .subsampled422, width: width, height: height, colorSpace: colorSpace,
                chromaUpsampling: chromaUpsampling)
        }
        return RGBImage(validatedWidth: width, height: height, pixels: pixels)
    }
}
