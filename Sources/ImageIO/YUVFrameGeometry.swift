/// The checked geometry of a YUV frame: where each plane starts and how far apart its rows are.
///
/// Built only through ``separate(planeByteCounts:rowStrides:format:width:height:limits:)`` and
/// ``contiguous(byteCount:format:width:height:rowStride:limits:)``, which accept a frame only
/// when every row of every plane lies inside the memory given, so converting it reads nothing
/// outside that memory. All sizes then fit libyuv's 32-bit `int`.
struct YUVFrameGeometry: Equatable {
    let format: YUVFormat
    let width: Int
    let height: Int
    /// Per plane: the byte offset of its first row in the memory holding it (0 for separate planes).
    let offsets: [Int]
    /// Per plane: bytes from one row to the next.
    let rowStrides: [Int]

    /// A frame whose planes lie in separate memory, `planeByteCounts[p]` bytes for plane `p`.
    static func separate(
        planeByteCounts: [Int], rowStrides: [Int], format: YUVFormat, width: Int, height: Int, limits: DecodeLimits
    ) throws(YUVFrameError) -> YUVFrameGeometry {
        try checkSize(format: format, width: width, height: height, limits: limits)
        let planeCount = format.planeNames.count
        guard planeByteCounts.count == planeCount, rowStrides.count == planeCount else {
            throw .wrongPlaneCount(format: format, planes: planeByteCounts.count, rowStrides: rowStrides.count)
        }
        for plane in 0..<planeCount {
            try checkRowStride(rowStrides[plane], plane: plane, format: format, width: width)
            let end = planeEnd(plane: plane, rowStride: rowStrides[plane], format: format, width: width, height: height)
            guard end <= planeByteCounts[plane] else {
                throw .bufferTooSmall(plane: format.planeNames[plane], byteCount: planeByteCounts[plane], required: end)
            }
        }
        return YUVFrameGeometry(
            format: format, width: width, height: height, offsets: Array(repeating: 0, count: planeCount),
            rowStrides: rowStrides)
    }

    /// A frame stored in one buffer of `byteCount` bytes, its planes one after the other with no
    /// gap; the first plane's rows are `rowStride` bytes apart, the others' as
    /// ``YUVFormat/contiguousRowStride(plane:rowStride:)`` says. Without `rowStride`, every plane
    /// is tightly packed (rows of its samples only).
    static func contiguous(
        byteCount: Int, format: YUVFormat, width: Int, height: Int, rowStride: Int?, limits: DecodeLimits
    ) throws(YUVFrameError) -> YUVFrameGeometry {
        try checkSize(format: format, width: width, height: height, limits: limits)
        var offsets: [Int] = []
        var strides: [Int] = []
        // Strides and row counts are below 2^31: the Y plane spans less than 2^62 bytes, the
        // chroma planes together less than 2^61, so no sum below overflows.
        var start = 0
        for plane in format.planeNames.indices {
            let stride = rowStride.map { format.contiguousRowStride(plane: plane, rowStride: $0) }
                ?? format.rowBytes(plane: plane, width: width)
            try checkRowStride(stride, plane: plane, format: format, width: width)
            let end = start + planeEnd(plane: plane, rowStride: stride, format: format, width: width, height: height)
            guard end <= byteCount else {
                throw .bufferTooSmall(plane: format.planeNames[plane], byteCount: byteCount, required: end)
            }
            offsets.append(start)
            strides.append(stride)
            // The next plane starts after this one's full last row.
            start += stride * format.rows(plane: plane, height: height)
        }
        return YUVFrameGeometry(format: format, width: width, height: height, offsets: offsets, rowStrides: strides)
    }

    /// Positive sides, at most `limits.maxPixelCount` pixels, within libyuv's limits, an even
    /// width for YUYV.
    private static func checkSize(format: YUVFormat, width: Int, height: Int, limits: DecodeLimits) throws(YUVFrameError) {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limits.maxPixelCount else {
            throw .tooLarge(width: width, height: height, maxPixelCount: limits.maxPixelCount)
        }
        guard width <= YUVFrameError.maximumWidth, height <= YUVFrameError.maximumHeight else {
            throw .exceedsLibyuvLimits(width: width, height: height)
        }
        if format == .yuyv && width % 2 != 0 { throw .oddWidth(format: format, width: width) }
    }

    private static func checkRowStride(_ stride: Int, plane: Int, format: YUVFormat, width: Int) throws(YUVFrameError) {
        let allowed = format.rowBytes(plane: plane, width: width)...YUVFrameError.maximumRowStride
        guard allowed.contains(stride) else {
            throw .rowStrideOutOfRange(plane: format.planeNames[plane], rowStride: stride, allowed: allowed)
        }
    }

    /// Bytes from a plane's first row to the end of its last row's samples: `(rows − 1) × stride
    /// + rowBytes`, below 2^62 since both factors are below 2^31.
    private static func planeEnd(plane: Int, rowStride: Int, format: YUVFormat, width: Int, height: Int) -> Int {
        (format.rows(plane: plane, height: height) - 1) * rowStride + format.rowBytes(plane: plane, width: width)
    }
}
