/// Brings a mask computed on an ROI crop back to image size (docs/PIPELINE.md,
/// "Segmentation mask"): the inverse of the ROI matrix, `WarpAffineCalculator` with bilinear
/// interpolation and `BORDER_ZERO`, as MediaPipe's OpenCV runner computes it.
///
/// Output pixel (x, y) is the mask sampled bilinearly at `(w_m, h_m)·M⁻¹·(x/W, y/H)` (mask pixel
/// centres at integers; M is the ROI matrix described in docs/PIPELINE.md, "ROI to tensor"), and
/// 0 outside the mask.
///
/// Arithmetic (OpenCV ≤ 4.10 `warpAffine` with `WARP_INVERSE_MAP` on float32, as MediaPipe runs
/// it): the ROI matrix and its inverse (Eigen's blockwise 4 × 4 inverse: cofactors times the
/// reciprocal of the determinant) are formed in float32 and scaled to absolute coordinates in
/// float32; sample positions are rounded to 1/32 pixel in fixed point (row start
/// `round((a1·y + a2)·1024) + 16`, per-column `round(a0·x·1024)`, then `>> 5`), and the four
/// taps are blended with float32 weights `(1−β)(1−α), (1−β)α, β(1−α), βα` summed left to right.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum SegmentationMaskWarp {
    /// Warps a `[maskHeight, maskWidth]` float32 mask onto a caller-supplied `[imageHeight, imageWidth]` buffer.
    /// - Parameters:
    ///   - mask: row-major values, at least `maskWidth × maskHeight`.
    ///   - maskWidth: the mask's columns.
    ///   - maskHeight: the mask's rows.
    ///   - roi: the ROI the mask's crop was sampled from: ``ImageToTensor/Transform/sampledROI``.
    ///   - imageWidth: the image's width in pixels.
    ///   - imageHeight: the image's height in pixels.
    ///   - output: receives `imageWidth × imageHeight` values, row-major.
    /// - Throws: ``ImageWarpError`` for non-positive or overflowing sizes, an invalid ROI, or short buffers.
    package static func toImage(_ mask: UnsafeBufferPointer<Float>, maskWidth: Int, maskHeight: Int,
                               roi: RotatedPixelRect, imageWidth: Int, imageHeight: Int,
                               into output: UnsafeMutableBufferPointer<Float>) throws(ImageWarpError) {
        let map = try validatedMap(maskCount: mask.count, maskWidth: maskWidth, maskHeight: maskHeight, roi: roi,
                                   imageWidth: imageWidth, imageHeight: imageHeight, outputCount: output.count)
        // One row of per-column offsets for x and y (OpenCV's adelta/bdelta), in 1/1024 pixel.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * imageWidth) { deltas in
            for x in 0..<imageWidth {
                deltas[2 * x] = FixedPointBilinearSampler.roundToInt32Range(map.a0 * Double(x) * 1024)
                deltas[2 * x + 1] = FixedPointBilinearSampler.roundToInt32Range(map.b0 * Double(x) * 1024)
            }
            let source = mask.baseAddress!
            let destination = output.baseAddress!
            for y in 0..<imageHeight {
                let rowX = FixedPointBilinearSampler.roundToInt32Range((map.a1 * Double(y) + map.a2) * 1024) + 16
                let rowY = FixedPointBilinearSampler.roundToInt32Range((map.b1 * Double(y) + map.b2) * 1024) + 16
                let out = destination + y * imageWidth
                for x in 0..<imageWidth {
                    let sampleX = (rowX + deltas[2 * x]) >> 5, sampleY = (rowY + deltas[2 * x + 1]) >> 5
                    out[x] = sample(source, width: maskWidth, height: maskHeight, sampleX: sampleX, sampleY: sampleY)
                }
            }
        }
    }

    /// Warps a `[maskHeight, maskWidth]` float32 mask to a new `[imageHeight, imageWidth]` array;
    /// see ``toImage(_:maskWidth:maskHeight:roi:imageWidth:imageHeight:into:)``.
    package static func toImage(_ mask: [Float], maskWidth: Int, maskHeight: Int, roi: RotatedPixelRect,
                               imageWidth: Int, imageHeight: Int) throws(ImageWarpError) -> [Float] {
        let count = try outputCount(imageWidth: imageWidth, imageHeight: imageHeight)
        var output = [Float](repeating: 0, count: count)
        // withUnsafe…BufferPointer only rethrows untyped errors, hence the Result.
        let result = mask.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                Result { () throws(ImageWarpError) in
                    try toImage(source, maskWidth: maskWidth, maskHeight: maskHeight, roi: roi,
                                imageWidth: imageWidth, imageHeight: imageHeight, into: destination)
                }
            }
        }
        try result.get()
        return output
    }

    /// The absolute inverse map: image pixel (x, y) → mask pixel `(a0 x + a1 y + a2, b0 x + b1 y + b2)`.
    private struct InverseMap {
        let a0, a1, a2, b0, b1, b2: Double
    }

    private static func outputCount(imageWidth: Int, imageHeight: Int) throws(ImageWarpError) -> Int {
        let (count, overflow) = imageWidth.multipliedReportingOverflow(by: imageHeight)
        guard imageWidth > 0, imageHeight > 0, !overflow else {
            throw .invalidSize(width: imageWidth, height: imageHeight)
        }
        return count
    }

    private static func validatedMap(maskCount: Int, maskWidth: Int, maskHeight: Int, roi: RotatedPixelRect,
                                     imageWidth: Int, imageHeight: Int, outputCount available: Int) throws(ImageWarpError) -> InverseMap {
        let (maskElements, maskOverflow) = maskWidth.multipliedReportingOverflow(by: maskHeight)
        guard maskWidth > 0, maskHeight > 0, !maskOverflow else {
            throw .invalidSize(width: maskWidth, height: maskHeight)
        }
        guard maskCount >= maskElements else { throw .bufferTooSmall(count: maskCount, required: maskElements) }
        let required = try outputCount(imageWidth: imageWidth, imageHeight: imageHeight)
        guard available >= required else { throw .bufferTooSmall(count: available, required: required) }
        let magnitude = WarpPlan.maxROIMagnitude
        guard roi.isValid, abs(roi.centerX) <= magnitude, abs(roi.centerY) <= magnitude,
              roi.width <= magnitude, roi.height <= magnitude else {
            throw .invalidROI(roi)
        }

        // MediaPipe's ROI matrix (float32) and its inverse as InverseMatrixCalculator forms it.
        let m = ROIGeometry.roiMatrix(centerX: Float(roi.centerX), centerY: Float(roi.centerY),
                                      width: Float(roi.width), height: Float(roi.height),
                                      rotation: Float(roi.rotation), imageWidth: imageWidth, imageHeight: imageHeight)
        guard let (i00, i01, i03, i10, i11, i13) = inverseAffineRows(of: m) else { throw .invalidROI(roi) }

        // Absolute coordinates: scale(mask size) · M⁻¹ · scale(1 / image size), in float32.
        let maskW = Float(maskWidth), maskH = Float(maskHeight)
        let inverseWidth = 1 / Float(imageWidth), inverseHeight = 1 / Float(imageHeight)
        let coefficients: [Float] = [
            maskW * i00 * inverseWidth, maskW * i01 * inverseHeight, maskW * i03,
            maskH * i10 * inverseWidth, maskH * i11 * inverseHeight, maskH * i13,
        ]
        guard coefficients.allSatisfy(\.isFinite) else { throw .invalidROI(roi) }
        return InverseMap(a0: Double(coefficients[0]), a1: Double(coefficients[1]), a2: Double(coefficients[2]),
                          b0: Double(coefficients[3]), b1: Double(coefficients[4]), b2: Double(coefficients[5]))
    }

    /// The first two rows of the inverse of an ROI matrix `m` (row-major 4 × 4, third column
    /// and bottom rows as ``ROIGeometry`` builds them), as Eigen's blockwise 4 × 4 float inverse
    /// computes them in MediaPipe's `InverseMatrixCalculator`: with the 2 × 2 blocks A (rotation
    /// and scale), B (translation) and D = diag(m10, 1), det = (m0·m5 − m1·m4)·m10 and r = 1/det,
    /// each entry is a cofactor times m10, then times r. Nil when the determinant is zero or
    /// not finite.
    /// - Returns: `(i00, i01, i03, i10, i11, i13)`: inverse entries (row, column).
    static func inverseAffineRows(of m: [Float]) -> (Float, Float, Float, Float, Float, Float)? {
        let m10 = m[10]
        let determinant = (m[5] * m[0] - m[1] * m[4]) * m10
        guard determinant != 0, determinant.isFinite else { return nil }
        let reciprocal = 1 / determinant
        let translationX = m[5] * m[3] - m[1] * m[7]
        let translationY = m[0] * m[7] - m[4] * m[3]
        return ((m[5] * m10) * reciprocal, -((m[1] * m10) * reciprocal), -((m10 * translationX) * reciprocal),
                -((m[4] * m10) * reciprocal), (m[0] * m10) * reciprocal, -((m10 * translationY) * reciprocal))
    }

    /// Bilinear sample at a position given in 1/32 mask pixel, `BORDER_ZERO`.
    @inline(__always)
    private static func sample(_ mask: UnsafePointer<Float>, width: Int, height: Int, sampleX: Int, sampleY: Int) -> Float {
        let tapX = sampleX >> 5, tapY = sampleY >> 5
        let alpha = Float(sampleX & 31) * (1 / 32), beta = Float(sampleY & 31) * (1 / 32)
        let w0 = (1 - beta) * (1 - alpha), w1 = (1 - beta) * alpha, w2 = beta * (1 - alpha), w3 = beta * alpha
        if tapX >= 0, tapX < width - 1, tapY >= 0, tapY < height - 1 {
            let top = mask + tapY * width + tapX
            let bottom = top + width
            return top[0] * w0 + top[1] * w1 + bottom[0] * w2 + bottom[1] * w3
        }
        if tapX >= width || tapX + 1 < 0 || tapY >= height || tapY + 1 < 0 { return 0 }
        func tap(_ x: Int, _ y: Int) -> Float {
            x >= 0 && x < width && y >= 0 && y < height ? mask[y * width + x] : 0
        }
        return tap(tapX, tapY) * w0 + tap(tapX + 1, tapY) * w1 + tap(tapX, tapY + 1) * w2 + tap(tapX + 1, tapY + 1) * w3
    }
}
