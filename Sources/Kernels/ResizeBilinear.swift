import Tensor

/// RESIZE_BILINEAR: resamples each image of a batch to a new height and width
/// by bilinear interpolation, as TFLite's reference kernel does.
///
/// Inputs, in order: `input [N, H, W, C]` (H, W ≥ 1) and `size`, a constant
/// int32 `[2]` holding (newHeight, newWidth), each in
/// `1...maxOutputSide`. Output: `[N, newHeight, newWidth, C]`.
///
/// Output pixel `y` reads the source row `sy` given by the coordinate mode
/// (columns likewise), with `scale = H / newHeight` by default:
/// - default: `sy = y * scale`;
/// - `alignCorners` (when newHeight > 1): `scale = (H - 1) / (newHeight - 1)`,
///   `sy = y * scale`, so the corner pixels map onto each other;
/// - `halfPixelCenters`: `sy = (y + 0.5) * scale - 0.5`.
/// It blends rows `y0 = max(floor(sy), 0)` and `y1 = min(ceil(sy), H - 1)`
/// with weights `1 - (sy - y0)` and `sy - y0`. All arithmetic is float32 in
/// TFLite's order, without fused multiply-add.
public struct ResizeBilinear: PreparedKernel {
    /// RESIZE_BILINEAR's options (TFLite `ResizeBilinearOptions`).
    public struct Options: Sendable, Hashable {
        /// Map the corner pixels of input and output onto each other.
        public var alignCorners: Bool
        /// Sample at pixel centres (`(y + 0.5) * scale - 0.5`).
        public var halfPixelCenters: Bool

        public init(alignCorners: Bool = false, halfPixelCenters: Bool = false) {
            self.alignCorners = alignCorners
            self.halfPixelCenters = halfPixelCenters
        }
    }

    /// The largest output height or width accepted, in pixels.
    public static let maxOutputSide = 1 << 15

    public let opName = "RESIZE_BILINEAR"
    public let outputShapes: [TensorShape]
    let batches: Int
    let inputHeight: Int
    let inputWidth: Int
    let channels: Int
    let outputHeight: Int
    let outputWidth: Int
    /// Source pixels per output pixel along each axis.
    let heightScale: Float
    let widthScale: Float
    let halfPixelCenters: Bool

    /// Validates the input shape, the constant size operand and the options.
    public static func prepare(inputs: [Operand], options: Options) throws -> ResizeBilinear {
        guard inputs.count == 2 else {
            throw KernelError(op: "RESIZE_BILINEAR", "expects 2 inputs (input, size), got \(inputs.count)")
        }
        guard !(options.alignCorners && options.halfPixelCenters) else {
            throw KernelError(op: "RESIZE_BILINEAR", "align_corners and half_pixel_centers cannot both be true")
        }
        let input = inputs[0].shape, size = inputs[1]
        guard input.rank == 4 else {
            throw KernelError(op: "RESIZE_BILINEAR", "input must be [N, H, W, C], got \(input)")
        }
        guard input[1] >= 1, input[2] >= 1 else {
            throw KernelError(op: "RESIZE_BILINEAR", "input \(input) has an empty height or width")
        }
        guard size.shape.dimensions == [2] else {
            throw KernelError(op: "RESIZE_BILINEAR", "size must have shape [2], got \(size.shape)")
        }
        guard let constant = size.constant else {
            throw KernelError(op: "RESIZE_BILINEAR", "size must be a constant tensor; a computed size is not supported")
        }
        guard let values = constant.int32Values, values.count == 2 else {
            throw KernelError(op: "RESIZE_BILINEAR", "size must hold 2 int32 values")
        }
        let newHeight = Int(values[0]), newWidth = Int(values[1])
        guard (1...maxOutputSide).contains(newHeight), (1...maxOutputSide).contains(newWidth) else {
            throw KernelError(
                op: "RESIZE_BILINEAR",
                "size (\(newHeight), \(newWidth)) is out of range; each side must be in 1...\(maxOutputSide)")
        }
        let output: TensorShape
        do {
            output = try TensorShape([input[0], newHeight, newWidth, input[3]])
        } catch {
            throw KernelError(op: "RESIZE_BILINEAR", "output shape is invalid: \(error)")
        }

        func scale(_ inputSize: Int, _ outputSize: Int) -> Float {
            if options.alignCorners && outputSize > 1 {
                return Float(inputSize - 1) / Float(outputSize - 1)
            }
            return Float(inputSize) / Float(outputSize)
        }
        return ResizeBilinear(
            outputShapes: [output],
            batches: input[0], inputHeight: input[1], inputWidth: input[2], channels: input[3],
            outputHeight: newHeight, outputWidth: newWidth,
            heightScale: scale(input[1], newHeight), widthScale: scale(input[2], newWidth),
            halfPixelCenters: options.halfPixelCenters)
    }

    /// The source coordinate of output index `index` and the two source
    /// indices it lies between, clamped to `0...inputSize - 1`.
    @inline(__always)
    func sourcePosition(_ index: Int, scale: Float, inputSize: Int) -> (position: Float, lower: Int, upper: Int) {
        let position = halfPixelCenters ? (Float(index) + 0.5) * scale - 0.5 : Float(index) * scale
        let lower = max(Int(position.rounded(.down)), 0)
        let upper = min(Int(position.rounded(.up)), inputSize - 1)
        return (position, lower, upper)
    }

    public func runReference(_ io: KernelIO) {
        // x: [N, H, W, C]; y: [N, newHeight, newWidth, C].
        // Nothing to write; also keeps a zero-sized dimension from leaving
        // the loops over the other (unbounded) sizes spinning.
        guard outputShapes[0].elementCount > 0 else { return }
        let x = io.inputs[0], y = io.outputs[0]
        let rowStride = inputWidth * channels, imageStride = inputHeight * rowStride
        var output = 0
        for b in 0..<batches {
            let image = x + b * imageStride
            for oy in 0..<outputHeight {
                let (sy, y0, y1) = sourcePosition(oy, scale: heightScale, inputSize: inputHeight)
                let dy: Float = sy - Float(y0)
                let oneMinusDy: Float = 1 - dy
                for ox in 0..<outputWidth {
                    let (sx, x0, x1) = sourcePosition(ox, scale: widthScale, inputSize: inputWidth)
                    let dx: Float = sx - Float(x0)
                    let oneMinusDx: Float = 1 - dx
                    let topLeft = image + y0 * rowStride + x0 * channels
                    let bottomLeft = image + y1 * rowStride + x0 * channels
                    let topRight = image + y0 * rowStride + x1 * channels
                    let bottomRight = image + y1 * rowStride + x1 * channels
                    for c in 0..<channels {
                        // Summed left to right, each term `value * rowWeight * columnWeight`.
                        var sum: Float = topLeft[c] * oneMinusDy * oneMinusDx
                        sum += bottomLeft[c] * dy * oneMinusDx
                        sum += topRight[c] * oneMinusDy * dx
                        sum += bottomRight[c] * dy * dx
                        y[output + c] = sum
                    }
                    output += channels
                }
            }
        }
    }
}
