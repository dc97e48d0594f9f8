import ImageIO

/// The vectorised form of the sampler, the one the warps run: the same arithmetic as
/// ``FixedPointBilinearSampler/referenceSampleRow(_:image:source:outputWidth:coordinates:into:)``
/// (the steps in ``FixedPointBilinearSampler``'s documentation), so the same bytes, with the sample
/// positions computed four columns at a time in double and a pixel's four taps weighted in one
/// 8-lane integer vector: inside the image, and past its edges with `.replicate` (the taps
/// clamped first); with `.zero`, a pixel whose taps are all outside is black, and one whose taps
/// are partly outside takes the reference's per-channel code.
extension FixedPointBilinearSampler {
    /// Scratch for one row's sample positions, `Int32` in 1/32 pixel: X of column k at `x[k]`, Y
    /// at `y[k]`. Each holds ``capacity(outputWidth:)`` values.
    struct RowScratch {
        let x: UnsafeMutablePointer<Int32>
        let y: UnsafeMutablePointer<Int32>

        /// Values each of `x` and `y` must hold for a row of `outputWidth` columns: the width
        /// rounded up to a whole number of 4-column vectors.
        static func capacity(outputWidth: Int) -> Int { (outputWidth + 3) & ~3 }
    }

    /// Writes tensor row `y` (`outputWidth × 3` bytes) into `row`, which must have room for one
    /// byte more: each pixel is stored as four bytes, the fourth overwritten by the next pixel.
    /// - Parameters:
    ///   - source: the image's pixels, `image.height × image.width × 3` bytes.
    ///   - scratch: room for the row's sample positions (``RowScratch``).
    func sampleRow(_ y: Int, image: RGBImage, source: UnsafePointer<UInt8>, outputWidth: Int,
                   scratch: RowScratch, into row: UnsafeMutablePointer<UInt8>) {
        computeCoordinates(row: y, outputWidth: outputWidth, into: scratch)
        let width = image.width, height = image.height, rowBytes = width * 3
        let lastColumn = width - 1, lastRow = height - 1
        // A tap is read as four bytes (its r, g, b and the next byte, whose weight is 0); the
        // read stays inside the image when it starts at most 4 bytes before its end, which only
        // the image's last pixel does not.
        let lastWordLoad = height * rowBytes - 4
        let replicatesBorder = border == .replicate
        // Tap weights along x, lanes 0–3 for the left tap's r, g, b and spare byte, lanes 4–7
        // for the right tap's: `32 − fx` three times and 0, then `fx` three times and 0.
        let leftWeights = SIMD8<Int32>(32, 32, 32, 0, 0, 0, 0, 0)
        let fractionSigns = SIMD8<Int32>(-1, -1, -1, 0, 1, 1, 1, 0)
        // Wrapping operators cannot wrap: as in the reference (sample positions are Int32, the
        // weights at most 1024, a weighted sum at most 255 × 1024 + 512).
        for x in 0..<outputWidth {
            let sampleX = Int(scratch.x[x]), sampleY = Int(scratch.y[x])
            let tapX = sampleX >> 5, tapY = sampleY >> 5
            let out = row + 3 &* x
            var left = tapX, right = tapX &+ 1, top = tapY, bottom = tapY &+ 1
            if tapX < 0 || tapX >= lastColumn || tapY < 0 || tapY >= lastRow {
                guard replicatesBorder else {
                    if tapX >= width || right < 0 || tapY >= height || bottom < 0 {
                        // `.zero` and all four taps outside: black.
                        UnsafeMutableRawPointer(out).storeBytes(of: .zero, as: SIMD4<UInt8>.self)
                    } else {
                        samplePixelAtBorder(sampleX: sampleX, sampleY: sampleY, image: image, source: source, into: out)
                    }
                    continue
                }
                // `.replicate`: each tap coordinate clamped into the image, the weights unchanged.
                left = min(max(left, 0), lastColumn)
                right = min(max(right, 0), lastColumn)
                top = min(max(top, 0), lastRow)
                bottom = min(max(bottom, 0), lastRow)
            }
            let topOffset = top &* rowBytes, bottomOffset = bottom &* rowBytes
            // The bottom-right tap is the one read furthest into the image.
            guard bottomOffset &+ right &* 3 <= lastWordLoad else {
                samplePixelAtBorder(sampleX: sampleX, sampleY: sampleY, image: image, source: source, into: out)
                continue
            }
            func taps(_ rowOffset: Int) -> SIMD8<Int32> {
                SIMD8<Int32>(truncatingIfNeeded: SIMD8<UInt8>(
                    lowHalf: UnsafeRawPointer(source + (rowOffset &+ left &* 3)).loadUnaligned(as: SIMD4<UInt8>.self),
                    highHalf: UnsafeRawPointer(source + (rowOffset &+ right &* 3)).loadUnaligned(as: SIMD4<UInt8>.self)))
            }
            let fractionX = Int32(truncatingIfNeeded: sampleX & 31)
            let fractionY = Int32(truncatingIfNeeded: sampleY & 31)
            let horizontal = leftWeights &+ fractionSigns &* fractionX
            // Lane c < 3: channel c of the left taps times w00 (top) and w10 (bottom); lane c + 4:
            // of the right taps times w01 and w11.
            let sum = taps(topOffset) &* (horizontal &* (32 &- fractionY))
                &+ taps(bottomOffset) &* (horizontal &* fractionY)
            let value = (sum.lowHalf &+ sum.highHalf &+ 512) &>> 10
            UnsafeMutableRawPointer(out).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: value), as: SIMD4<UInt8>.self)
        }
    }

    /// Step 1, four columns at a time: the sample positions of tensor row `y` into `scratch`,
    /// the same values as ``referenceCoordinates(row:outputWidth:into:)`` (each lane does the
    /// reference's double operations in its order: a division, products and sums without fused
    /// multiply-adds, round half to even, the clamp to the Int32 range, 0 for NaN). Writes
    /// ``RowScratch/capacity(outputWidth:)`` values; those past `outputWidth` are unused.
    private func computeCoordinates(row y: Int, outputWidth: Int, into scratch: RowScratch) {
        let m = map.m
        let rowY = Double(y)
        let laneOffsets = SIMD4<Double>(0, 1, 2, 3)
        var blockStart = 0
        while blockStart < outputWidth {
            // A block of 64 is a whole number of vectors, so only the last block has a partial
            // vector, whose extra lanes land in the scratch's rounding.
            let blockEnd = min(blockStart + Self.blockWidth, outputWidth)
            let start = Double(blockStart)
            let x0 = SIMD4(repeating: m.0 * start + m.1 * rowY + m.2)
            let y0 = SIMD4(repeating: m.3 * start + m.4 * rowY + m.5)
            let w0 = SIMD4(repeating: m.6 * start + m.7 * rowY + m.8)
            var offset = 0
            while blockStart + offset < blockEnd {
                let k = laneOffsets + Double(offset)
                let w = w0 + m.6 * k
                let scale = (32 / w).replacing(with: 0, where: w .== 0)
                let index = blockStart + offset
                UnsafeMutableRawPointer(scratch.x + index).storeBytes(
                    of: Self.roundToInt32Range((x0 + m.0 * k) * scale), as: SIMD4<Int32>.self)
                UnsafeMutableRawPointer(scratch.y + index).storeBytes(
                    of: Self.roundToInt32Range((y0 + m.3 * k) * scale), as: SIMD4<Int32>.self)
                offset += 4
            }
            blockStart = blockEnd
        }
    }

    /// ``roundToInt32Range(_:)`` on four lanes: round half to even, clamped to the Int32 range,
    /// 0 for NaN. The rounding adds 1.5 · 2^52: every sum lies in [2^52, 2^53), where doubles
    /// are the integers, so the addition rounds half to even (the default rounding mode) and the
    /// low 32 bits of the sum's bit pattern are the rounded value in two's complement. (The
    /// standard library's conversion of a floating-point vector to integers goes lane by lane
    /// through a generic path, several times slower than the whole computation.)
    @inline(__always)
    static func roundToInt32Range(_ value: SIMD4<Double>) -> SIMD4<Int32> {
        // Comparisons and blends, not `clamped(lowerBound:upperBound:)`, which stays a call.
        let clamped = value.replacing(with: 0, where: value .!= value)
            .replacing(with: -2_147_483_648.0, where: value .< -2_147_483_648.0)
            .replacing(with: 2_147_483_647.0, where: value .> 2_147_483_647.0)
        let shifted = clamped + 6_755_399_441_055_744.0
        return SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(shifted, to: SIMD4<UInt64>.self))
    }
}
