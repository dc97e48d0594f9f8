import ImageIO

/// A YUV frame as the fuzzer reads it from its input:
///
///     flags (1 byte) ++ width (Int64 LE) ++ height (Int64 LE) ++ plane count (1 byte)
///       ++ [one row stride per plane (Int64 LE), if flags bit 6]
///       ++ one byte count per plane (UInt32 LE) ++ the planes' bytes, one after the other
///
/// flags: bits 0–1 the format (`YUVFormat.allCases`, modulo 3), bits 2–3 the colour space
/// (`YUVColorSpace.allCases`), bit 4 nearest chroma upsampling instead of linear, bit 5 one
/// buffer (`YUVConversion.rgbImage(buffer:…)`: the planes' bytes joined, the first stride, if
/// any, as its `rowStride`) instead of separate planes, bit 6 explicit row strides instead of
/// tightly packed rows, bit 7 no pixel cap (`maxPixelCount: .max`) instead of 2^18 pixels. The
/// plane count is the format's own below 0x80, else the byte modulo 4. Sizes and strides are
/// full 64-bit values, so negative, huge and overflowing geometries all occur. Bytes past the
/// end of the input read as zero; a plane gets at most the bytes left.
struct YUVFrameInput {
    var format: YUVFormat
    var colorSpace: YUVColorSpace
    var chromaUpsampling: YUVChromaUpsampling
    var oneBuffer: Bool
    var width: Int
    var height: Int
    /// Explicit row strides, one per plane; nil for tightly packed rows.
    var rowStrides: [Int]?
    var planes: [[UInt8]]
    var uncapped: Bool

    var limits: DecodeLimits { uncapped ? DecodeLimits(maxPixelCount: .max) : DecodeLimits(maxPixelCount: 1 << 18) }

    init(_ bytes: [UInt8]) {
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
        format = YUVFormat.allCases[Int(flags & 3) % YUVFormat.allCases.count]
        colorSpace = YUVColorSpace.allCases[Int(flags >> 2 & 3)]
        chromaUpsampling = flags & 0x10 != 0 ? .nearest : .linear
        oneBuffer = flags & 0x20 != 0
        uncapped = flags & 0x80 != 0
        width = Int(truncatingIfNeeded: next(8))
        height = Int(truncatingIfNeeded: next(8))
        let countByte = Int(next(1))
        let planeCount = countByte < 0x80 ? format.planeNames.count : countByte % 4
        rowStrides = flags & 0x40 != 0 ? (0..<planeCount).map { _ in Int(truncatingIfNeeded: next(8)) } : nil
        let byteCounts = (0..<planeCount).map { _ in Int(next(4)) }
        planes = byteCounts.map { count in
            let start = min(cursor, bytes.count)
            let end = start + min(count, bytes.count - start)
            cursor = end
            return Array(bytes[start..<end])
        }
    }

    /// The bytes that `init` reads as this frame (the plane count as a byte of its own, so
    /// that it is kept for the format).
    func encoded() -> [UInt8] {
        func bytes(_ value: UInt64, _ count: Int) -> [UInt8] {
            (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        }
        let formatBits = UInt8(YUVFormat.allCases.firstIndex(of: format)!)
        let colorBits = UInt8(YUVColorSpace.allCases.firstIndex(of: colorSpace)!) << 2
        let flags = formatBits | colorBits | (chromaUpsampling == .nearest ? 0x10 : 0) | (oneBuffer ? 0x20 : 0)
            | (rowStrides == nil ? 0 : 0x40) | (uncapped ? 0x80 : 0)
        let countByte = planes.count == format.planeNames.count ? 0 : UInt8(0x80 + planes.count)
        return [flags] + bytes(UInt64(bitPattern: Int64(width)), 8) + bytes(UInt64(bitPattern: Int64(height)), 8)
            + [countByte] + (rowStrides ?? []).flatMap { bytes(UInt64(bitPattern: Int64($0)), 8) }
            + planes.flatMap { bytes(UInt64($0.count), 4) } + planes.joined()
    }

    /// Tightly packed row bytes of plane `plane` (`YUVFormat`'s sizes), saturating.
    func packedRowBytes(plane: Int) -> Int {
        let halfWidth = width / 2 + (width % 2 == 0 ? 0 : 1)
        switch (format, plane) {
        case (.i420, 0), (.nv12, 0): return width
        case (.i420, _): return halfWidth
        case (.nv12, _): return halfWidth.multipliedReportingOverflow(by: 2).overflow ? .max : 2 * halfWidth
        case (.yuyv, _): return width.multipliedReportingOverflow(by: 2).overflow ? .max : 2 * width
        }
    }

    /// Rows of plane `plane`.
    func rows(plane: Int) -> Int {
        switch (format, plane) {
        case (.i420, 0), (.nv12, 0), (.yuyv, _): return height
        default: return height / 2 + (height % 2 == 0 ? 0 : 1)
        }
    }
}
