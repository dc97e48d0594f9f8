import ImageIO

/// The vectorised form of the sampler, the one the warps run: the same arithmetic as
/// ``FixedPointBilinearSampler/referenceSampleRow(_:image:source:outputWidth:coordinates:into:)``
/// (the steps in ``FixedPointBilinearSampler``'s documentation), so the same bytes. The sample
/// positions are computed four columns at a time in double. The pixels go eight columns at a
/// time: where all their taps lie inside the image, each pixel's two tap pairs are read as eight
/// bytes each and weighted in two exact integer steps; where all lie outside with `.zero`, they
/// are black; otherwise, and for the last columns, pixel by pixel, a pixel's four taps weighted
/// in one 8-lane integer vector, inside the image and past its edges with `.replicate` (the taps
/// clamped first), a pixel with `.zero` whose taps are partly outside by the reference's
/// per-channel code.
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
        let taps = TapBounds(image: image)
        var x = 0
        // Eight columns at a time while pixel offsets fit in 32 bits (images under 2 GiB). The
        // interior pixels' byte shuffles take the image's bytes in little-endian order.
        #if _endian(little)
        let columnBlocks = taps.byteCount <= Int(Int32.max)
        #else
        let columnBlocks = false
        #endif
        if columnBlocks {
            while x &+ 8 <= outputWidth {
                let sampleX = UnsafeRawPointer(scratch.x + x).loadUnaligned(as: SIMD8<Int32>.self)
                let sampleY = UnsafeRawPointer(scratch.y + x).loadUnaligned(as: SIMD8<Int32>.self)
                if !sampleInteriorColumns(sampleX: sampleX, sampleY: sampleY, scratch: scratch, at: x, taps: taps,
                                          source: source, into: row + 3 &* x),
                   !blackOutsideColumns(sampleX: sampleX, sampleY: sampleY, taps: taps, into: row + 3 &* x) {
                    for column in x..<(x &+ 8) {
                        samplePixel(sampleX: Int(scratch.x[column]), sampleY: Int(scratch.y[column]), image: image,
                                    taps: taps, source: source, into: row + 3 &* column)
                    }
                }
                x &+= 8
            }
        }
        while x < outputWidth {
            samplePixel(sampleX: Int(scratch.x[x]), sampleY: Int(scratch.y[x]), image: image, taps: taps,
                        source: source, into: row + 3 &* x)
            x &+= 1
        }
    }

    /// The image's extent as the vectorised sampler tests taps against it.
    struct TapBounds {
        let width: Int
        let height: Int
        /// `width × 3`.
        let rowBytes: Int
        /// `height × rowBytes`.
        let byteCount: Int

        init(image: RGBImage) {
            width = image.width
            height = image.height
            rowBytes = image.width * 3
            byteCount = image.height * rowBytes
        }
    }

    /// Columns `column ..< column + 8`, when the four taps of each lie inside the image: writes
    /// their 24 bytes (and one past them) to `out` and returns true; returns false, writing
    /// nothing, when any tap lies outside or a row's eight-byte read
    /// (``sampleInteriorPixel(sampleX:sampleY:rowBytes:source:into:)``) would pass the image's end.
    /// `sampleX`, `sampleY`: the columns' sample positions in 1/32 pixel, as loaded from
    /// `scratch`; each pixel reads its own again from `scratch`, which is faster than taking a
    /// lane out of a vector (that goes through the stack).
    @inline(__always)
    private func sampleInteriorColumns(sampleX: SIMD8<Int32>, sampleY: SIMD8<Int32>, scratch: RowScratch,
                                       at column: Int, taps: TapBounds, source: UnsafePointer<UInt8>,
                                       into out: UnsafeMutablePointer<UInt8>) -> Bool {
        let tapX = sampleX &>> 5, tapY = sampleY &>> 5
        // Wrapping operators: an offset can wrap only for a tap outside the image, which the test
        // rejects.
        let offsets = tapY &* Int32(truncatingIfNeeded: taps.rowBytes) &+ tapX &* 3
        // Each test is negative in a lane where it holds: the tap column and row within
        // [0, last) (no subtraction can wrap: taps have 27 bits), and the bottom row's eight-byte
        // read ending inside the image.
        let lastColumn = Int32(truncatingIfNeeded: taps.width &- 1)
        let lastRow = Int32(truncatingIfNeeded: taps.height &- 1)
        let readEnd = Int32(truncatingIfNeeded: taps.byteCount &- taps.rowBytes &- 7)
        let inside = ~tapX & ~tapY & (tapX &- lastColumn) & (tapY &- lastRow) & (offsets &- readEnd)
        guard (inside &>> 31).wrappedSum() == -8 else { return false }
        for lane in 0..<8 {
            Self.sampleInteriorPixel(sampleX: scratch.x[column &+ lane], sampleY: scratch.y[column &+ lane],
                                     rowBytes: taps.rowBytes, source: source, into: out + 3 &* lane)
        }
        return true
    }

    /// With `.zero`, eight adjacent pixels whose four taps all lie outside the image are black:
    /// writes their 24 bytes to `out` and returns true; returns false, writing nothing, otherwise.
    /// `sampleX`, `sampleY`: their sample positions in 1/32 pixel.
    @inline(__always)
    private func blackOutsideColumns(sampleX: SIMD8<Int32>, sampleY: SIMD8<Int32>, taps: TapBounds,
                                     into out: UnsafeMutablePointer<UInt8>) -> Bool {
        guard border == .zero else { return false }
        let tapX = sampleX &>> 5, tapY = sampleY &>> 5
        // Negative in a lane where a pixel's taps are all outside: its left tap at or past the
        // right edge, its right tap before the left edge, or alike for rows.
        let outside = (Int32(truncatingIfNeeded: taps.width &- 1) &- tapX) | (tapX &+ 1)
            | (Int32(truncatingIfNeeded: taps.height &- 1) &- tapY) | (tapY &+ 1)
        guard (outside &>> 31).wrappedSum() == -8 else { return false }
        UnsafeMutableRawPointer(out).storeBytes(of: .zero, as: SIMD16<UInt8>.self)
        UnsafeMutableRawPointer(out + 16).storeBytes(of: .zero, as: SIMD8<UInt8>.self)
        return true
    }

    /// One pixel whose taps lie inside the image, each row's tap pair read as eight bytes (left
    /// r, g, b, right r, g, b, two unused) that must lie inside it: writes its 3 bytes and one
    /// past them to `out`. The weighted sum is taken in two exact steps, along x in 16 bits
    /// (`left · (32 − fx) + right · fx`, at most 8160) and along y in 32 bits
    /// (`top · (32 − fy) + bottom · fy`), which is the reference's four-tap sum.
    /// `sampleX`, `sampleY`: the sample position in 1/32 pixel.
    @inline(__always)
    private static func sampleInteriorPixel(sampleX: Int32, sampleY: Int32, rowBytes: Int,
                                            source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let top = source + (Int(sampleY &>> 5) &* rowBytes &+ Int(sampleX &>> 5) &* 3)
        let bytes = unsafeBitCast(SIMD2<UInt64>(
            UnsafeRawPointer(top).loadUnaligned(as: UInt64.self),
            UnsafeRawPointer(top + rowBytes).loadUnaligned(as: UInt64.self)), to: SIMD16<UInt8>.self)
        // 16-bit lanes: channel c's top and bottom value side by side (lanes 2c, 2c + 1), of
        // the left taps and of the right taps.
        let left = unsafeBitCast(SIMD16<UInt8>(
            bytes[0], 0, bytes[8], 0, bytes[1], 0, bytes[9], 0, bytes[2], 0, bytes[10], 0, 0, 0, 0, 0),
            to: SIMD8<UInt16>.self)
        let right = unsafeBitCast(SIMD16<UInt8>(
            bytes[3], 0, bytes[11], 0, bytes[4], 0, bytes[12], 0, bytes[5], 0, bytes[13], 0, 0, 0, 0, 0),
            to: SIMD8<UInt16>.self)
        let fractionX = UInt16(truncatingIfNeeded: sampleX & 31)
        let horizontal = left &* (32 &- fractionX) &+ right &* fractionX
        // Each 32-bit lane c holds channel c's top sum in its low half and bottom sum in its high.
        let rows = unsafeBitCast(horizontal, to: SIMD4<Int32>.self)
        let fractionY = sampleY & 31
        let sum = (rows & 0xFFFF) &* (32 &- fractionY) &+ (rows &>> 16) &* fractionY
        let value = (sum &+ 512) &>> 10
        UnsafeMutableRawPointer(out).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: value), as: SIMD4<UInt8>.self)
    }

    /// One pixel by the general rule: taps inside the image weighted as in the reference, taps
    /// past its edges clamped (`.replicate`) or taken as 0 (`.zero`). Writes its 3 bytes and one
    /// past them to `out`. `sampleX`, `sampleY`: the sample position in 1/32 pixel.
    @inline(__always)
    private func samplePixel(sampleX: Int, sampleY: Int, image: RGBImage, taps: TapBounds,
                             source: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let width = taps.width, height = taps.height, rowBytes = taps.rowBytes
        let lastColumn = width &- 1, lastRow = height &- 1
        let tapX = sampleX >> 5, tapY = sampleY >> 5
        var left = tapX, right = tapX &+ 1, top = tapY, bottom = tapY &+ 1
        if tapX < 0 || tapX >= lastColumn || tapY < 0 || tapY >= lastRow {
            guard border == .replicate else {
                if tapX >= width || right < 0 || tapY >= height || bottom < 0 {
                    // `.zero` and all four taps outside: black.
                    UnsafeMutableRawPointer(out).storeBytes(of: .zero, as: SIMD4<UInt8>.self)
                } else {
                    samplePixelAtBorder(sampleX: sampleX, sampleY: sampleY, image: image, source: source, into: out)
                }
                return
            }
            // `.replicate`: each tap coordinate clamped into the image, the weights unchanged.
            left = min(max(left, 0), lastColumn)
            right = min(max(right, 0), lastColumn)
            top = min(max(top, 0), lastRow)
            bottom = min(max(bottom, 0), lastRow)
        }
        let topOffset = top &* rowBytes, bottomOffset = bottom &* rowBytes
        // A tap is read as four bytes (its r, g, b and the next byte, whose weight is 0); the
        // read stays inside the image when it starts at most 4 bytes before its end, which only
        // the image's last pixel does not. The bottom-right tap is the one read furthest in.
        guard bottomOffset &+ right &* 3 <= taps.byteCount &- 4 else {
            samplePixelAtBorder(sampleX: sampleX, sampleY: sampleY, image: image, source: source, into: out)
            return
        }
        func tapPair(_ rowOffset: Int) -> SIMD8<Int32> {
            SIMD8<Int32>(truncatingIfNeeded: SIMD8<UInt8>(
                lowHalf: UnsafeRawPointer(source + (rowOffset &+ left &* 3)).loadUnaligned(as: SIMD4<UInt8>.self),
                highHalf: UnsafeRawPointer(source + (rowOffset &+ right &* 3)).loadUnaligned(as: SIMD4<UInt8>.self)))
        }
        // Tap weights along x, lanes 0–3 for the left tap's r, g, b and spare byte, lanes 4–7
        // for the right tap's: `32 − fx` three times and 0, then `fx` three times and 0.
        let fractionX = Int32(truncatingIfNeeded: sampleX & 31)
        let fractionY = Int32(truncatingIfNeeded: sampleY & 31)
        let horizontal = SIMD8<Int32>(32, 32, 32, 0, 0, 0, 0, 0) &+ SIMD8<Int32>(-1, -1, -1, 0, 1, 1, 1, 0) &* fractionX
        // Lane c < 3: channel c of the left taps times w00 (top) and w10 (bottom); lane c + 4:
        // of the right taps times w01 and w11.
        let sum = tapPair(topOffset) &* (horizontal &* (32 &- fractionY))
            &+ tapPair(bottomOffset) &* (horizontal &* fractionY)
        let value = (sum.lowHalf &+ sum.highHalf &+ 512) &>> 10
        UnsafeMutableRawPointer(out).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: value), as: SIMD4<UInt8>.self)
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
            let blockInRange = Self.blockLiesInsideInt32Range(
                x0: x0[0], y0: y0[0], w0: w0[0], m: m, lastColumn: ((blockEnd - blockStart + 3) & ~3) - 1)
            var offset = 0
            while blockStart + offset < blockEnd {
                let k = laneOffsets + Double(offset)
                let w = w0 + m.6 * k
                let scale = 32 / w
                let sampleX = (x0 + m.0 * k) * scale, sampleY = (y0 + m.3 * k) * scale
                let index = blockStart + offset
                // Positions well inside the Int32 range (so w is not 0 either) need only the
                // rounding; the others take the whole rule.
                let (roundedX, roundedY) = blockInRange || Self.liesInsideInt32Range(sampleX, sampleY)
                    ? (Self.roundToInteger(sampleX), Self.roundToInteger(sampleY))
                    : Self.roundWithZeroWeight(x: x0 + m.0 * k, y: y0 + m.3 * k, w: w)
                UnsafeMutableRawPointer(scratch.x + index).storeBytes(of: roundedX, as: SIMD4<Int32>.self)
                UnsafeMutableRawPointer(scratch.y + index).storeBytes(of: roundedY, as: SIMD4<Int32>.self)
                offset += 4
            }
            blockStart = blockEnd
        }
    }

    /// True when every position of a block lies well inside the Int32 range, from its ends
    /// alone: the block's columns `0 ... lastColumn` (`k`) compute `w = w0 + m6·k` and the
    /// numerators `x0 + m0·k`, `y0 + m3·k`, each rounded operation monotone in `k`, so each lies
    /// between its values at the ends; when `w` has one sign at both ends it is never 0, and
    /// `|position| ≤ max|numerator| · 32 / min|w|` (within a few ulps), here below 2^30.
    @inline(__always)
    static func blockLiesInsideInt32Range(
        x0: Double, y0: Double, w0: Double,
        m: (Double, Double, Double, Double, Double, Double, Double, Double, Double), lastColumn: Int
    ) -> Bool {
        let k = Double(lastColumn)
        let firstW = w0 + m.6 * 0, lastW = w0 + m.6 * k
        guard (firstW > 0 && lastW > 0) || (firstW < 0 && lastW < 0) else { return false }
        let firstX = abs(x0 + m.0 * 0), lastX = abs(x0 + m.0 * k)
        let firstY = abs(y0 + m.3 * 0), lastY = abs(y0 + m.3 * k)
        guard firstX.isFinite, lastX.isFinite, firstY.isFinite, lastY.isFinite else { return false }
        let largest = max(max(firstX, lastX), max(firstY, lastY))
        return largest * 32 / min(abs(firstW), abs(lastW)) < 1_073_741_824
    }

    /// True when every lane of `x` and `y` lies strictly between −(2^31 − 1) and 2^31 − 1 (so
    /// is neither NaN nor infinite). Compares the magnitudes' bit patterns, which order as the
    /// magnitudes do.
    @inline(__always)
    private static func liesInsideInt32Range(_ x: SIMD4<Double>, _ y: SIMD4<Double>) -> Bool {
        let magnitudeBits: UInt64 = 0x7FFF_FFFF_FFFF_FFFF
        let limit = SIMD4(repeating: (2_147_483_647.0 as Double).bitPattern)
        // 1 in a lane whose magnitude is below the limit (the subtraction wraps).
        let belowX = ((unsafeBitCast(x, to: SIMD4<UInt64>.self) & magnitudeBits) &- limit) &>> 63
        let belowY = ((unsafeBitCast(y, to: SIMD4<UInt64>.self) & magnitudeBits) &- limit) &>> 63
        return (belowX &+ belowY).wrappedSum() == 8
    }

    /// The reference's positions for a vector with a lane outside the Int32 range or a `w` of 0:
    /// the scale `32 / w` (0 where `w` is 0) times `x` and `y`, rounded and clamped.
    private static func roundWithZeroWeight(x: SIMD4<Double>, y: SIMD4<Double>, w: SIMD4<Double>)
        -> (SIMD4<Int32>, SIMD4<Int32>) {
        let scale = (32 / w).replacing(with: 0, where: w .== 0)
        return (roundToInt32Range(x * scale), roundToInt32Range(y * scale))
    }

    /// Round half to even of lanes inside the Int32 range (``liesInsideInt32Range(_:_:)``), as
    /// ``roundToInt32Range(_:)`` does without its clamp.
    @inline(__always)
    private static func roundToInteger(_ value: SIMD4<Double>) -> SIMD4<Int32> {
        SIMD4<Int32>(truncatingIfNeeded: unsafeBitCast(value + 6_755_399_441_055_744.0, to: SIMD4<UInt64>.self))
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
