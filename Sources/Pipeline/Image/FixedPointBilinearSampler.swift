import ImageIO

/// Bilinear sampling of RGB8 pixels with OpenCV's fixed-point arithmetic (OpenCV ≤ 4.10
/// `warpPerspective` + `remap`, INTER_LINEAR, the path MediaPipe's CPU ImageToTensor takes):
///
/// 1. Per tensor row y, per block of 64 columns starting at x_b (OpenCV's tile width for this
///    warp): `X0 = m0·x_b + m1·y + m2`, `Y0`, `W0` alike in double; for column offset k,
///    `w = 32 / (W0 + m6·k)`, `X = round_half_even((X0 + m0·k)·w)`, `Y` alike. X and Y are the
///    sample position in 1/32 pixel.
/// 2. Integer tap `(X >> 5, Y >> 5)`, fraction `(fx, fy) = (X & 31, Y & 31)`, tap weights
///    `(32−fx)(32−fy)`, `fx(32−fy)`, `(32−fx)fy`, `fx·fy` (sum 1024; OpenCV's Q15 table entries
///    are these × 32, and its one saturated entry at fx = fy = 0 gives the same result).
/// 3. `value = (Σ tap·weight + 512) >> 10`, which equals OpenCV's `(Σ tap·weight·32 + 2^14) >> 15`.
///
/// Border: `.replicate` clamps each tap coordinate into the image; `.zero` gives 0 for a pixel
/// whose four taps are all outside and 0 for each outside tap otherwise.
/// Unlike OpenCV, tap coordinates are not saturated to 16 bits, which only matters for images
/// wider or taller than 32767 pixels.
///
/// Two forms give the same bytes: ``sampleRow(_:image:source:outputWidth:scratch:into:)``, the
/// vectorised one the warps use (FixedPointBilinearSampler+Vectorised.swift), and
/// ``referenceSampleRow(_:image:source:outputWidth:coordinates:into:)``, the plain one the tests
/// hold it to.
struct FixedPointBilinearSampler {
    let map: ProjectiveMap
    let border: ImageToTensor.BorderMode

    /// OpenCV's tile width for `warpPerspective` coordinates.
    static let blockWidth = 64

    /// The plain reference of ``sampleRow(_:image:source:outputWidth:scratch:into:)``: writes
    /// tensor row `y` (`outputWidth × 3` bytes) into `row`, one pixel and one channel at a time.
    /// - Parameter coordinates: scratch for `2 × outputWidth` values.
    func referenceSampleRow(_ y: Int, image: RGBImage, source: UnsafePointer<UInt8>, outputWidth: Int,
                            coordinates: UnsafeMutablePointer<Int>, into row: UnsafeMutablePointer<UInt8>) {
        referenceCoordinates(row: y, outputWidth: outputWidth, into: coordinates)
        let width = image.width, height = image.height, rowBytes = width * 3
        // Wrapping operators below cannot wrap: sample positions are clamped to the Int32 range,
        // weights are at most 1024, pixel offsets of the fast path lie inside the image, and a
        // weighted sum is at most 255 × 1024 + 512.
        for x in 0..<outputWidth {
            let sampleX = coordinates[2 &* x], sampleY = coordinates[2 &* x &+ 1]
            let tapX = sampleX >> 5, tapY = sampleY >> 5
            let out = row + 3 &* x
            if tapX >= 0, tapX < width &- 1, tapY >= 0, tapY < height &- 1 {
                // All four taps inside: (tapY, tapX) and (tapY + 1, tapX + 1) index valid pixels.
                let fractionX = sampleX & 31, fractionY = sampleY & 31
                let w00 = (32 &- fractionX) &* (32 &- fractionY), w01 = fractionX &* (32 &- fractionY)
                let w10 = (32 &- fractionX) &* fractionY, w11 = fractionX &* fractionY
                let top = source + (tapY &* rowBytes &+ tapX &* 3)
                let bottom = top + rowBytes
                for channel in 0..<3 {
                    let sum = Int(top[channel]) &* w00 &+ Int(top[channel &+ 3]) &* w01
                        &+ Int(bottom[channel]) &* w10 &+ Int(bottom[channel &+ 3]) &* w11
                    out[channel] = UInt8(truncatingIfNeeded: (sum &+ 512) >> 10)
                }
            } else {
                samplePixelAtBorder(sampleX: sampleX, sampleY: sampleY, image: image, source: source, into: out)
            }
        }
    }

    /// One pixel with at least one tap outside the image, by the border mode: writes its 3 bytes
    /// to `out`. `sampleX`, `sampleY`: the sample position in 1/32 pixel.
    func samplePixelAtBorder(sampleX: Int, sampleY: Int, image: RGBImage, source: UnsafePointer<UInt8>,
                             into out: UnsafeMutablePointer<UInt8>) {
        let width = image.width, height = image.height, rowBytes = width * 3
        let tapX = sampleX >> 5, tapY = sampleY >> 5
        let fractionX = sampleX & 31, fractionY = sampleY & 31
        let w00 = (32 - fractionX) * (32 - fractionY), w01 = fractionX * (32 - fractionY)
        let w10 = (32 - fractionX) * fractionY, w11 = fractionX * fractionY
        switch border {
        case .replicate:
            let x0 = min(max(tapX, 0), width - 1), x1 = min(max(tapX + 1, 0), width - 1)
            let y0 = min(max(tapY, 0), height - 1), y1 = min(max(tapY + 1, 0), height - 1)
            let p00 = source + y0 * rowBytes + x0 * 3, p01 = source + y0 * rowBytes + x1 * 3
            let p10 = source + y1 * rowBytes + x0 * 3, p11 = source + y1 * rowBytes + x1 * 3
            for channel in 0..<3 {
                let sum = Int(p00[channel]) * w00 + Int(p01[channel]) * w01
                    + Int(p10[channel]) * w10 + Int(p11[channel]) * w11
                out[channel] = UInt8(truncatingIfNeeded: (sum + 512) >> 10)
            }
        case .zero:
            if tapX >= width || tapX + 1 < 0 || tapY >= height || tapY + 1 < 0 {
                out[0] = 0
                out[1] = 0
                out[2] = 0
                return
            }
            for channel in 0..<3 {
                func tap(_ tx: Int, _ ty: Int) -> Int {
                    tx >= 0 && tx < width && ty >= 0 && ty < height ? Int(source[ty * rowBytes + tx * 3 + channel]) : 0
                }
                let sum = tap(tapX, tapY) * w00 + tap(tapX + 1, tapY) * w01
                    + tap(tapX, tapY + 1) * w10 + tap(tapX + 1, tapY + 1) * w11
                out[channel] = UInt8(truncatingIfNeeded: (sum + 512) >> 10)
            }
        }
    }

    /// Step 1, plainly: sample positions of one tensor row in 1/32 pixel, interleaved X, Y.
    func referenceCoordinates(row y: Int, outputWidth: Int, into coordinates: UnsafeMutablePointer<Int>) {
        let m = map.m
        let rowY = Double(y)
        var blockStart = 0
        while blockStart < outputWidth {
            let blockEnd = min(blockStart + Self.blockWidth, outputWidth)
            let start = Double(blockStart)
            let x0 = m.0 * start + m.1 * rowY + m.2
            let y0 = m.3 * start + m.4 * rowY + m.5
            let w0 = m.6 * start + m.7 * rowY + m.8
            for offset in 0..<(blockEnd - blockStart) {
                let k = Double(offset)
                let w = w0 + m.6 * k
                let scale = w != 0 ? 32 / w : 0
                let index = 2 &* (blockStart &+ offset)
                coordinates[index] = Self.roundToInt32Range((x0 + m.0 * k) * scale)
                coordinates[index &+ 1] = Self.roundToInt32Range((y0 + m.3 * k) * scale)
            }
            blockStart = blockEnd
        }
    }

    /// OpenCV's `saturate_cast<int>(double)`: round half to even, clamped to the Int32 range.
    @inline(__always)
    static func roundToInt32Range(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        let clamped = min(max(value, -2_147_483_648.0), 2_147_483_647.0)
        return Int(clamped.rounded(.toNearestOrEven))
    }
}
