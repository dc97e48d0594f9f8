import FlatBufferReader
import KernelTemplates
import Tensor

/// MAX_POOL_2D: the maximum over each spatial window of an NHWC activation,
/// per channel, followed by a fused activation, computed as TFLite's builtin
/// reference kernel computes it (float32).
///
/// Operand: `input [N, H, W, C]`. Output `[N, OH, OW, C]`, with OH and OW
/// chosen by `Options.padding`:
///
///     output[n, oy, ox, c] = act(max_{ky, kx} input[n, oy·strideH − padTop + ky, ox·strideW − padLeft + kx, c])
///
/// The maximum runs over the taps inside the input only: padding taps are
/// ignored, never read as zero. Every window holds at least one input pixel
/// (the leading padding is always smaller than the filter).
public struct MaxPool2D: OperatorDescriptor {
    /// MAX_POOL_2D's builtin options (TFLite `Pool2DOptions`).
    public struct Options: Sendable, Hashable {
        /// How the output size and the implicit padding are chosen.
        public var padding: Padding
        /// Step between output rows, in input pixels (≥ 1).
        public var strideH: Int
        /// Step between output columns, in input pixels (≥ 1).
        public var strideW: Int
        /// Window height, in input pixels (≥ 1).
        public var filterH: Int
        /// Window width, in input pixels (≥ 1).
        public var filterW: Int
        /// Clamp applied to every output value.
        public var activation: FusedActivation

        public init(
            padding: Padding, strideH: Int, strideW: Int, filterH: Int, filterW: Int,
            activation: FusedActivation = .none
        ) {
            self.padding = padding
            self.strideH = strideH
            self.strideW = strideW
            self.filterH = filterH
            self.filterW = filterW
            self.activation = activation
        }
    }

    public static let builtin = BuiltinOperator.maxPool2D
    public static let optionsType = BuiltinOptionsType.pool2D

    /// `Pool2DOptions`: `padding`, `stride_w`, `stride_h`, `filter_width` and `filter_height`
    /// (default 0), each refused below 1 with a `KernelError`, and `fused_activation_function`
    /// (TANH and SIGN_BIT refused).
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.Pool2D
        let op = "MAX_POOL_2D"
        // In the schema's order, so that the first bad field is the one reported.
        let strideW = try table.int(Fields.strideW, atLeast: 1, op: op)
        let strideH = try table.int(Fields.strideH, atLeast: 1, op: op)
        let filterW = try table.int(Fields.filterWidth, atLeast: 1, op: op)
        let filterH = try table.int(Fields.filterHeight, atLeast: 1, op: op)
        return Options(
            padding: try Padding(table, Fields.padding), strideH: strideH, strideW: strideW,
            filterH: filterH, filterW: filterW,
            activation: try FusedActivation(table, Fields.fusedActivationFunction, op: op))
    }

    public let opName = "MAX_POOL_2D"
    /// `[[N, OH, OW, C]]`.
    public let outputShapes: [TensorShape]

    /// Batch and spatial geometry of the window (dilation 1).
    let window: WindowGeometry
    /// C.
    let channels: Int
    let activation: FusedActivation

    /// Validates the operand and options.
    ///
    /// Throws `KernelError` for: an operand count other than 1; an input that is
    /// not 4-D or is empty; strides or filter sizes outside `1...Int32.max`;
    /// an empty output (a VALID window larger than the input).
    public static func prepare(inputs: [Operand], options: Options) throws -> MaxPool2D {
        let op = "MAX_POOL_2D"
        guard inputs.count == 1 else {
            throw KernelError(op: op, "expects 1 input, got \(inputs.count)")
        }
        let inputShape = inputs[0].shape
        guard inputShape.rank == 4 else {
            throw KernelError(op: op, "input must be 4-D [N, H, W, C], got shape \(inputShape)")
        }
        let window = try WindowGeometry(
            op: op, input: inputShape,
            filterHeight: options.filterH, filterWidth: options.filterW,
            filterNames: ("filterH", "filterW"),
            padding: options.padding,
            strideH: options.strideH, strideW: options.strideW, dilationH: 1, dilationW: 1)
        let channels = inputShape[3]
        let outputShape = try makeOutputShape(
            op: op, [window.batch, window.outputHeight, window.outputWidth, channels])
        return MaxPool2D(
            outputShapes: [outputShape], window: window, channels: channels,
            activation: options.activation)
    }

    /// The reference's maximum over output rows split across `runner`: sixteen channels at a
    /// time, then eight, then the last eight for channels left over (one by one below eight
    /// channels); a 2 × 2 window inside the input with its four taps unrolled. Bit-identical to
    /// `runReference`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let g = window
        // Each output element reads up to KH·KW inputs: weigh a row by its taps.
        let rowWork = g.outputWidth * channels * min(g.filterHeight * g.filterWidth, g.inputHeight * g.inputWidth)
        runner.forEach(
            g.batch * g.outputHeight, minimumPerChunk: minimumRowsPerTask(rowLength: rowWork),
            MaxPoolRows(kernel: self, input: io.inputs[0], output: io.outputs[0]))
    }

    /// Writes output rows `rows` (over all images) of `run`. Each output element takes the
    /// window's in-bounds taps in (ky, kx) order from the lowest finite Float, replacing only on
    /// a strictly larger value, as the reference does. The offsets stay inside the validated
    /// input and output tensors, so they are formed with wrapping operators (no overflow checks
    /// in the tap loops).
    fileprivate func writeRows(
        _ rows: Range<Int>, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
    ) {
        // input: [N, H, W, C]; output: [N, OH, OW, C].
        let g = window, channels = self.channels
        let range = activation.clampRange
        let lower = SIMD8<Float>(repeating: range.lower), upper = SIMD8<Float>(repeating: range.upper)
        let lowest = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
        let rowLength = g.outputWidth &* channels
        let inputRowLength = g.inputWidth &* channels
        for row in rows {
            let n = row / g.outputHeight, oy = row % g.outputHeight
            let originY = oy &* g.strideH &- g.padTop
            let taps = max(0, -originY)..<min(g.filterHeight, g.inputHeight &- originY)
            // The window's first valid input row, channel 0.
            let firstRow = input + (n &* g.inputHeight &+ originY &+ taps.lowerBound) &* inputRowLength
            let rowStart = output + row &* rowLength
            // The models' 2 × 2 windows: those wholly inside the input go through
            // `writeTwoByTwoWindows`, the others (at a SAME padding's edges) through the loops below.
            var unrolled = 0..<0
            if g.filterHeight == 2 && g.filterWidth == 2 && taps.count == 2 && channels >= 8 {
                unrolled = g.convolutionGeometry.interiorColumns
                writeTwoByTwoWindows(
                    unrolled.count, from: firstRow + (unrolled.lowerBound &* g.strideW &- g.padLeft) &* channels,
                    rowStride: inputRowLength, pixelStride: g.strideW &* channels, channels: channels,
                    to: rowStart + unrolled.lowerBound &* channels, lower: lower, upper: upper)
            }
            // The other columns, jumping over the unrolled ones.
            var ox = 0
            while ox < g.outputWidth {
                if ox == unrolled.lowerBound && !unrolled.isEmpty {
                    ox = unrolled.upperBound
                    continue
                }
                defer { ox &+= 1 }
                let destination = rowStart + ox &* channels
                let originX = ox &* g.strideW &- g.padLeft
                let columns = max(0, -originX)..<min(g.filterWidth, g.inputWidth &- originX)
                // The window's first valid tap, channel 0.
                let windowStart = firstRow + (originX &+ columns.lowerBound) &* channels
                /// The maxima of channels `c ..< c + 8` and, with `pair`, `c + 8 ..< c + 16`
                /// over the window's taps.
                @inline(__always)
                func largest(_ c: Int, pair: Bool) -> (SIMD8<Float>, SIMD8<Float>) {
                    var largest0 = lowest, largest1 = lowest
                    var tapRow = windowStart + c
                    for _ in taps {
                        var tap = tapRow
                        for _ in columns {
                            largest0 = takingTap(largest0, loadVector8(tap))
                            if pair { largest1 = takingTap(largest1, loadVector8(tap + 8)) }
                            tap += channels
                        }
                        tapRow += inputRowLength
                    }
                    return (largest0, largest1)
                }
                var c = 0
                while c &+ 16 <= channels {
                    let (largest0, largest1) = largest(c, pair: true)
                    storeVector8(clamp(largest0, lower: lower, upper: upper), destination + c)
                    storeVector8(clamp(largest1, lower: lower, upper: upper), destination + (c &+ 8))
                    c &+= 16
                }
                if c &+ 8 <= channels {
                    storeVector8(clamp(largest(c, pair: false).0, lower: lower, upper: upper), destination + c)
                    c &+= 8
                }
                if c < channels && channels >= 8 {
                    // The last 8 channels: those already written get the same values again.
                    let last = channels &- 8
                    storeVector8(clamp(largest(last, pair: false).0, lower: lower, upper: upper), destination + last)
                    c = channels
                }
                while c < channels {
                    var largest = -Float.greatestFiniteMagnitude
                    var tapRow = windowStart + c
                    for _ in taps {
                        var tap = tapRow
                        for _ in columns {
                            if largest < tap.pointee { largest = tap.pointee }
                            tap += channels
                        }
                        tapRow += inputRowLength
                    }
                    destination[c] = clamp(largest, lower: range.lower, upper: range.upper)
                    c &+= 1
                }
            }
        }
    }

    /// Writes `count` output pixels of 2 × 2 windows whose four taps all lie inside the input,
    /// `writeRows`' arithmetic with the tap loops unrolled: eight channels (≥ 8) at a time, the
    /// last eight again for channels left over.
    /// - Parameters:
    ///   - first: the first window's top-left tap, channel 0; its top-right tap is `channels`
    ///     floats on, its bottom row `rowStride` floats on, the next window `pixelStride` floats on.
    ///   - destination: the first output pixel, channel 0; the next is `channels` floats on.
    @inline(__always)
    private func writeTwoByTwoWindows(
        _ count: Int, from first: UnsafePointer<Float>, rowStride: Int, pixelStride: Int, channels: Int,
        to destination: UnsafeMutablePointer<Float>, lower: SIMD8<Float>, upper: SIMD8<Float>
    ) {
        let lowest = SIMD8<Float>(repeating: -Float.greatestFiniteMagnitude)
        var top = first, output = destination
        for _ in 0..<count {
            @inline(__always)
            func write(_ c: Int) {
                let bottom = top + rowStride
                var largest = takingTap(lowest, loadVector8(top + c))
                largest = takingTap(largest, loadVector8(top + (channels &+ c)))
                largest = takingTap(largest, loadVector8(bottom + c))
                largest = takingTap(largest, loadVector8(bottom + (channels &+ c)))
                storeVector8(clamp(largest, lower: lower, upper: upper), output + c)
            }
            var c = 0
            while c &+ 8 <= channels {
                write(c)
                c &+= 8
            }
            // The last 8 channels: those already written get the same values again.
            if c < channels { write(channels &- 8) }
            top += pixelStride
            output += channels
        }
    }

    /// The maximum of each window's in-bounds taps, visited in (ky, kx) order
    /// and starting from the lowest finite Float, as TFLite's reference kernel does.
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N, H, W, C]
        let output = io.outputs[0]  // [N, OH, OW, C]
        let g = window
        for n in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    // The window's taps clipped to the input, so a window far
                    // larger than the input costs only its in-bounds taps. The
                    // ranges are never reversed: (OH − 1)·strideH < H and
                    // padTop < filterH, so every window overlaps the input.
                    let originY = oy * g.strideH - g.padTop
                    let originX = ox * g.strideW - g.padLeft
                    let rows = max(0, -originY)..<min(g.filterHeight, g.inputHeight - originY)
                    let columns = max(0, -originX)..<min(g.filterWidth, g.inputWidth - originX)
                    for c in 0..<channels {
                        var largest = -Float.greatestFiniteMagnitude
                        for ky in rows {
                            for kx in columns {
                                let iy = originY + ky, ix = originX + kx
                                let value = input[((n * g.inputHeight + iy) * g.inputWidth + ix) * channels + c]
                                // Replaces only on a strictly larger value, like `std::max(largest, value)`.
                                if largest < value { largest = value }
                            }
                        }
                        output[((n * g.outputHeight + oy) * g.outputWidth + ox) * channels + c] =
                            activation.apply(largest)
                    }
                }
            }
        }
    }
}

/// The running maximum of eight channels after one more tap: replaced only by a strictly larger
/// value, as the reference's `std::max`. `select` on typed masks: `replace(with:where:)` goes
/// lane by lane.
@inline(__always)
private func takingTap(_ largest: SIMD8<Float>, _ value: SIMD8<Float>) -> SIMD8<Float> {
    let larger: SIMDMask<SIMD8<Int32>> = largest .< value
    return select(larger, value, largest)
}

/// The output rows of one MAX_POOL_2D invocation, for `ParallelRunner.forEach`.
private struct MaxPoolRows: ParallelWork {
    let kernel: MaxPool2D
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>

    func run(_ rows: Range<Int>, thread: Int) { kernel.writeRows(rows, input: input, output: output) }
}
