import ImageIO
import Kernels

/// The ROI → tensor step of MediaPipe's `ImageToTensorCalculator` on CPU (docs/PIPELINE.md,
/// "ROI to tensor" and "Numerical parity"): a rotated rectangle of the image, optionally
/// letterboxed to the tensor's aspect ratio, is warped with bilinear interpolation onto a
/// `[1, outputHeight, outputWidth, 3]` float32 tensor whose values are
/// `v_uint8 × (max − min) / 255 + min`.
///
/// The warp runs on the 8-bit pixels and rounds to uint8 before the value mapping, reproducing
/// the arithmetic of the OpenCV MediaPipe is built with (up to 4.10): `cv::warpPerspective`
/// (`INTER_LINEAR`) on uint8, the ROI corners from `cv::boxPoints` in float32, sample coordinates
/// rounded to 1/32 pixel and the four taps weighted with 15-bit fixed-point weights
/// (``FixedPointBilinearSampler``). The value mapping is one fused multiply-add,
/// `fma(v, (max − min) / 255, min)`, as OpenCV's `convertTo` computes it in MediaPipe: with a
/// separate multiply and add, values differ in the last bit, and the detector's outputs with them. Tensor pixel (i, j) samples the image at
/// `c + R(θ)·((i/W_t − ½)·roiW, (j/H_t − ½)·roiH)` (pixel centres at integer coordinates).
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum ImageToTensor {
    /// What pixels outside the image read as.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    package enum BorderMode: Sendable, Hashable {
        /// Constant 0 (MediaPipe `BORDER_ZERO`; used by the detectors' letterbox).
        case zero
        /// The nearest edge pixel (MediaPipe's default; used by the landmark models).
        case replicate
    }

    /// Conversion parameters.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    package struct Options: Sendable, Hashable {
        /// Tensor width W_t (pixels, > 0).
        package var outputWidth: Int
        /// Tensor height H_t (pixels, > 0).
        package var outputHeight: Int
        /// Value of uint8 0 (e.g. −1 for the pose detector, 0 for the others).
        package var rangeMin: Float
        /// Value of uint8 255 (1 for every model here).
        package var rangeMax: Float
        /// Grow the ROI to the tensor's aspect ratio (letterbox) instead of stretching it.
        package var keepAspectRatio: Bool
        package var borderMode: BorderMode

        package init(outputWidth: Int, outputHeight: Int, rangeMin: Float, rangeMax: Float,
                    keepAspectRatio: Bool, borderMode: BorderMode = .replicate) {
            self.outputWidth = outputWidth
            self.outputHeight = outputHeight
            self.rangeMin = rangeMin
            self.rangeMax = rangeMax
            self.keepAspectRatio = keepAspectRatio
            self.borderMode = borderMode
        }
    }

    /// What the caller needs to map tensor coordinates back to the image.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    package struct Transform: Sendable, Hashable {
        /// The letterbox padding (all 0 without `keepAspectRatio`).
        package let padding: LetterboxPadding
        /// The ROI actually sampled (enlarged by the letterbox); pass it to
        /// ``SegmentationMaskWarp`` to bring a mask back to the image.
        package let sampledROI: RotatedPixelRect
        /// MediaPipe's `MATRIX` output (docs/PIPELINE.md, "ROI to tensor"): 4×4 row-major, mapping
        /// tensor-normalized (u, v) ∈ [0, 1]² of the sampled ROI to image-normalized coordinates,
        /// computed in float32.
        package let matrix: [Float]
    }

    /// Warps the ROI into a caller-supplied float32 tensor (no allocation besides a few
    /// row-sized scratch buffers on the stack).
    /// - Parameters:
    ///   - image: RGB8 pixels `[H, W, 3]`.
    ///   - roi: the rectangle to sample, in image pixels.
    ///   - options: the output size, value range and border mode (``Options``).
    ///   - output: receives `[1, outputHeight, outputWidth, 3]` float32, RGB, row-major; must hold
    ///     at least `outputHeight × outputWidth × 3` elements.
    ///   - runner: the tensor's rows are split over its threads (a model's own, so that a crop
    ///     uses the threads its model does); the same values for any thread count.
    /// - Throws: ``ImageWarpError`` for an invalid ROI, size, value range or a short buffer.
    @discardableResult
    package static func convert(_ image: RGBImage, roi: RotatedPixelRect, options: Options,
                               into output: UnsafeMutableBufferPointer<Float>,
                               runner: ParallelRunner = .serial) throws(ImageWarpError) -> Transform {
        let plan = try WarpPlan(image: image, roi: roi, options: options)
        let required = plan.outputElementCount
        guard output.count >= required else { throw .bufferTooSmall(count: output.count, required: required) }
        runner.forEach(
            plan.outputHeight, minimumPerChunk: max(1, TensorRows.pixelsPerTask / plan.outputWidth),
            TensorRows(plan: plan, image: image, output: output.baseAddress!,
                       scale: (options.rangeMax - options.rangeMin) / 255, offset: options.rangeMin))
        return plan.transform
    }

    /// Rows of a crop's tensor, for `ParallelRunner.forEach`: each sampled, then mapped to floats.
    private struct TensorRows: ParallelWork {
        /// Pixels a thread should at least sample before another one is worth waking: tens of
        /// microseconds of work, far more than handing it over costs.
        static let pixelsPerTask = 4096

        let plan: WarpPlan
        let image: RGBImage
        /// `[outputHeight, outputWidth, 3]` floats.
        let output: UnsafeMutablePointer<Float>
        /// The value mapping `v × scale + offset`, one fused multiply-add.
        let scale: Float
        let offset: Float

        func run(_ rows: Range<Int>, thread: Int) {
            let rowElements = plan.outputWidth * 3
            plan.warpRows(image: image, rows: rows) { y, row in
                let destination = output + y * rowElements
                for index in 0..<rowElements {
                    destination[index] = offset.addingProduct(Float(row[index]), scale)
                }
            }
        }
    }

    /// Warps the ROI into a new float32 tensor `[1, outputHeight, outputWidth, 3]`;
    /// see ``convert(_:roi:options:into:)``.
    package static func convert(_ image: RGBImage, roi: RotatedPixelRect, options: Options) throws(ImageWarpError) -> (tensor: [Float], transform: Transform) {
        let plan = try WarpPlan(image: image, roi: roi, options: options)
        var tensor = [Float](repeating: 0, count: plan.outputElementCount)
        // withUnsafeMutableBufferPointer only rethrows untyped errors, hence the Result.
        let transform = tensor.withUnsafeMutableBufferPointer { buffer in
            Result { () throws(ImageWarpError) -> Transform in
                try convert(image, roi: roi, options: options, into: buffer)
            }
        }
        return (tensor, try transform.get())
    }

    /// The uint8 crop before the value mapping, `[outputHeight, outputWidth, 3]` RGB8; the value
    /// range in `options` is validated but unused.
    package static func crop(_ image: RGBImage, roi: RotatedPixelRect, options: Options) throws(ImageWarpError) -> (image: RGBImage, transform: Transform) {
        let plan = try WarpPlan(image: image, roi: roi, options: options)
        var pixels = [UInt8](repeating: 0, count: plan.outputElementCount)
        let rowBytes = options.outputWidth * 3
        pixels.withUnsafeMutableBufferPointer { buffer in
            plan.warpRows(image: image) { y, row in
                (buffer.baseAddress! + y * rowBytes).update(from: row.baseAddress!, count: rowBytes)
            }
        }
        do {
            let cropped = try RGBImage(width: options.outputWidth, height: options.outputHeight, pixels: pixels)
            return (cropped, plan.transform)
        } catch {
            throw .invalidSize(width: options.outputWidth, height: options.outputHeight)
        }
    }
}
