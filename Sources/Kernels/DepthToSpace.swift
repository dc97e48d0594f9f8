import FlatBufferReader
import Tensor

/// DEPTH_TO_SPACE: moves channel blocks into spatial blocks.
///
/// Input: `[N, H, W, C]` with C divisible by `blockSize²`. Output:
/// `[N, H * b, W * b, C / b²]` for `b = blockSize`. TFLite uses the "DCR"
/// order (depth, column, row): output pixel `(oy, ox)` channel `c` reads
/// input pixel `(oy / b, ox / b)` channel `((oy % b) * b + ox % b) * (C / b²) + c`.
/// Options (`DepthToSpaceOptions`): `block_size` (default 0, which `prepare` refuses).
public struct DepthToSpace: OperatorDescriptor {
    /// DEPTH_TO_SPACE's options (TFLite `DepthToSpaceOptions`).
    public struct Options: Sendable, Hashable {
        /// Side of the square spatial block each input pixel becomes (≥ 1).
        public var blockSize: Int

        public init(blockSize: Int) {
            self.blockSize = blockSize
        }
    }

    public static let builtin = BuiltinOperator.depthToSpace
    public static let optionsType = BuiltinOptionsType.depthToSpace

    /// `DepthToSpaceOptions.block_size` (an int32; `prepare` checks it is ≥ 1).
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        Options(blockSize: Int(try table.value(BuiltinOptionsFields.DepthToSpace.blockSize)))
    }

    public let opName = "DEPTH_TO_SPACE"
    public let outputShapes: [TensorShape]
    let blockSize: Int
    let inputShape: TensorShape

    /// Validates a rank-4 input whose channels divide into `blockSize²` parts.
    public static func prepare(inputs: [Operand], options: Options) throws -> DepthToSpace {
        guard inputs.count == 1 else {
            throw KernelError(op: "DEPTH_TO_SPACE", "expects 1 input, got \(inputs.count)")
        }
        let input = inputs[0].shape, b = options.blockSize
        guard input.rank == 4 else {
            throw KernelError(op: "DEPTH_TO_SPACE", "input must be [N, H, W, C], got \(input)")
        }
        guard b >= 1 else {
            throw KernelError(op: "DEPTH_TO_SPACE", "block size \(b) must be ≥ 1")
        }
        let (blockArea, areaOverflow) = b.multipliedReportingOverflow(by: b)
        guard !areaOverflow, input[3] % blockArea == 0 else {
            throw KernelError(
                op: "DEPTH_TO_SPACE", "input channels \(input[3]) are not divisible by block size² = \(b)²")
        }
        let (height, heightOverflow) = input[1].multipliedReportingOverflow(by: b)
        let (width, widthOverflow) = input[2].multipliedReportingOverflow(by: b)
        guard !heightOverflow, !widthOverflow else {
            throw KernelError(op: "DEPTH_TO_SPACE", "output size of \(input) with block size \(b) overflows")
        }
        let output: TensorShape
        do {
            output = try TensorShape([input[0], height, width, input[3] / blockArea])
        } catch {
            throw KernelError(op: "DEPTH_TO_SPACE", "output shape for \(input) with block size \(b) is invalid: \(error)")
        }
        return DepthToSpace(outputShapes: [output], blockSize: b, inputShape: input)
    }

    /// Copies contiguous runs: for output row `oy` and input column `ix`, the
    /// `b` output pixels `ix·b ..< ix·b + b` read `b · C/b²` consecutive input
    /// channels starting at `(oy % b) · b · C/b²`. Output rows are split over
    /// `runner` in memory-bound tasks. Bit-identical to `runReference`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        guard outputShapes[0].elementCount > 0 else { return }
        let out = outputShapes[0]
        runner.forEach(
            out[0] * out[1], minimumPerChunk: minimumRowsPerTask(rowLength: out[2] * out[3]),
            DepthToSpaceRows(kernel: self, x: io.inputs[0], y: io.outputs[0]))
    }

    /// Writes output rows `rows` (over all images) of `run`.
    fileprivate func writeRows(_ rows: Range<Int>, x: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        let b = blockSize, out = outputShapes[0]
        let inputHeight = inputShape[1], inputWidth = inputShape[2], inputChannels = inputShape[3]
        let outputRowLength = out[2] * out[3]
        let run = b * out[3]
        for row in rows {
            let n = row / out[1], oy = row % out[1]
            let source = x + (n * inputHeight + oy / b) * inputWidth * inputChannels + (oy % b) * run
            let destination = y + row * outputRowLength
            for ix in 0..<inputWidth {
                copyFloats(source + ix * inputChannels, to: destination + ix * run, count: run)
            }
        }
    }

    public func runReference(_ io: KernelIO) {
        // x: [N, H, W, C]; y: [N, H * b, W * b, C / b²].
        // Nothing to write; also keeps a zero-sized dimension from leaving
        // the loops over the other (unbounded) sizes spinning.
        guard outputShapes[0].elementCount > 0 else { return }
        let x = io.inputs[0], y = io.outputs[0]
        let b = blockSize, out = outputShapes[0]
        let inputHeight = inputShape[1], inputWidth = inputShape[2], inputChannels = inputShape[3]
        let outputChannels = out[3]
        var output = 0
        for n in 0..<out[0] {
            for oy in 0..<out[1] {
                for ox in 0..<out[2] {
                    let inputPixel = ((n * inputHeight + oy / b) * inputWidth + ox / b) * inputChannels
                    let channelOffset = ((oy % b) * b + ox % b) * outputChannels
                    for c in 0..<outputChannels {
                        y[output] = x[inputPixel + channelOffset + c]
                        output += 1
                    }
                }
            }
        }
    }
}

/// The output rows of one DEPTH_TO_SPACE invocation, for `ParallelRunner.forEach`.
private struct DepthToSpaceRows: ParallelWork {
    let kernel: DepthToSpace
    let x: UnsafePointer<Float>
    let y: UnsafeMutablePointer<Float>

    func run(_ rows: Range<Int>, thread: Int) { kernel.writeRows(rows, x: x, y: y) }
}
