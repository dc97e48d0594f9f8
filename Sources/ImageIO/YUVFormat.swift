/// Layouts of 8-bit Y′CbCr ("YUV") frames that ``YUVConversion`` turns into RGB: what Linux
/// cameras (V4L2), GStreamer and ffmpeg hand out.
///
/// U is Cb and V is Cr. Sizes below are in bytes for a frame of `W × H` pixels; each plane's
/// rows may be padded (a row stride larger than the row).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum YUVFormat: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 4:2:0 planar, three planes: Y (`W × H`), U and V (`⌈W/2⌉ × ⌈H/2⌉` each). V4L2 `YU12`
    /// (`V4L2_PIX_FMT_YUV420`), GStreamer `I420`, ffmpeg `yuv420p`. Any width and height.
    case i420
    /// 4:2:0 semi-planar, two planes: Y (`W × H`), then UV: `⌈H/2⌉` rows of `⌈W/2⌉` U, V pairs
    /// (`2 × ⌈W/2⌉` bytes a row). V4L2 `NV12`, GStreamer `NV12`, ffmpeg `nv12`. Any width and height.
    case nv12
    /// 4:2:2 packed, one plane: `H` rows of `W/2` groups Y0 U Y1 V (`2 × W` bytes a row), the
    /// two pixels of a group sharing U and V. V4L2 `YUYV`, GStreamer `YUY2`, ffmpeg `yuyv422`.
    /// The width must be even.
    case yuyv

    /// The planes in memory order: `["Y", "U", "V"]`, `["Y", "UV"]` or `["YUYV"]`.
    public var planeNames: [String] {
        switch self {
        case .i420: return ["Y", "U", "V"]
        case .nv12: return ["Y", "UV"]
        case .yuyv: return ["YUYV"]
        }
    }

    public var description: String {
        switch self {
        case .i420: return "I420"
        case .nv12: return "NV12"
        case .yuyv: return "YUYV"
        }
    }

    /// Bytes in one row of plane `plane` (the smallest row stride) for a frame `width` pixels
    /// wide. `width` is at most ``YUVFrameError/maximumWidth``, so this cannot overflow.
    func rowBytes(plane: Int, width: Int) -> Int {
        switch (self, plane) {
        case (.i420, 0), (.nv12, 0): return width
        case (.i420, _): return (width + 1) / 2
        case (.nv12, _): return 2 * ((width + 1) / 2)
        case (.yuyv, _): return 2 * width
        }
    }

    /// Rows in plane `plane` for a frame `height` pixels high.
    func rows(plane: Int, height: Int) -> Int {
        switch (self, plane) {
        case (.i420, 0), (.nv12, 0), (.yuyv, _): return height
        case (.i420, _), (.nv12, _): return (height + 1) / 2
        }
    }

    /// The row stride of plane `plane` in a contiguous buffer whose first plane's rows are
    /// `rowStride` bytes apart, as V4L2 lays out its single-planar formats (`bytesperline`):
    /// the chroma planes of I420 half as wide (`⌈rowStride/2⌉`), NV12's UV plane as wide.
    func contiguousRowStride(plane: Int, rowStride: Int) -> Int {
        switch (self, plane) {
        case (.i420, 1), (.i420, 2): return rowStride / 2 + rowStride % 2
        default: return rowStride
        }
    }
}
