import Foundation
import ImageIO
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// `MPImage` from YUV frames: the library conversion, orientations, errors, and landmarks on a
/// photo handed over as camera frames in each format.
@Suite struct MPImageYUVTests {
    /// A 4×2 I420 frame: grey luma ramp, neutral chroma.
    static let smallI420: [UInt8] = [16, 60, 120, 235, 16, 60, 120, 235] + [128, 128] + [128, 128]

    @Test func bufferImageIsTheLibraryConversion() throws {
        let image = try MPImage(yuvBuffer: Self.smallI420, format: .i420, width: 4, height: 2)
        let converted = try Self.smallI420.withUnsafeBytes {
            try YUVConversion.rgbImage(buffer: $0, format: .i420, width: 4, height: 2)
        }
        #expect(image.rgbImage == converted)
        #expect(image.orientation == .up)
        // Grey levels: Y′ 16 is black, 235 white.
        #expect(converted[0, 0]! == (0, 0, 0) && converted[3, 1]! == (255, 255, 255))

        let full = try MPImage(yuvBuffer: Self.smallI420, format: .i420, width: 4, height: 2, colorSpace: .bt601Full)
        #expect(full.rgbImage[0, 0]! == (16, 16, 16))
        let sideways = try MPImage(yuvBuffer: Self.smallI420, format: .i420, width: 4, height: 2, orientation: .right)
        #expect(sideways.width == 2 && sideways.height == 4)
        #expect(sideways.rgbImage == converted)
    }

    @Test func planesImageIsTheLibraryConversion() throws {
        let y: [UInt8] = [16, 60, 99, 120, 235, 99] + [16, 60, 99, 120, 235, 99]  // stride 6, rows of 5
        let u: [UInt8] = [100, 150, 200, 0]  // stride 4, rows of 3
        let v: [UInt8] = [90, 128, 240, 0]
        let image = try y.withUnsafeBytes { y in
            try u.withUnsafeBytes { u in
                try v.withUnsafeBytes { v in
                    try MPImage(yuvPlanes: [y, u, v], rowStrides: [6, 4, 4], format: .i420, width: 5, height: 2,
                                colorSpace: .bt709Limited, chromaUpsampling: .nearest)
                }
            }
        }
        let tight: [UInt8] = [16, 60, 99, 120, 235, 16, 60, 99, 120, 235, 100, 150, 200, 90, 128, 240]
        let expected = try tight.withUnsafeBytes {
            try YUVConversion.rgbImage(
                buffer: $0, format: .i420, width: 5, height: 2, colorSpace: .bt709Limited, chromaUpsampling: .nearest)
        }
        #expect(image.rgbImage == expected)
    }

    @Test func badFramesAndMirroredOrientationsAreTypedErrors() throws {
        #expect(throws: MPImageError.invalidYUVFrame(.bufferTooSmall(plane: "V", byteCount: 11, required: 12))) {
            try MPImage(yuvBuffer: Array(Self.smallI420.dropLast()), format: .i420, width: 4, height: 2)
        }
        #expect(throws: MPImageError.invalidYUVFrame(.oddWidth(format: .yuyv, width: 3))) {
            try MPImage(yuvBuffer: [UInt8](repeating: 0, count: 64), format: .yuyv, width: 3, height: 2)
        }
        #expect(throws: MPImageError.invalidYUVFrame(.wrongPlaneCount(format: .nv12, planes: 0, rowStrides: 0))) {
            try MPImage(yuvPlanes: [], rowStrides: [], format: .nv12, width: 2, height: 2)
        }
        #expect(throws: MPImageError.mirroredOrientationUnsupported(.leftMirrored)) {
            try MPImage(yuvBuffer: Self.smallI420, format: .i420, width: 4, height: 2, orientation: .leftMirrored)
        }
        let error = MPImageError.invalidYUVFrame(.bufferTooSmall(plane: "V", byteCount: 11, required: 12))
        #expect(error.description == "invalid YUV frame: plane V needs 12 bytes of the buffer holding it, which has 11")
    }

    /// BT.601 limited-range Y′, Cb, Cr of an RGB pixel, rounded (ITU-R BT.601's 8-bit equations).
    static func ycbcr(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double, Double) {
        (16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255,
         128 + (-37.797 * r - 74.203 * g + 112 * b) / 255,
         128 + (112 * r - 93.786 * g - 18.214 * b) / 255)
    }

    /// The photo as a camera would send it: I420 with chroma averaged over 2 × 2 pixels, NV12
    /// with the same samples interleaved, YUYV with chroma averaged over 2 × 1; each plane's rows
    /// padded to `stride(rowBytes)` bytes. Returns the planes and their strides.
    static func cameraFrame(_ photo: RGBImage, _ format: YUVFormat) -> (planes: [[UInt8]], strides: [Int]) {
        let width = photo.width, height = photo.height
        func byte(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
        func sample(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let pixel = photo[min(x, width - 1), min(y, height - 1)]!
            return ycbcr(Double(pixel.red), Double(pixel.green), Double(pixel.blue))
        }
        func padded(_ rows: [[UInt8]]) -> (bytes: [UInt8], stride: Int) {
            let stride = rows[0].count + 7
            return (rows.flatMap { $0 + [UInt8](repeating: 0x55, count: 7) }, stride)
        }
        let luma = (0..<height).map { y in (0..<width).map { x in byte(sample(x, y).0) } }
        switch format {
        case .i420, .nv12:
            let chroma = (0..<((height + 1) / 2)).map { cy in
                (0..<((width + 1) / 2)).map { cx in
                    let samples = [sample(2 * cx, 2 * cy), sample(2 * cx + 1, 2 * cy),
                                   sample(2 * cx, 2 * cy + 1), sample(2 * cx + 1, 2 * cy + 1)]
                    return (byte(samples.map(\.1).reduce(0, +) / 4), byte(samples.map(\.2).reduce(0, +) / 4))
                }
            }
            let y = padded(luma)
            if format == .i420 {
                let u = padded(chroma.map { $0.map(\.0) }), v = padded(chroma.map { $0.map(\.1) })
                return ([y.bytes, u.bytes, v.bytes], [y.stride, u.stride, v.stride])
            }
            let uv = padded(chroma.map { $0.flatMap { [$0.0, $0.1] } })
            return ([y.bytes, uv.bytes], [y.stride, uv.stride])
        case .yuyv:
            let rows = (0..<height).map { y in
                (0..<(width / 2)).flatMap { pair -> [UInt8] in
                    let left = sample(2 * pair, y), right = sample(2 * pair + 1, y)
                    return [byte(left.0), byte((left.1 + right.1) / 2), byte(right.0), byte((left.2 + right.2) / 2)]
                }
            }
            let packed = padded(rows)
            return ([packed.bytes], [packed.stride])
        }
    }

    /// The pose landmarker finds the same person in the photo handed over as I420, NV12 or YUYV
    /// frames with padded rows. The frames are within 2 grey levels of the photo on average (0.6
    /// to 0.7 measured; chroma detail is lost at colour edges), and the landmarks within 1 % of
    /// the image's long side on average (3.7 to 3.8 px of 660 measured): the model moves
    /// landmarks by pixels for changes of a grey level (docs/ACCURACY.md).
    @Test(arguments: YUVFormat.allCases)
    func landmarksOnCameraFramesMatchThePhoto(format: YUVFormat) throws {
        let path = try Fixtures.path("images/bus_man.png")
        let photo = try MPImage(contentsOfFile: path)
        let landmarker = try PoseLandmarker(
            modelPath: Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path)
        let reference = try #require(try landmarker.detect(image: photo).landmarks.first)
        let frame = Self.cameraFrame(photo.rgbImage, format)
        let image = try YUVConversionTestBuffers.withBuffers(frame.planes) { buffers in
            try MPImage(yuvPlanes: buffers, rowStrides: frame.strides, format: format,
                        width: photo.width, height: photo.height)
        }
        // The frame's pixels: within a few grey levels of the photo on average (chroma detail
        // is lost at colour edges).
        let difference = zip(image.rgbImage.pixels, photo.rgbImage.pixels).map { abs(Int($0) - Int($1)) }
        let meanDifference = Double(difference.reduce(0, +)) / Double(difference.count)
        #expect(meanDifference < 2, "\(format): \(meanDifference) grey levels mean from the photo")
        let landmarks = try #require(try landmarker.detect(image: image).landmarks.first)
        var errors = LandmarkErrors()
        errors.addPoints(
            landmarks.map { SIMD2(Double($0.x) * Double(photo.width), Double($0.y) * Double(photo.height)) },
            reference.map { SIMD2(Double($0.x) * Double(photo.width), Double($0.y) * Double(photo.height)) })
        let longSide = Double(max(photo.width, photo.height))
        #expect(errors.mean < 0.01 * longSide, "\(format): \(errors.mean) px mean from the photo's landmarks")
    }
}

/// Raw buffers for several arrays at once.
enum YUVConversionTestBuffers {
    static func withBuffers<T>(_ arrays: [[UInt8]], _ body: ([UnsafeRawBufferPointer]) throws -> T) rethrows -> T {
        func nest(_ index: Int, _ collected: [UnsafeRawBufferPointer]) throws -> T {
            if index == arrays.count { return try body(collected) }
            return try arrays[index].withUnsafeBytes { try nest(index + 1, collected + [$0]) }
        }
        return try nest(0, [])
    }
}
