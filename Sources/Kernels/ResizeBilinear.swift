import FlatBufferReader
import KernelTemplates
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
/// TFLite's order, without fused multiply-add: that is the reference kernel.
///
/// The fast kernel computes what XNNPACK computes (so it matches LiteRT and
/// MediaPipe, which run this operator through XNNPACK, bit for bit): with
/// `halfPixelCenters`, `sy = y·scale + (0.5·scale − 0.5)` clamped to
/// `0...H − 1`, otherwise `sy = y·scale`; rows `y0 = trunc(sy)` and
/// `y1 = min(y0 + 1, H − 1)`, `a = sy − y0`; then per value, without fused
/// multiply-add, `top = tl + (tr − tl)·ax`, `bottom = bl + (br − bl)·ax`,
/// `out = top + (bottom − top)·ay`.
///
/// Options (`ResizeBilinearOptions`): `align_corners` and `half_pixel_centers`, both default
/// false; the deprecated `new_height` and `new_width` are not read.
public struct ResizeBilinear: OperatorDescriptor {
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

    public static let builtin = BuiltinOperator.resizeBilinear
    public static let optionsType = BuiltinOptionsType.resizeBilinear

    /// `align_corners` and `half_pixel_centers` of `ResizeBilinearOptions`.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.ResizeBilinear
        return Options(
            alignCorners: try table.value(Fields.alignCorners), halfPixelCenters: try table.value(Fields.halfPixelCenters))
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
    /// For `run`: how each output row blends two input rows (`outputHeight` entries).
    var rowBlends: [LinearBlend] = []
    /// For `run`: how each output column blends two input columns (`outputWidth` entries).
    var columnBlends: [LinearBlend] = []

    /// Where one output index samples along an axis in the fast kernel: the
    /// two source indices and the fraction of the way from the first to the
    /// second.
    struct LinearBlend: Sendable {
        /// The first source index (`y0`/`x0`).
        var lower: Int
        /// The second source index (`y1`/`x1`), `lower + 1` or, at the last index, `lower`.
        var upper: Int
        /// `ay`/`ax`.
        var fraction: Float
    }

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
        var kernel = ResizeBilinear(
            outputShapes: [output],
            batches: input[0], inputHeight: input[1], inputWidth: input[2], channels: input[3],
            outputHeight: newHeight, outputWidth: newWidth,
            heightScale: scale(input[1], newHeight), widthScale: scale(input[2], newWidth),
            halfPixelCenters: options.halfPixelCenters)
        kernel.rowBlends = (0..<newHeight).map {
            kernel.blend($0, scale: kernel.heightScale, inputSize: kernel.inputHeight)
        }
        kernel.columnBlends = (0..<newWidth).map {
            kernel.blend($0, scale: kernel.widthScale, inputSize: kernel.inputWidth)
        }
        return kernel
    }

    /// The indices and fraction output index `index` blends in the fast
    /// kernel, with XNNPACK's float operations.
    func blend(_ index: Int, scale: Float, inputSize: Int) -> LinearBlend {
        let last = Float(inputSize - 1)
        var position: Float
        if halfPixelCenters {
            let offset: Float = 0.5 * scale - 0.5
            let scaled: Float = Float(index) * scale
            position = min(max(scaled + offset, 0), last)
        } else {
            position = Float(index) * scale
        }
        // 0 ≤ position < inputSize: clamped, or index · inputSize / outputSize (or the
        // align-corners scale) with index < outputSize, so the conversion cannot trap.
        let lower = Int(position)
        return LinearBlend(lower: lower, upper: min(lower + 1, inputSize - 1), fraction: position - Float(lower))
    }

    /// XNNPACK's blend with the indices and fractions tabulated at prepare,
    /// eight channels at a time (scalar tail), over output rows split across
    /// `runner`. Every value takes the same float operations whatever the
    /// lane or thread, so results are bit-identical for all thread counts.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        // x: [N, H, W, C]; y: [N, newHeight, newWidth, C].
        guard outputShapes[0].elementCount > 0 else { return }
        // Four reads per output element.
        runner.forEach(
            batches * outputHeight, minimumPerChunk: minimumRowsPerTask(rowLength: 4 * outputWidth * channels),
            ResizeBilinearRows(kernel: self, x: io.inputs[0], y: io.outputs[0]))
    }

    /// Writes output rows `rows` (over all images) of `run`.
    fileprivate func writeRows(_ rows: Range<Int>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        let channels = self.channels
        let rowStride = inputWidth * channels, imageStride = inputHeight * rowStride
        let outputRowLength = outputWidth * channels
        rowBlends.withUnsafeBufferPointer { rowBlends in
            columnBlends.withUnsafeBufferPointer { columnBlends in
                for row in rows {
                    let b = row / outputHeight, rowBlend = rowBlends[row % outputHeight]
                    let top = x + b * imageStride + rowBlend.lower * rowStride
                    let bottom = x + b * imageStride + rowBlend.upper * rowStride
                    let ay = rowBlend.fraction
                    var destination = y + row * outputRowLength
                    if channels == 8 {
                        // One vector a pixel (pose_landmark_full's 8-channel maps): with the
                        // channel count a constant, the loop over channels and its tail go.
                        for columnBlend in columnBlends {
                            blendPixel(columnBlend, channels: 8, top: top, bottom: bottom, ay: ay, into: destination)
                            destination += 8
                        }
                    } else {
                        for columnBlend in columnBlends {
                            blendPixel(columnBlend, channels: channels, top: top, bottom: bottom, ay: ay, into: destination)
                            destination += channels
                        }
                    }
                }
            }
        }
    }

    /// XNNPACK's blend of the `channels` values of one output pixel from the
    /// source rows `top` and `bottom` (each `inputWidth × channels` floats):
    /// across between the columns of `columnBlend`, then down by `ay`, without
    /// fused multiply-add; eight channels at a time, then one by one.
    @inline(__always)
    private func blendPixel(
        _ columnBlend: LinearBlend, channels: Int, top: UnsafePointer<Float>, bottom: UnsafePointer<Float>,
        ay: Float, into destination: UnsafeMutablePointer<Float>
    ) {
        let left = columnBlend.lower &* channels, right = columnBlend.upper &* channels
        let ax = columnBlend.fraction, axLanes = SIMD8<Float>(repeating: ax), ayLanes = SIMD8<Float>(repeating: ay)
        var c = 0
        while c + 8 <= channels {
            let topLeft = loadVector8(top + left + c), bottomLeft = loadVector8(bottom + left + c)
            let upper = topLeft + (loadVector8(top + right + c) - topLeft) * axLanes
            let lower = bottomLeft + (loadVector8(bottom + right + c) - bottomLeft) * axLanes
            storeVector8(upper + (lower - upper) * ayLanes, destination + c)
            c += 8
        }
        while c < channels {
            let topLeft = top[left + c], bottomLeft = bottom[left + c]
            let upper: Float = topLeft + (top[right + c] - topLeft) * ax
            let lower: Float = bottomLeft + (bottom[right + c] - bottomLeft) * ax
            destination[c] = upper + (lower - upper) * ay
            c += 1
        }
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

/// The output rows of one RESIZE_BILINEAR invocation, for `ParallelRunner.forEach`.
private struct ResizeBilinearRows: ParallelWork {
    let kernel: ResizeBilinear
    let x: UnsafePointer<Float>
    let y: UnsafeMutablePointer<Float>

    func run(_ rows: Range<Int>, thread: Int) { kernel.writeRows(rows, x: x, y: y) }
}
