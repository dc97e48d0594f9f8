import CLibYUV

/// libyuv's planar Y′CbCr → RGB8 converters, for planes whose geometry the caller has checked.
enum PlanarYUV {
    /// How the chroma planes are sampled relative to the `W × H` luma plane.
    enum Chroma {
        /// `⌈W/2⌉ × ⌈H/2⌉` samples each (4:2:0).
        case subsampled420
        /// `⌈W/2⌉ × H` samples each (4:2:2).
        case subsampled422
        /// `W × H` samples each (4:4:4).
        case full

        /// Width and height of each chroma plane of a `width × height` frame.
        func planeSize(width: Int, height: Int) -> (width: Int, height: Int) {
            switch self {
            case .subsampled420: return ((width + 1) / 2, (height + 1) / 2)
            case .subsampled422: return ((width + 1) / 2, height)
            case .full: return (width, height)
            }
        }
    }

    /// Converts planes Y (`height` rows of `width` samples), U and V (sampled as `chroma` says)
    /// to RGB8 `[height, width, 3]`.
    ///
    /// - Precondition: each plane's rows lie inside memory the caller owns; `width`, `height`
    ///   and the strides fit libyuv's 32-bit sizes (``YUVFrameGeometry`` checks all this for
    ///   public input). A stride of 0 repeats one row for every row.
    static func rgb(
        y: UnsafePointer<UInt8>, yStride: Int, u: UnsafePointer<UInt8>, uStride: Int,
        v: UnsafePointer<UInt8>, vStride: Int, chroma: Chroma, width: Int, height: Int,
        colorSpace: YUVColorSpace, chromaUpsampling: YUVChromaUpsampling
    ) -> [UInt8] {
        if colorSpace == .bt709Limited {
            // libyuv's own BT.709 limited-range matrix is off by up to 13 levels in blue; see
            // LimitedRangeExpansion.
            let (chromaWidth, chromaHeight) = chroma.planeSize(width: width, height: height)
            let fullY = LimitedRangeExpansion.expanded(
                y, stride: yStride, rowLength: width, rows: height, table: LimitedRangeExpansion.luma)
            let fullU = LimitedRangeExpansion.expanded(
                u, stride: uStride, rowLength: chromaWidth, rows: chromaHeight, table: LimitedRangeExpansion.chroma)
            let fullV = LimitedRangeExpansion.expanded(
                v, stride: vStride, rowLength: chromaWidth, rows: chromaHeight, table: LimitedRangeExpansion.chroma)
            return rgb(
                y: fullY, yStride: width, u: fullU, uStride: chromaWidth, v: fullV, vStride: chromaWidth,
                chroma: chroma, width: width, height: height, colorSpace: .bt709Full,
                chromaUpsampling: chromaUpsampling)
        }
        let count = width * height * 3
        let matrix = constants(colorSpace)
        let filter = chromaUpsampling == .linear ? kFilterBilinear : kFilterNone
        return [UInt8](unsafeUninitializedCapacity: count) { rgb, initialized in
            // The matrices are libyuv's "Yvu" ones: with the V plane passed for U and U for V,
            // the RGB24 converters write R, G, B (see shim.h).
            let status: Int32
            switch chroma {
            case .subsampled420:
                status = I420ToRGB24MatrixFilter(
                    y, Int32(yStride), v, Int32(vStride), u, Int32(uStride), rgb.baseAddress, Int32(3 * width),
                    matrix, Int32(width), Int32(height), filter)
            case .subsampled422:
                status = I422ToRGB24MatrixFilter(
                    y, Int32(yStride), v, Int32(vStride), u, Int32(uStride), rgb.baseAddress, Int32(3 * width),
                    matrix, Int32(width), Int32(height), filter)
            case .full:
                status = I444ToRGB24Matrix(
                    y, Int32(yStride), v, Int32(vStride), u, Int32(uStride), rgb.baseAddress, Int32(3 * width),
                    matrix, Int32(width), Int32(height))
            }
            precondition(status == 0, "libyuv refused a checked \(width)x\(height) frame")
            initialized = count
        }
    }

    /// libyuv's "Yvu" matrix for samples in `colorSpace`. ``rgb(y:yStride:u:uStride:v:vStride:chroma:width:height:colorSpace:chromaUpsampling:)``
    /// expands BT.709 limited-range samples to full range before converting them, so both
    /// BT.709 cases use the full-range matrix.
    private static func constants(_ colorSpace: YUVColorSpace) -> OpaquePointer {
        switch colorSpace {
        case .bt601Limited: return landmarker_yuv_bt601_limited()
        case .bt601Full: return landmarker_yuv_bt601_full()
        case .bt709Full, .bt709Limited: return landmarker_yuv_bt709_full()
        }
    }
}
