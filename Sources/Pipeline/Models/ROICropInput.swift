import ImageIO
import Inference

extension Interpreter {
    /// Crops `roi` out of `image` into input 0, a `[1, side, side, 3]` tensor of values in
    /// [0, 1] with the border replicated (docs/PIPELINE.md, "ROI to tensor") on the model's
    /// threads, and runs the model:
    /// how the pose, face and hand landmark models and the hand re-crop model take their input.
    /// - Parameters:
    ///   - keepAspectRatio: letterbox the crop instead of stretching it (the legacy graphs).
    /// - Returns: the crop's transform (its letterbox padding, the ROI actually sampled).
    /// - Throws: `InterpreterError` when the model has no input 0; ``ImageWarpError`` for an
    ///   invalid ROI or an input of another size.
    func invoke(
        onCropOf image: RGBImage, roi: NormalizedRect, side: Int, keepAspectRatio: Bool
    ) throws -> ImageToTensor.Transform {
        let options = ImageToTensor.Options(
            outputWidth: side, outputHeight: side, rangeMin: 0, rangeMax: 1, keepAspectRatio: keepAspectRatio,
            borderMode: .replicate)
        let pixelROI = RotatedPixelRect(roi, imageWidth: image.width, imageHeight: image.height)
        let transform = try withInputBuffer(at: 0) { buffer in
            try ImageToTensor.convert(image, roi: pixelROI, options: options, into: buffer, runner: workers)
        }
        invoke()
        return transform
    }
}
