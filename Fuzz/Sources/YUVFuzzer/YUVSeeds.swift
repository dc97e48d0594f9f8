import FuzzSupport
import ImageIO

/// Frames of every format, colour space and upsampling: odd and even sizes, tightly packed and
/// padded rows, planes apart and in one buffer.
enum YUVSeeds {
    static func all() -> [(String, [UInt8])] {
        var seeds: [(String, [UInt8])] = []
        let sizes = [(1, 1), (2, 2), (5, 3), (16, 9)]
        for (formatIndex, format) in YUVFormat.allCases.enumerated() {
            for (sizeIndex, (width, height)) in sizes.enumerated() {
                let width = format == .yuyv ? width + width % 2 : width
                let padding = sizeIndex % 2 == 0 ? 0 : 3
                var frame = YUVFrameInput([])
                frame.format = format
                frame.colorSpace = YUVColorSpace.allCases[(formatIndex + sizeIndex) % YUVColorSpace.allCases.count]
                frame.chromaUpsampling = sizeIndex % 2 == 0 ? .linear : .nearest
                frame.oneBuffer = sizeIndex >= 2
                frame.width = width
                frame.height = height
                frame.uncapped = sizeIndex == 3
                let strides = format.planeNames.indices.map { frame.packedRowBytes(plane: $0) + padding }
                // V4L2's one-buffer layout gives each plane's stride from the first one.
                frame.rowStrides = padding == 0 ? nil : strides
                frame.planes = format.planeNames.indices.map { plane in
                    SeedBytes.pattern(strides[plane] * frame.rows(plane: plane), step: 7 + 13 * plane)
                }
                seeds.append(("\(format)-\(width)x\(height)-\(sizeIndex)", frame.encoded()))
            }
        }
        return seeds
    }
}
