import ImageIO

/// Bilinear sampling of RGB8 pixels with the float32 arithmetic of OpenCV ≥ 4.11
/// `warpAffine(INTER_LINEAR)` on uint8 (its SIMD path):
///
/// - per tensor row y: `r_x = (y·m1) + m2`, `r_y = (y·m4) + m5` in float32 (two roundings);
/// - per column x: `sx = fma(m0, x, r_x)`, `sy = fma(m3, x, r_y)`; tap `(⌊sx⌋, ⌊sy⌋)`,
///   fractions `α = sx − ⌊sx⌋`, `β = sy − ⌊sy⌋`;
/// - per channel: `top = fma(α, p01 − p00, p00)`, `bottom = fma(α, p11 − p10, p10)`,
///   `value = fma(β, bottom − top, top)`, rounded half to even and clamped to 0…255.
///
/// OpenCV's scalar tail (columns past the last full vector) rounds differently and may differ
/// by 1 on rare pixels; every tensor width used here is a multiple of the vector width.
/// Borders as in ``FixedPointBilinearSampler``.
struct Float32BilinearSampler {
    let map: AffineMapF32
    let border: ImageToTensor.BorderMode

    /// Writes tensor row `y` (`outputWidth × 3` bytes) into `row`.
    func sampleRow(_ y: Int, image: RGBImage, source: UnsafePointer<UInt8>, outputWidth: Int,
                   into row: UnsafeMutablePointer<UInt8>) {
        let width = image.width, height = image.height, rowBytes = width * 3
        let rowY = Float(y)
        let rowX0 = rowY * map.m1 + map.m2
        let rowY0 = rowY * map.m4 + map.m5
        for x in 0..<outputWidth {
            let column = Float(x)
            let sampleX = rowX0.addingProduct(map.m0, column)
            let sampleY = rowY0.addingProduct(map.m3, column)
            let tapX = Self.floorToInt(sampleX), tapY = Self.floorToInt(sampleY)
            let alpha = sampleX - Float(tapX), beta = sampleY - Float(tapY)
            let out = row + 3 &* x
            if tapX >= 0, tapX < width &- 1, tapY >= 0, tapY < height &- 1 {
                // All four taps inside the image, so the offset lies inside the pixel buffer.
                let top = source + (tapY &* rowBytes &+ tapX &* 3)
                let bottom = top + rowBytes
                for channel in 0..<3 {
                    out[channel] = Self.interpolate(
                        Float(top[channel]), Float(top[channel &+ 3]), Float(bottom[channel]), Float(bottom[channel &+ 3]),
                        alpha: alpha, beta: beta)
                }
                continue
            }
            switch border {
            case .replicate:
                let x0 = min(max(tapX, 0), width - 1), x1 = min(max(tapX + 1, 0), width - 1)
                let y0 = min(max(tapY, 0), height - 1), y1 = min(max(tapY + 1, 0), height - 1)
                for channel in 0..<3 {
                    out[channel] = Self.interpolate(
                        Float(source[y0 * rowBytes + x0 * 3 + channel]), Float(source[y0 * rowBytes + x1 * 3 + channel]),
                        Float(source[y1 * rowBytes + x0 * 3 + channel]), Float(source[y1 * rowBytes + x1 * 3 + channel]),
                        alpha: alpha, beta: beta)
                }
            case .zero:
                if tapX >= width || tapX + 1 < 0 || tapY >= height || tapY + 1 < 0 {
                    out[0] = 0
                    out[1] = 0
                    out[2] = 0
                    continue
                }
                for channel in 0..<3 {
                    func tap(_ tx: Int, _ ty: Int) -> Float {
                        tx >= 0 && tx < width && ty >= 0 && ty < height ? Float(source[ty * rowBytes + tx * 3 + channel]) : 0
                    }
                    out[channel] = Self.interpolate(tap(tapX, tapY), tap(tapX + 1, tapY), tap(tapX, tapY + 1),
                                                    tap(tapX + 1, tapY + 1), alpha: alpha, beta: beta)
                }
            }
        }
    }

    @inline(__always)
    private static func interpolate(_ p00: Float, _ p01: Float, _ p10: Float, _ p11: Float,
                                    alpha: Float, beta: Float) -> UInt8 {
        let top = p00.addingProduct(alpha, p01 - p00)
        let bottom = p10.addingProduct(alpha, p11 - p10)
        let value = top.addingProduct(beta, bottom - top).rounded(.toNearestOrEven)
        // Written so that a NaN (impossible for validated maps) would give 0 rather than trap.
        return value > 0 ? UInt8(min(value, 255)) : 0
    }

    /// ⌊value⌋ as an Int, clamped far outside any image so that the conversion cannot trap.
    @inline(__always)
    private static func floorToInt(_ value: Float) -> Int {
        guard !value.isNaN else { return Int.min / 2 }
        return Int(min(max(value, -1e9), 1e9).rounded(.down))
    }
}
