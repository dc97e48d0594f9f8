import CLibYUV
import TestSupport
import Testing
@testable import ImageIO

/// Frames converted by `YUVConversion` against libyuv's own converters called directly, for each
/// format, with padded row strides and odd sizes.
@Suite struct YUVConversionTests {
    /// A random frame in `format`, each plane's rows `padding` bytes longer than its samples,
    /// the padding filled with 0xEE: the planes, their strides, and the tightly packed planes.
    struct Frame {
        let width: Int
        let height: Int
        let planes: [[UInt8]]
        let rowStrides: [Int]
        let packedPlanes: [[UInt8]]
    }

    static func randomFrame(_ format: YUVFormat, width: Int, height: Int, padding: Int, seed: UInt64) -> Frame {
        var random = SeededGenerator(seed: seed)
        var planes: [[UInt8]] = []
        var strides: [Int] = []
        var packed: [[UInt8]] = []
        for plane in format.planeNames.indices {
            let rowBytes = format.rowBytes(plane: plane, width: width)
            let rows = format.rows(plane: plane, height: height)
            let samples = (0..<(rowBytes * rows)).map { _ in UInt8.random(in: 0...255, using: &random) }
            var padded: [UInt8] = []
            for row in 0..<rows {
                padded += samples[(row * rowBytes)..<((row + 1) * rowBytes)]
                padded += [UInt8](repeating: 0xEE, count: padding)
            }
            planes.append(padded)
            strides.append(rowBytes + padding)
            packed.append(samples)
        }
        return Frame(width: width, height: height, planes: planes, rowStrides: strides, packedPlanes: packed)
    }

    static func convert(
        _ frame: Frame, _ format: YUVFormat, _ colorSpace: YUVColorSpace = .bt601Limited,
        _ upsampling: YUVChromaUpsampling = .linear
    ) throws -> RGBImage {
        try withBuffers(frame.planes) { buffers in
            try YUVConversion.rgbImage(
                planes: buffers, rowStrides: frame.rowStrides, format: format, width: frame.width,
                height: frame.height, colorSpace: colorSpace, chromaUpsampling: upsampling)
        }
    }

    /// Runs `body` with a raw buffer for each array.
    static func withBuffers<T>(_ arrays: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) throws -> T) rethrows -> T {
        func nest(_ index: Int, _ collected: [UnsafeRawBufferPointer]) throws -> T {
            if index == arrays.count { return try body(collected) }
            return try arrays[index].withUnsafeBytes { try nest(index + 1, collected + [$0]) }
        }
        return try nest(0, [])
    }

    /// libyuv's matrix for a colour space as `YUVConversion` hands it over (the "Yvu" ones).
    static func matrix(_ colorSpace: YUVColorSpace) -> OpaquePointer {
        switch colorSpace {
        case .bt601Limited: return landmarker_yuv_bt601_limited()
        case .bt601Full: return landmarker_yuv_bt601_full()
        case .bt709Limited, .bt709Full: return landmarker_yuv_bt709_full()
        }
    }

    static func filter(_ upsampling: YUVChromaUpsampling) -> FilterMode {
        upsampling == .linear ? kFilterBilinear : kFilterNone
    }

    static let sizes = [(16, 8), (5, 3), (33, 17), (2, 1), (1, 1)]

    /// I420 is libyuv's `I420ToRGB24MatrixFilter` on the caller's planes (V passed for U).
    @Test(arguments: sizes, [YUVChromaUpsampling.linear, .nearest])
    func i420EqualsLibyuvsOwnCall(size: (Int, Int), upsampling: YUVChromaUpsampling) throws {
        let (width, height) = size
        let frame = Self.randomFrame(.i420, width: width, height: height, padding: 3, seed: 1)
        for colorSpace in [YUVColorSpace.bt601Limited, .bt601Full, .bt709Full] {
            let ours = try Self.convert(frame, .i420, colorSpace, upsampling)
            let p = frame.planes, s = frame.rowStrides.map { Int32($0) }
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            let status = I420ToRGB24MatrixFilter(
                p[0], s[0], p[2], s[2], p[1], s[1], &rgb, Int32(3 * width), Self.matrix(colorSpace),
                Int32(width), Int32(height), Self.filter(upsampling))
            #expect(status == 0)
            #expect(ours.pixels == rgb, "\(width)x\(height) \(colorSpace) \(upsampling)")
        }
    }

    /// BT.709 limited range is libyuv's full-range BT.709 conversion of the samples expanded
    /// with the two tables, and differs from libyuv's own capped limited-range matrix.
    @Test func bt709LimitedIsTheExpandedFullRangeConversion() throws {
        let frame = Self.randomFrame(.i420, width: 12, height: 6, padding: 0, seed: 2)
        let ours = try Self.convert(frame, .i420, .bt709Limited)
        let tables = [LimitedRangeExpansion.luma, LimitedRangeExpansion.chroma, LimitedRangeExpansion.chroma]
        let expanded = zip(frame.packedPlanes, tables).map { plane, table in plane.map { table[Int($0)] } }
        let full = try Self.withBuffers(expanded) { buffers in
            try YUVConversion.rgbImage(
                planes: buffers, rowStrides: frame.rowStrides, format: .i420, width: 12, height: 6,
                colorSpace: .bt709Full)
        }
        #expect(ours == full)
        #expect(LimitedRangeExpansion.luma[16] == 0 && LimitedRangeExpansion.luma[235] == 255)
        // (16 − 128) · 255/224 + 128 = 0.5, rounded away from zero; 240 gives 255.5, clamped.
        #expect(LimitedRangeExpansion.chroma[16] == 1 && LimitedRangeExpansion.chroma[128] == 128)
        #expect(LimitedRangeExpansion.chroma[240] == 255 && LimitedRangeExpansion.luma[126] == 128)
    }

    /// NV12 equals libyuv's NV12 converter, which reads the interleaved plane itself (nearest
    /// chroma), and, upsampled linearly, the I420 conversion of the same samples.
    @Test(arguments: sizes)
    func nv12EqualsLibyuvsNV12ConverterAndI420(size: (Int, Int)) throws {
        let (width, height) = size
        let frame = Self.randomFrame(.nv12, width: width, height: height, padding: 5, seed: 3)
        let nearest = try Self.convert(frame, .nv12, .bt601Limited, .nearest)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        // libyuv's NV12ToRAWMatrix macro: its NV21 converter with the Yvu matrix.
        let status = NV21ToRGB24Matrix(
            frame.planes[0], Int32(frame.rowStrides[0]), frame.planes[1], Int32(frame.rowStrides[1]), &rgb,
            Int32(3 * width), Self.matrix(.bt601Limited), Int32(width), Int32(height))
        #expect(status == 0)
        #expect(nearest.pixels == rgb, "\(width)x\(height)")

        let uv = frame.packedPlanes[1]
        let u = stride(from: 0, to: uv.count, by: 2).map { uv[$0] }
        let v = stride(from: 1, to: uv.count, by: 2).map { uv[$0] }
        let chromaWidth = (width + 1) / 2
        let planar = try Self.withBuffers([frame.packedPlanes[0], u, v]) { buffers in
            try YUVConversion.rgbImage(
                planes: buffers, rowStrides: [width, chromaWidth, chromaWidth], format: .i420, width: width,
                height: height)
        }
        #expect(try Self.convert(frame, .nv12) == planar)
    }

    /// YUYV equals libyuv's packed converter `YUY2ToARGB` (BT.601 limited range, nearest chroma,
    /// B, G, R, A bytes), and, upsampled linearly, libyuv's I422 conversion of the same samples.
    @Test(arguments: [(16, 8), (2, 1), (6, 5)])
    func yuyvEqualsLibyuvsPackedConverter(size: (Int, Int)) throws {
        let (width, height) = size
        let frame = Self.randomFrame(.yuyv, width: width, height: height, padding: 4, seed: 4)
        let nearest = try Self.convert(frame, .yuyv, .bt601Limited, .nearest)
        var bgra = [UInt8](repeating: 0, count: width * height * 4)
        let status = YUY2ToARGB(
            frame.planes[0], Int32(frame.rowStrides[0]), &bgra, Int32(4 * width), Int32(width), Int32(height))
        #expect(status == 0)
        var rgb: [UInt8] = []
        for pixel in 0..<(width * height) {
            rgb += [bgra[4 * pixel + 2], bgra[4 * pixel + 1], bgra[4 * pixel]]
        }
        #expect(nearest.pixels == rgb, "\(width)x\(height)")

        let packed = frame.packedPlanes[0]
        let y = stride(from: 0, to: packed.count, by: 2).map { packed[$0] }
        let u = stride(from: 1, to: packed.count, by: 4).map { packed[$0] }
        let v = stride(from: 3, to: packed.count, by: 4).map { packed[$0] }
        var linear = [UInt8](repeating: 0, count: width * height * 3)
        let linearStatus = I422ToRGB24MatrixFilter(
            y, Int32(width), v, Int32(width / 2), u, Int32(width / 2), &linear, Int32(3 * width),
            Self.matrix(.bt601Limited), Int32(width), Int32(height), kFilterBilinear)
        #expect(linearStatus == 0)
        #expect(try Self.convert(frame, .yuyv).pixels == linear)
    }

    /// Linear upsampling blends chroma across a colour edge; nearest keeps the edge hard. A
    /// 4:2:0 frame whose left chroma column is red and right one blue (Y′ of each colour).
    @Test func linearUpsamplingBlendsAcrossAChromaEdge() throws {
        let red: (UInt8, UInt8, UInt8) = (81, 90, 240)
        let blue: (UInt8, UInt8, UInt8) = (41, 240, 110)
        var luma: [UInt8] = []
        for _ in 0..<2 { luma += [red.0, red.0, blue.0, blue.0] }
        let frame = luma + [red.1, blue.1] + [red.2, blue.2]
        func convert(_ upsampling: YUVChromaUpsampling) throws -> RGBImage {
            try frame.withUnsafeBytes {
                try YUVConversion.rgbImage(buffer: $0, format: .i420, width: 4, height: 2, chromaUpsampling: upsampling)
            }
        }
        let nearest = try convert(.nearest)
        let linear = try convert(.linear)
        // Outer columns take their own chroma sample either way.
        #expect(linear[0, 0]! == nearest[0, 0]! && linear[3, 1]! == nearest[3, 1]!)
        #expect(nearest[0, 0]!.red > 240 && nearest[3, 0]!.blue > 240)
        // Next to the edge, nearest is pure red; linear mixes in a quarter of the blue chroma.
        #expect(nearest[1, 0]! == nearest[0, 0]!)
        #expect(linear[1, 0]!.blue > nearest[1, 0]!.blue + 40, "\(linear[1, 0]!) vs \(nearest[1, 0]!)")
        #expect(linear[2, 0]!.red > nearest[2, 0]!.red + 20, "\(linear[2, 0]!) vs \(nearest[2, 0]!)")
    }

    /// A contiguous buffer (V4L2's layout: chroma rows half as long as `rowStride` for I420) and
    /// the same planes passed separately give the same image; padding bytes are never read
    /// into pixels.
    @Test(arguments: YUVFormat.allCases)
    func contiguousBufferEqualsSeparatePlanes(format: YUVFormat) throws {
        let width = 10, height = 6, rowStride = 24
        let strides = format.planeNames.indices.map { format.contiguousRowStride(plane: $0, rowStride: rowStride) }
        let frame = Self.randomFrame(format, width: width, height: height, padding: 0, seed: 5)
        var buffer: [UInt8] = []
        var padded: [[UInt8]] = []
        for plane in format.planeNames.indices {
            let rowBytes = format.rowBytes(plane: plane, width: width)
            var bytes: [UInt8] = []
            for row in 0..<format.rows(plane: plane, height: height) {
                bytes += frame.packedPlanes[plane][(row * rowBytes)..<((row + 1) * rowBytes)]
                bytes += [UInt8](repeating: UInt8(truncatingIfNeeded: 0xA0 + row), count: strides[plane] - rowBytes)
            }
            padded.append(bytes)
            buffer += bytes
        }
        let fromBuffer = try buffer.withUnsafeBytes {
            try YUVConversion.rgbImage(buffer: $0, format: format, width: width, height: height, rowStride: rowStride)
        }
        let fromPlanes = try Self.withBuffers(padded) { buffers in
            try YUVConversion.rgbImage(planes: buffers, rowStrides: strides, format: format, width: width, height: height)
        }
        let packed = try Self.withBuffers(frame.packedPlanes) { buffers in
            try YUVConversion.rgbImage(
                planes: buffers, rowStrides: format.planeNames.indices.map { format.rowBytes(plane: $0, width: width) },
                format: format, width: width, height: height)
        }
        #expect(fromBuffer == fromPlanes)
        #expect(fromBuffer == packed)
        // Tightly packed by default, and the last plane's last row need not be padded.
        let tight = frame.packedPlanes.flatMap { $0 }
        #expect(try tight.withUnsafeBytes {
            try YUVConversion.rgbImage(buffer: $0, format: format, width: width, height: height)
        } == packed)
        let unpaddedEnd = Array(buffer.dropLast(strides.last! - format.rowBytes(plane: strides.count - 1, width: width)))
        #expect(try unpaddedEnd.withUnsafeBytes {
            try YUVConversion.rgbImage(buffer: $0, format: format, width: width, height: height, rowStride: rowStride)
        } == packed)
    }
}
