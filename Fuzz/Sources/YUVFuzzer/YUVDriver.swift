import FuzzSupport
import ImageIO

/// Converts a fuzzed YUV frame with `YUVConversion` (the geometry checks, then libyuv), each
/// plane in memory that ends at an inaccessible page (`GuardedBytes`). Each execution must end
/// in an image or a `YUVFrameError`; a trap, a read past a plane (a fault, or the address
/// sanitizer in our code) or a broken invariant is a finding: an image has the frame's size and
/// `width × height × 3` bytes within the pixel cap, and a frame in one tightly packed buffer
/// converts to the same pixels as its planes passed separately.
enum YUVDriver {
    static func convert(_ frame: YUVFrameInput) -> Outcome {
        let planes = frame.planes.map(GuardedBytes.init)
        // The mappings must outlive the conversion, which sees only their addresses.
        defer { withExtendedLifetime(planes) {} }
        let image: RGBImage
        do {
            if frame.oneBuffer {
                let joined = GuardedBytes(Array(frame.planes.joined()))
                defer { withExtendedLifetime(joined) {} }
                image = try YUVConversion.rgbImage(
                    buffer: joined.buffer, format: frame.format, width: frame.width, height: frame.height,
                    rowStride: frame.rowStrides?.first, colorSpace: frame.colorSpace,
                    chromaUpsampling: frame.chromaUpsampling, limits: frame.limits)
            } else {
                let strides = frame.rowStrides ?? frame.planes.indices.map { frame.packedRowBytes(plane: $0) }
                image = try YUVConversion.rgbImage(
                    planes: planes.map(\.buffer), rowStrides: strides, format: frame.format, width: frame.width,
                    height: frame.height, colorSpace: frame.colorSpace, chromaUpsampling: frame.chromaUpsampling,
                    limits: frame.limits)
            }
        } catch {
            return FuzzCheck.refused(error)
        }
        FuzzCheck.requireConsistent(image, "\(frame.format) frame")
        FuzzCheck.require(image.width == frame.width && image.height == frame.height,
                          "a \(frame.width)x\(frame.height) frame gave a \(image.width)x\(image.height) image")
        FuzzCheck.require(image.width * image.height <= frame.limits.maxPixelCount, "past the pixel cap")
        if frame.oneBuffer && frame.rowStrides == nil {
            checkSameAsSeparatePlanes(frame, image)
        }
        return .parsed("\(frame.format) \(image.width)x\(image.height)")
    }

    /// Checks that the tightly packed one-buffer `frame`, split into its planes, converts to
    /// `image` again.
    private static func checkSameAsSeparatePlanes(_ frame: YUVFrameInput, _ image: RGBImage) {
        let joined = Array(frame.planes.joined())
        var start = 0
        var planes: [GuardedBytes] = []
        var strides: [Int] = []
        for plane in frame.format.planeNames.indices {
            let rowBytes = frame.packedRowBytes(plane: plane)
            let end = min(start + rowBytes * frame.rows(plane: plane), joined.count)
            planes.append(GuardedBytes(Array(joined[start..<end])))
            strides.append(rowBytes)
            start = end
        }
        do {
            let separate = try YUVConversion.rgbImage(
                planes: planes.map(\.buffer), rowStrides: strides, format: frame.format, width: frame.width,
                height: frame.height, colorSpace: frame.colorSpace, chromaUpsampling: frame.chromaUpsampling,
                limits: frame.limits)
            withExtendedLifetime(planes) {}
            FuzzCheck.require(separate.pixels == image.pixels, "one buffer and separate planes differ")
        } catch {
            FuzzCheck.require(false, "the planes of a converted buffer failed separately: \(error)")
        }
    }
}
