import Testing
@testable import ImageIO

/// Every way a YUV frame can be refused: a typed error with a message, checked before any
/// byte is read (the buffers here are often far smaller than the frames they claim to hold).
@Suite struct YUVFrameErrorTests {
    static func separateError(
        _ format: YUVFormat, width: Int, height: Int, planeSizes: [Int], rowStrides: [Int],
        limits: DecodeLimits = DecodeLimits()
    ) -> YUVFrameError? {
        let arrays = planeSizes.map { [UInt8](repeating: 128, count: $0) }
        do {
            _ = try YUVConversionTests.withBuffers(arrays) { buffers in
                try YUVConversion.rgbImage(
                    planes: buffers, rowStrides: rowStrides, format: format, width: width, height: height,
                    limits: limits)
            }
            return nil
        } catch let error as YUVFrameError {
            return error
        } catch {
            Issue.record("untyped error \(error)")
            return nil
        }
    }

    static func contiguousError(
        _ format: YUVFormat, width: Int, height: Int, byteCount: Int, rowStride: Int? = nil,
        limits: DecodeLimits = DecodeLimits()
    ) -> YUVFrameError? {
        let buffer = [UInt8](repeating: 128, count: byteCount)
        do {
            _ = try buffer.withUnsafeBytes {
                try YUVConversion.rgbImage(
                    buffer: $0, format: format, width: width, height: height, rowStride: rowStride, limits: limits)
            }
            return nil
        } catch let error as YUVFrameError {
            return error
        } catch {
            Issue.record("untyped error \(error)")
            return nil
        }
    }

    @Test(arguments: YUVFormat.allCases)
    func nonPositiveSizesAreRefused(format: YUVFormat) {
        for (width, height) in [(0, 2), (2, 0), (-2, 2), (2, -4)] {
            #expect(Self.contiguousError(format, width: width, height: height, byteCount: 64)
                == .invalidDimensions(width: width, height: height))
        }
    }

    @Test func sizesOverTheLimitsAreRefused() {
        let small = DecodeLimits(maxPixelCount: 100)
        #expect(Self.contiguousError(.i420, width: 11, height: 10, byteCount: 1, limits: small)
            == .tooLarge(width: 11, height: 10, maxPixelCount: 100))
        #expect(Self.contiguousError(.nv12, width: 1 << 40, height: 1 << 40, byteCount: 1)
            == .tooLarge(width: 1 << 40, height: 1 << 40, maxPixelCount: 64_000_000))
        // With the pixel cap lifted, libyuv's 32-bit sizes still bound each side.
        let unlimited = DecodeLimits(maxPixelCount: .max)
        let wide = YUVFrameError.maximumWidth + 1
        #expect(Self.contiguousError(.i420, width: wide, height: 1, byteCount: 1, limits: unlimited)
            == .exceedsLibyuvLimits(width: wide, height: 1))
        let high = YUVFrameError.maximumHeight + 1
        #expect(Self.separateError(.yuyv, width: 2, height: high, planeSizes: [1], rowStrides: [4], limits: unlimited)
            == .exceedsLibyuvLimits(width: 2, height: high))
        // The largest accepted sizes pass the size checks and fail only on the tiny buffer.
        let widest = YUVFrameError.maximumWidth
        #expect(widest % 2 == 0)
        #expect(Self.contiguousError(.yuyv, width: widest, height: 1, byteCount: 1, limits: unlimited)
            == .bufferTooSmall(plane: "YUYV", byteCount: 1, required: 2 * widest))
    }

    @Test func yuyvNeedsAnEvenWidth() {
        let error = Self.contiguousError(.yuyv, width: 5, height: 2, byteCount: 100)
        #expect(error == .oddWidth(format: .yuyv, width: 5))
        #expect(error?.description.contains("must be even, got 5") == true)
        // The 4:2:0 formats take odd sizes: 5×3 has 3×2 chroma samples (NV12: rows of 3 pairs).
        #expect(Self.contiguousError(.i420, width: 5, height: 3, byteCount: 15 + 6 + 6) == nil)
        #expect(Self.contiguousError(.nv12, width: 5, height: 3, byteCount: 15 + 12) == nil)
        // V4L2's layout gives NV12's UV rows the luma stride, too short for an odd width.
        #expect(Self.contiguousError(.nv12, width: 5, height: 3, byteCount: 100, rowStride: 5)
            == .rowStrideOutOfRange(plane: "UV", rowStride: 5, allowed: 6...YUVFrameError.maximumRowStride))
    }

    @Test func planeAndStrideCountsMustMatchTheFormat() {
        let error = Self.separateError(.i420, width: 2, height: 2, planeSizes: [4, 2], rowStrides: [2, 1])
        #expect(error == .wrongPlaneCount(format: .i420, planes: 2, rowStrides: 2))
        #expect(error?.description == "I420 frames have 3 planes (Y, U, V), got 2 planes and 2 row strides")
        #expect(Self.separateError(.nv12, width: 2, height: 2, planeSizes: [4, 2], rowStrides: [2])
            == .wrongPlaneCount(format: .nv12, planes: 2, rowStrides: 1))
        #expect(Self.separateError(.yuyv, width: 2, height: 2, planeSizes: [8, 8], rowStrides: [4, 4])
            == .wrongPlaneCount(format: .yuyv, planes: 2, rowStrides: 2))
    }

    @Test func rowStridesShorterThanARowOrBeyondLibyuvAreRefused() {
        let maximum = YUVFrameError.maximumRowStride
        // I420 6×4: Y rows of 6 bytes, U and V rows of 3.
        #expect(Self.separateError(.i420, width: 6, height: 4, planeSizes: [24, 6, 6], rowStrides: [5, 3, 3])
            == .rowStrideOutOfRange(plane: "Y", rowStride: 5, allowed: 6...maximum))
        #expect(Self.separateError(.i420, width: 6, height: 4, planeSizes: [24, 6, 6], rowStrides: [6, 3, 2])
            == .rowStrideOutOfRange(plane: "V", rowStride: 2, allowed: 3...maximum))
        #expect(Self.separateError(.i420, width: 6, height: 4, planeSizes: [24, 6, 6], rowStrides: [-6, 3, 3])
            == .rowStrideOutOfRange(plane: "Y", rowStride: -6, allowed: 6...maximum))
        // NV12 5×2: the UV plane holds 3 pairs a row.
        #expect(Self.separateError(.nv12, width: 5, height: 2, planeSizes: [10, 6], rowStrides: [5, 5])
            == .rowStrideOutOfRange(plane: "UV", rowStride: 5, allowed: 6...maximum))
        #expect(Self.separateError(.yuyv, width: 4, height: 1, planeSizes: [8], rowStrides: [maximum + 1])
            == .rowStrideOutOfRange(plane: "YUYV", rowStride: maximum + 1, allowed: 8...maximum))
        // Contiguous buffers: the stride given is the first plane's.
        let error = Self.contiguousError(.yuyv, width: 4, height: 2, byteCount: 16, rowStride: 6)
        #expect(error == .rowStrideOutOfRange(plane: "YUYV", rowStride: 6, allowed: 8...maximum))
        #expect(error?.description.hasPrefix("row stride 6 of plane YUYV must be in 8...") == true)
    }

    @Test func buffersEndingBeforeTheirLastRowAreRefused() {
        // I420 4×4 with strides 8, 4, 4: Y ends at 3 × 8 + 4 = 28, U and V at 4 + 2 = 6.
        #expect(Self.separateError(.i420, width: 4, height: 4, planeSizes: [28, 6, 6], rowStrides: [8, 4, 4]) == nil)
        #expect(Self.separateError(.i420, width: 4, height: 4, planeSizes: [27, 6, 6], rowStrides: [8, 4, 4])
            == .bufferTooSmall(plane: "Y", byteCount: 27, required: 28))
        #expect(Self.separateError(.i420, width: 4, height: 4, planeSizes: [28, 6, 5], rowStrides: [8, 4, 4])
            == .bufferTooSmall(plane: "V", byteCount: 5, required: 6))
        #expect(Self.separateError(.nv12, width: 4, height: 4, planeSizes: [16, 7], rowStrides: [4, 4])
            == .bufferTooSmall(plane: "UV", byteCount: 7, required: 8))
        #expect(Self.separateError(.yuyv, width: 2, height: 3, planeSizes: [0], rowStrides: [4])
            == .bufferTooSmall(plane: "YUYV", byteCount: 0, required: 12))

        // Contiguous I420 6×4, tightly packed: Y 24, U 6 and V 6 bytes, V ending at byte 36.
        #expect(Self.contiguousError(.i420, width: 6, height: 4, byteCount: 36) == nil)
        let short = Self.contiguousError(.i420, width: 6, height: 4, byteCount: 35)
        #expect(short == .bufferTooSmall(plane: "V", byteCount: 35, required: 36))
        #expect(short?.description == "plane V needs 36 bytes of the buffer holding it, which has 35")
        #expect(Self.contiguousError(.i420, width: 6, height: 4, byteCount: 20)
            == .bufferTooSmall(plane: "Y", byteCount: 20, required: 24))
        // With rowStride 8, U starts at 32 and its rows are 4 apart: it ends at 32 + 4 + 3.
        #expect(Self.contiguousError(.i420, width: 6, height: 4, byteCount: 38, rowStride: 8)
            == .bufferTooSmall(plane: "U", byteCount: 38, required: 39))
        #expect(Self.contiguousError(.nv12, width: 6, height: 4, byteCount: 35)
            == .bufferTooSmall(plane: "UV", byteCount: 35, required: 36))
        #expect(Self.contiguousError(.yuyv, width: 6, height: 4, byteCount: 0)
            == .bufferTooSmall(plane: "YUYV", byteCount: 0, required: 48))
    }
}
