extension RGBImage {
    /// The image as a viewer displays it under `orientation`: the stored pixels rotated and/or
    /// mirrored so that row 0 is the visual top. Orientations 5–8 swap width and height.
    /// Exact pixel moves, no interpolation.
    public func applyingExifOrientation(_ orientation: ExifOrientation) -> RGBImage {
        if orientation == .topLeft { return self }
        let outWidth = orientation.swapsDimensions ? height : width
        let outHeight = orientation.swapsDimensions ? width : height
        // Source pixel of output pixel (x, y): sx = sx0 + x*sxPerX + y*sxPerY, same for sy.
        let (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY): (Int, Int, Int, Int, Int, Int)
        switch orientation {
        case .topLeft: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (0, 1, 0, 0, 0, 1)
        case .topRight: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (width - 1, -1, 0, 0, 0, 1)
        case .bottomRight: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (width - 1, -1, 0, height - 1, 0, -1)
        case .bottomLeft: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (0, 1, 0, height - 1, 0, -1)
        case .leftTop: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (0, 0, 1, 0, 1, 0)
        case .rightTop: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (0, 0, 1, height - 1, -1, 0)
        case .rightBottom: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (width - 1, 0, -1, height - 1, -1, 0)
        case .leftBottom: (sx0, sxPerX, sxPerY, sy0, syPerX, syPerY) = (width - 1, 0, -1, 0, 1, 0)
        }
        var output = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                var target = 0
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let sx = sx0 + x * sxPerX + y * sxPerY
                        let sy = sy0 + x * syPerX + y * syPerY
                        let offset = 3 * (sy * width + sx)
                        destination[target] = source[offset]
                        destination[target + 1] = source[offset + 1]
                        destination[target + 2] = source[offset + 2]
                        target += 3
                    }
                }
            }
        }
        return RGBImage(validatedWidth: outWidth, height: outHeight, pixels: output)
    }
}
