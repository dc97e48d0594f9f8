import FlatBufferReader
import Tensor

/// MediaPipe's custom operator `TransformTensorBilinear`, version 2: an affine crop of a
/// feature map, sampled bilinearly with pixel centres aligned. face_landmark_with_attention
/// uses it to cut 16×16 patches (lips, eyes) out of a 48×48×32 feature map along the matrices
/// of `Landmarks2TransformMatrix`.
///
/// Inputs: `input` `[1, H, W, C]` and `matrix`, 16 values (`[1, 4, 4]`), a row-major 4×4
/// matrix of which rows 0 and 1 are read. Options (a FlexBuffer map): `output_height` and
/// `output_width`. Output: `[1, output_height, output_width, C]`.
///
/// Output pixel `(u, v)` samples the input at `x = m00·u + m01·v + m02·0 + m03′` and
/// `y = m10·u + m11·v + m12·0 + m13′` (in input pixels, float32 sums in that order), where
/// `m03′ = m03 + (0.5·m00 + 0.5·m01 − 0.5)` and likewise `m13′` (computed in double, rounded
/// to float once) turn the matrix, which maps pixel corners, into one that maps pixel
/// centres. A point outside `[0, W − 1] × [0, H − 1]` (or NaN) gives 0 in every channel;
/// otherwise the four pixels around it are blended, a neighbour past the last row or column
/// counting as 0:
/// `top = (1 − fx)·q00 + fx·q01`, `bottom = (1 − fx)·q10 + fx·q11`,
/// `value = fy·bottom + (1 − fy)·top`, with `fx`, `fy` the fractional parts. As in MediaPipe's
/// CPU kernel (`mediapipe/util/tflite/operations/transform_tensor_bilinear.cc`, built without
/// fused multiply-add), the `1 − f` terms and each sum are double precision, the `f·q` terms
/// float products, and each blend is rounded to float; both kernels here do exactly that, so
/// `run` is bit-identical to `runReference`.
public struct TransformTensorBilinear: OperatorDescriptor {
    /// The operator's custom options.
    public struct Options: Sendable, Hashable {
        /// The output's size in pixels (`output_height`, `output_width`).
        public var outputHeight: Int32
        public var outputWidth: Int32

        public init(outputHeight: Int32, outputWidth: Int32) {
            self.outputHeight = outputHeight
            self.outputWidth = outputWidth
        }
    }

    public static let builtin = BuiltinOperator.custom
    public static let custom: CustomOperatorCode? = CustomOperatorCode("TransformTensorBilinear", version: 2)
    public static let optionsType: UInt8 = 0

    /// Reads `output_height` and `output_width` (a missing key reads as 0, as in MediaPipe's
    /// parser, and is then refused: both must be > 0).
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        guard let map = try table.customOptions() else {
            throw KernelError(op: name, "carries no custom_options")
        }
        return Options(
            outputHeight: try map.int32("output_height") ?? 0, outputWidth: try map.int32("output_width") ?? 0)
    }

    public let opName = "TransformTensorBilinear"
    public let outputShapes: [TensorShape]
    let height: Int, width: Int, channels: Int
    let outputHeight: Int, outputWidth: Int

    /// Validates the operands: `input` `[1, H, W, C]`, `matrix` of 16 values, output sizes > 0.
    public static func prepare(inputs: [Operand], options: Options) throws -> TransformTensorBilinear {
        guard inputs.count == 2 else {
            throw KernelError(op: name, "expects 2 inputs (input, matrix), got \(inputs.count)")
        }
        let input = inputs[0].shape, matrix = inputs[1].shape
        guard input.rank == 4, input[0] == 1 else {
            throw KernelError(op: name, "input must have shape [1, H, W, C], got \(input)")
        }
        guard matrix.elementCount == 16 else {
            throw KernelError(op: name, "matrix must hold a 4×4 matrix (16 values), got \(matrix)")
        }
        for (key, size) in [("output_height", options.outputHeight), ("output_width", options.outputWidth)] where size <= 0 {
            throw KernelError(op: name, "\(key) is \(size); it must be > 0")
        }
        let dims = [1, Int(options.outputHeight), Int(options.outputWidth), input[3]]
        let output: TensorShape
        do {
            output = try TensorShape(dims)
        } catch {
            throw KernelError(op: name, "output shape \(dims) is invalid: \(error)")
        }
        return TransformTensorBilinear(
            outputShapes: [output], height: input[1], width: input[2], channels: input[3],
            outputHeight: dims[1], outputWidth: dims[2])
    }

    /// Where one output pixel samples the input: the top-left neighbour and the fractions
    /// toward the next column and row.
    struct Sample {
        let column: Int, row: Int
        let right: Float, lower: Float
    }

    /// The two rows of the matrix the sampling uses, shifted to map pixel centres.
    func samplingRows(_ m: UnsafePointer<Float>) -> (SIMD4<Float>, SIMD4<Float>) {
        var x = SIMD4(m[0], m[1], m[2], m[3]), y = SIMD4(m[4], m[5], m[6], m[7])
        x[3] = Float(Double(x[3]) + (Double(x[0]) * 0.5 + Double(x[1]) * 0.5 - 0.5))
        y[3] = Float(Double(y[3]) + (Double(y[0]) * 0.5 + Double(y[1]) * 0.5 - 0.5))
        return (x, y)
    }

    /// Where output pixel `(u, v)` samples: its four neighbours' rows and columns and the
    /// fractions, or nil when the point is outside the input (or NaN).
    func sample(_ u: Int, _ v: Int, x: SIMD4<Float>, y: SIMD4<Float>) -> Sample? {
        let pu = Float(u), pv = Float(v)
        let sx = x[0] * pu + x[1] * pv + x[2] * 0 + x[3] * 1
        let sy = y[0] * pu + y[1] * pv + y[2] * 0 + y[3] * 1
        guard sx >= 0, sx <= Float(width - 1), sy >= 0, sy <= Float(height - 1) else { return nil }
        let fx = sx.rounded(.down), fy = sy.rounded(.down)
        return Sample(column: Int(fx), row: Int(fy), right: sx - fx, lower: sy - fy)
    }

    /// The blend of MediaPipe's kernel for one channel.
    @inline(__always)
    static func blend(_ q00: Float, _ q01: Float, _ q10: Float, _ q11: Float, right: Float, lower: Float) -> Float {
        let top = Float((1.0 - Double(right)) * Double(q00) + Double(right * q01))
        let bottom = Float((1.0 - Double(right)) * Double(q10) + Double(right * q11))
        return Float(Double(lower * bottom) + (1.0 - Double(lower)) * Double(top))
    }

    /// Output rows split over `runner`; per pixel, the four neighbours' channel rows blended.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runner.forEach(outputHeight, TransformTensorRows(kernel: self, io: io))
    }

    /// Writes output rows `rows`.
    fileprivate func writeRows(_ rows: Range<Int>, _ io: KernelIO) {
        let input = io.inputs[0], output = io.outputs[0]
        let (x, y) = samplingRows(io.inputs[1])
        for v in rows {
            for u in 0..<outputWidth {
                let destination = output + (v * outputWidth + u) * channels
                guard let s = sample(u, v, x: x, y: y) else {
                    destination.update(repeating: 0, count: channels)
                    continue
                }
                // A neighbour past the last row or column reads as 0 (the sample itself is inside).
                let hasRight = s.column + 1 < width, hasBelow = s.row + 1 < height
                let p00 = input + (s.row * width + s.column) * channels
                let p01 = p00 + channels, p10 = p00 + width * channels, p11 = p10 + channels
                for c in 0..<channels {
                    destination[c] = Self.blend(
                        p00[c], hasRight ? p01[c] : 0, hasBelow ? p10[c] : 0, hasRight && hasBelow ? p11[c] : 0,
                        right: s.right, lower: s.lower)
                }
            }
        }
    }

    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0], output = io.outputs[0]
        let (x, y) = samplingRows(io.inputs[1])
        for v in 0..<outputHeight {
            for u in 0..<outputWidth {
                let s = sample(u, v, x: x, y: y)
                for c in 0..<channels {
                    var value: Float = 0
                    if let s {
                        func read(_ row: Int, _ column: Int) -> Float {
                            row < height && column < width ? input[(row * width + column) * channels + c] : 0
                        }
                        value = Self.blend(
                            read(s.row, s.column), read(s.row, s.column + 1), read(s.row + 1, s.column),
                            read(s.row + 1, s.column + 1), right: s.right, lower: s.lower)
                    }
                    output[(v * outputWidth + u) * channels + c] = value
                }
            }
        }
    }
}


/// `TransformTensorBilinear.run`'s output rows for `ParallelRunner`.
private struct TransformTensorRows: ParallelWork {
    let kernel: TransformTensorBilinear
    let io: KernelIO

    func run(_ items: Range<Int>, thread: Int) { kernel.writeRows(items, io) }
}
