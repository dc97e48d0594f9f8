import KernelTemplates
import Tensor

/// A CONV_2D with few input channels that reads a channel-last input and
/// writes a channel-major output: the same convolution as the `Conv2D` it is
/// made from, for the first operator of a channel-major region (a model's
/// 3-channel stem), so that its output needs no `LayoutConversion`.
///
/// Operands, in the convolution's operand order:
/// - `io.inputs[0]`: the input, `[N, H, W, Cin]` (channel-last);
/// - the filter and bias operands (not read: copied at init);
/// - `io.outputs[0]`: the output, `[N][Cout][OH·OW]` (channel-major); its
///   shape (`outputShapes`) stays the NHWC one.
///
/// The fast kernel first splits each input row by channel and by column
/// phase (the column modulo the horizontal stride) into zero-bordered rows
/// (`PhaseRows`), where every tap of a run of output pixels in one output
/// row is a contiguous slice. For each tile of 64 consecutive output pixels
/// it copies those slices into the tile's taps (`KH·KW·Cin` rows of 64,
/// zeros in the padding) and runs the family's `channelMajorConvTile` on
/// them: each output is its bias plus one multiply-add per tap in
/// `(ky, kx, ic)` order, clamped, as the GEMM microkernels compute the
/// channel-last convolution, so the result is bit-identical to that
/// convolution followed by a `LayoutConversion` (`Conv2D` too adds `0 · w`
/// for a tap in the padding, gathered as a zero).
public struct Conv2DToChannelMajor: PreparedKernel {
    /// The most taps (`KH·KW·Cin`) a convolution may have to run this way:
    /// a tile's taps (`K · 64` floats) then stay within 16 KiB of L1.
    public static let maximumTaps = 64
    /// The most input channels: gathering every tap of every pixel only
    /// pays where a pixel has few (with many, the channel-last GEMM reads
    /// them as contiguous runs).
    public static let maximumInputChannels = 4

    /// "CONV_2D(to CHW)", with "PAD+" in front when a PAD is folded in.
    public let opName: String
    /// `[[N, OH, OW, Cout]]`: the convolution's shape (the data is `[N][Cout][OH·OW]`).
    public let outputShapes: [TensorShape]
    /// The convolution's count, padding taps included.
    public let multiplyAccumulates: Int
    /// The filter and bias are copied at init.
    public let readsConstantInputs = false

    let window: WindowGeometry
    /// Cin.
    let inputChannels: Int
    /// Cout.
    let outputChannels: Int
    /// `[Cout][KH·KW·Cin]`, the filter in its own `(ky, kx, ic)` order.
    let filter: [Float]
    /// `[Cout]`.
    let bias: [Float]
    let activation: FusedActivation
    /// The family whose tile kernel runs.
    let instructionSet: KernelInstructionSet
    /// Where the fast kernel finds each tap's input row.
    let phaseRows: PhaseRows
    /// `phaseRows.tapOffsets(channels: Cin)`.
    let tapOffsets: [Int]

    /// K = KH·KW·Cin.
    var tapCount: Int { window.filterHeight * window.filterWidth * inputChannels }
    /// OH·OW.
    var outputPixels: Int { window.outputHeight * window.outputWidth }

    /// The channel-major form of `conv`, or nil when it does not apply:
    /// `conv`'s filter is not packed yet (`Conv2D.isFilterPacked`), it
    /// has a fused ADD or PRELU, more than `maximumInputChannels`
    /// input channels or `maximumTaps` taps.
    public init?(_ conv: Conv2D) {
        let g = conv.window
        let taps = g.filterHeight * g.filterWidth * conv.inputChannels
        guard conv.isFilterPacked, conv.epilogue.isEmpty,
              conv.inputChannels <= Self.maximumInputChannels, taps <= Self.maximumTaps
        else { return nil }
        opName = (conv.foldsPadding ? "PAD+" : "") + "CONV_2D(to CHW)"
        outputShapes = conv.outputShapes
        multiplyAccumulates = conv.multiplyAccumulates
        window = g
        inputChannels = conv.inputChannels
        outputChannels = conv.outputChannels
        filter = conv.packed.unpackedWeights()
        bias = conv.packed.unpackedBias()
        activation = conv.activation
        instructionSet = conv.packed.instructionSet
        phaseRows = PhaseRows(g)
        tapOffsets = phaseRows.tapOffsets(channels: conv.inputChannels)
    }

    /// One value at a time: the taps summed in `(ky, kx, ic)` order in Float,
    /// plus the bias, clamped (`Conv2D.runReference`'s arithmetic), stored
    /// channel-major.
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N, H, W, Cin]
        let output = io.outputs[0]  // [N][Cout][OH·OW]
        let g = window
        for n in 0..<g.batch {
            for oc in 0..<outputChannels {
                for oy in 0..<g.outputHeight {
                    for ox in 0..<g.outputWidth {
                        var total: Float = 0
                        for ky in 0..<g.filterHeight {
                            let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                            guard iy >= 0, iy < g.inputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                                guard ix >= 0, ix < g.inputWidth else { continue }
                                let pixel = ((n * g.inputHeight + iy) * g.inputWidth + ix) * inputChannels
                                let tap = (oc * g.filterHeight + ky) * g.filterWidth + kx
                                for ic in 0..<inputChannels {
                                    total += input[pixel + ic] * filter[tap * inputChannels + ic]
                                }
                            }
                        }
                        let index = (n * outputChannels + oc) * outputPixels + oy * g.outputWidth + ox
                        output[index] = activation.apply(total + bias[oc])
                    }
                }
            }
        }
    }

    /// The phase rows of one image (`PhaseRows.floats(channels:)`), then per
    /// thread one tile's taps (`K · 64` floats).
    public func workspaceSize(threadCount: Int) throws -> Int {
        let rows = phaseRows.floats(channels: inputChannels)
        // K ≤ maximumTaps: the product per thread is small.
        let (taps, overflow) = max(1, threadCount).multipliedReportingOverflow(by: tapCount * Self.tilePixels)
        let (size, sumOverflow) = rows.addingReportingOverflow(taps)
        guard !overflow, !sumOverflow, size <= TensorShape.maxElements else {
            throw KernelError(op: opName, "workspace for \(threadCount) threads exceeds \(TensorShape.maxElements) floats")
        }
        return size
    }

    /// Pixels per tile (`channelMajorConvTile`'s).
    static let tilePixels = channelMajorConvTilePixels

    /// Image by image: the phase rows, row by row, then tiles of 64 output
    /// pixels, each phase spread over the threads; every value is computed
    /// the same way whatever the thread count.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let rowFloats = phaseRows.floats(channels: inputChannels)
        precondition(
            io.workspace.count >= rowFloats + tapCount * Self.tilePixels * runner.threadCount,
            "the workspace is smaller than workspaceSize(threadCount:) asked for")
        let g = window
        let threads = usefulThreadCount(runner.threadCount, multiplyAdds: outputPixels, tapCount, outputChannels)
        let tilesPerImage = (outputPixels + Self.tilePixels - 1) / Self.tilePixels
        let rows = io.workspace.baseAddress!
        filter.withUnsafeBufferPointer { filter in
            bias.withUnsafeBufferPointer { bias in
                tapOffsets.withUnsafeBufferPointer { tapOffsets in
                for n in 0..<g.batch {
                    let split = PhaseRowSplit(
                        image: io.inputs[0] + n * g.inputHeight * g.inputWidth * inputChannels, rows: rows,
                        layout: phaseRows, inputWidth: g.inputWidth, channels: inputChannels)
                    runner.limited(to: threads).forEach(g.inputHeight, split)
                    let tiles = ChannelMajorOutputTiles(
                        rows: UnsafePointer(rows), output: io.outputs[0] + n * outputChannels * outputPixels,
                        filter: filter.baseAddress!, bias: bias.baseAddress!, taps: rows + rowFloats,
                        tapOffsets: tapOffsets.baseAddress!, kernels: instructionSet.microkernels, rowBlock: inputChannels * phaseRows.strideW * phaseRows.length,
                        window: g, inputChannels: inputChannels, outputChannels: outputChannels,
                        clamp: activation.clampRange)
                    runner.limited(to: threads).forEach(tilesPerImage, tiles)
                }
                }
            }
        }
    }
}

/// How the fast kernel of `Conv2DToChannelMajor` lays out one image's input
/// rows: input row `iy`, channel `ic`, phase `p` (the columns `x` with
/// `x mod strideW = p`) is a row of `length` floats at
/// `((iy·Cin + ic)·strideW + p)·length`, holding column `q·strideW + p` at
/// `left + q` and zeros elsewhere; one more row of zeros follows them all,
/// for taps in the top and bottom padding. Filter column `kx` of output
/// column `ox` then reads phase `phase[kx]` at `left + ox + shift[kx]`.
struct PhaseRows: Sendable {
    /// The phase filter column kx reads.
    let phase: [Int]
    /// The offset from the output column to the phase row's index, per kx.
    let shift: [Int]
    /// Zeros before column 0 of each phase row.
    let left: Int
    /// Floats per phase row, a multiple of 16.
    let length: Int
    let inputHeight: Int
    let strideW: Int

    init(_ g: WindowGeometry) {
        var phase: [Int] = [], shift: [Int] = []
        for kx in 0..<g.filterWidth {
            // Input column of output column ox: ox·strideW + offset.
            let offset = kx * g.dilationW - g.padLeft
            let p = (offset % g.strideW + g.strideW) % g.strideW
            phase.append(p)
            shift.append((offset - p) / g.strideW)
        }
        let columnsPerPhase = (g.inputWidth + g.strideW - 1) / g.strideW
        left = max(0, -(shift.min() ?? 0))
        let used = left + max(g.outputWidth + (shift.max() ?? 0), columnsPerPhase)
        length = (used + 15) / 16 * 16
        self.phase = phase
        self.shift = shift
        inputHeight = g.inputHeight
        strideW = g.strideW
    }

    /// Floats of one image's rows plus the zero row. The geometry's sizes
    /// are validated (each at most 2^31) and `length` is at most about
    /// `W + KW·dilationW + 16`, but the product may still be large: the
    /// caller checks it against the tensor limit.
    func floats(channels: Int) -> Int {
        let (rows, overflow) = (inputHeight * channels).multipliedReportingOverflow(by: strideW)
        let (size, overflow2) = (rows + 1).multipliedReportingOverflow(by: length)
        return overflow || overflow2 ? Int.max : size
    }

    /// Per `(kx, ic)`, in that order: where output column 0's tap `kx` of
    /// channel `ic` reads, from the start of its input row's block of
    /// `Cin · strideW` phase rows.
    func tapOffsets(channels: Int) -> [Int] {
        var offsets: [Int] = []
        for kx in phase.indices {
            for ic in 0..<channels { offsets.append((ic * strideW + phase[kx]) * length + left + shift[kx]) }
        }
        return offsets
    }
}

/// Item `iy` of `Conv2DToChannelMajor.run`'s first phase: input row `iy`
/// split into its phase rows (`PhaseRows`); the last item also zeroes the
/// zero row.
private struct PhaseRowSplit: ParallelWork {
    let image: UnsafePointer<Float>
    let rows: UnsafeMutablePointer<Float>
    let layout: PhaseRows
    let inputWidth: Int
    let channels: Int

    func run(_ items: Range<Int>, thread: Int) {
        let length = layout.length, stride = layout.strideW
        for iy in items {
            let source = image + iy * inputWidth * channels
            for ic in 0..<channels {
                for p in 0..<stride {
                    let row = rows + ((iy * channels + ic) * stride + p) * length
                    let count = p < inputWidth ? (inputWidth - p + stride - 1) / stride : 0
                    row.update(repeating: 0, count: layout.left)
                    var column = source + p * channels + ic
                    for q in 0..<count {
                        row[layout.left + q] = column.pointee
                        column += stride * channels
                    }
                    (row + layout.left + count).update(repeating: 0, count: length - layout.left - count)
                }
            }
            if iy == layout.inputHeight - 1 {
                (rows + layout.inputHeight * channels * stride * length).update(repeating: 0, count: length)
            }
        }
    }
}

/// Item `t` of `Conv2DToChannelMajor.run`'s second phase: output pixels
/// `64·t ..< 64·t + 64` (fewer in the last tile) of one image.
private struct ChannelMajorOutputTiles: ParallelWork {
    let rows: UnsafePointer<Float>
    /// `[Cout][OH·OW]` of the image.
    let output: UnsafeMutablePointer<Float>
    let filter: UnsafePointer<Float>
    let bias: UnsafePointer<Float>
    /// `K · 64` floats per thread.
    let taps: UnsafeMutablePointer<Float>
    /// `PhaseRows.tapOffsets`: per `(kx, ic)`.
    let tapOffsets: UnsafePointer<Int>
    /// The convolution's family's microkernels, looked up once per call.
    let kernels: MicrokernelTable
    /// Floats between the phase rows of consecutive input rows (`Cin · strideW · length`);
    /// the zero row follows those of the last input row.
    let rowBlock: Int
    let window: WindowGeometry
    let inputChannels: Int
    let outputChannels: Int
    let clamp: (lower: Float, upper: Float)

    func run(_ items: Range<Int>, thread: Int) {
        let g = window
        let tile = Conv2DToChannelMajor.tilePixels
        let tapCount = g.filterHeight * g.filterWidth * inputChannels
        let taps = self.taps + thread * tapCount * tile
        let pixels = g.outputHeight * g.outputWidth
        for item in items {
            let first = item * tile
            let count = min(tile, pixels - first)
            if count < tile {
                taps.update(repeating: 0, count: tapCount * tile)
            }
            // The tile's runs of pixels within one output row.
            var column = 0
            while column < count {
                let oy = (first + column) / g.outputWidth, ox = (first + column) % g.outputWidth
                let run = min(count - column, g.outputWidth - ox)
                let zeroRow = rows + g.inputHeight * rowBlock
                for ky in 0..<g.filterHeight {
                    let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                    let inside = iy >= 0 && iy < g.inputHeight
                    let block = rows + (inside ? iy * rowBlock : 0)
                    for tap in 0..<(g.filterWidth * inputChannels) {
                        let source = inside ? block + tapOffsets[tap] : zeroRow
                        copyShortFloats(
                            from: source + ox, to: taps + (ky * g.filterWidth * inputChannels + tap) * tile + column, count: run)
                    }
                }
                column += run
            }
            kernels.channelMajorConvTile(
                ChannelMajorConvTile(
                    taps: taps, tapCount: tapCount, weights: filter, bias: bias, outputChannels: outputChannels,
                    output: output + first, channelStride: pixels, pixels: count,
                    lower: clamp.lower, upper: clamp.upper))
        }
    }
}
