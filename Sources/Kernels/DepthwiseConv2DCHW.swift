import KernelTemplates
import Tensor

/// DEPTHWISE_CONV_2D on channel-major tensors: the same convolution as a
/// `DepthwiseConv2D` with depth multiplier 1, reading and writing
/// `[N][C][H·W]` (each channel's H×W plane contiguous and row-major)
/// instead of `[N, H, W, C]`:
///
///     output[n][c][oy·OW + ox] = clamp(bias[c] + Σ_{ky,kx} input[n][c][iy·W + ix] · filter[0, ky, kx, c])
///     iy = oy·strideH − padTop + ky,  ix = ox·strideW − padLeft + kx
///
/// where taps outside the input (in the padding, including a folded PAD's)
/// contribute nothing.
///
/// Only the shapes of the plane kernels (`depthwiseCHWBand`,
/// `depthwiseCHWPlanes` of the weights' family's `MicrokernelTable`) are
/// taken: square 3×3 or 5×5 filters, undilated, the same stride (1 or 2)
/// along both axes (XNNPACK's channel-major depthwise kernels take the
/// same; every depthwise layer of the bundled models has one of them); and
/// only filters they compute bit for bit as `DepthwiseConv2D` does: they
/// add `0 · w` for a tap in the padding, which changes a sum only when it
/// is `−0` (a bias of `−0`) or `w` is not finite. `init?` returns nil for
/// anything else. Small planes with a 5 × 5 filter go through the
/// channel-last kernels instead, 16 channels at a time, copied into a
/// channel-last tile and back (`DepthwiseCHWTiles`): the same sums.
public struct DepthwiseConv2DCHW: PreparedKernel {
    /// "DEPTHWISE_CONV_2D(CHW)", "PAD+DEPTHWISE_CONV_2D(CHW)" when a PAD is folded into it.
    public var opName: String { (foldsPadding ? "PAD+" : "") + "DEPTHWISE_CONV_2D(CHW)" }
    /// `[[N, OH, OW, C]]`, the wrapped op's shape; the tensor itself is laid
    /// out `[N][C][OH·OW]`.
    public let outputShapes: [TensorShape]
    /// `N · OH · OW · C · KH · KW`, as the wrapped op counts them.
    public let multiplyAccumulates: Int
    /// Filter and bias are copied at prepare time.
    public let readsConstantInputs = false
    /// The family whose plane kernels run.
    let instructionSet: KernelInstructionSet
    /// Batch and spatial geometry of the sliding window (with any folded padding).
    let window: WindowGeometry
    /// C: input and output channels.
    let channels: Int
    let activation: FusedActivation
    /// The filter as `[C][KH·KW]`: each channel's taps together, row-major
    /// (both kernels read it); from the weight store (`PackedWeightStore`)
    /// when a load gives one.
    let channelFilters: AlignedBuffer
    /// `[C]`; zeros when the op has no bias.
    let bias: [Float]
    let foldsPadding: Bool
    /// Whether each work item is a whole plane for the flat-plane kernel
    /// (small planes at equal strides), instead of a band of rows.
    let flatPlanes: Bool
    /// Output rows per work item (a band of one channel plane) on one
    /// thread; `ThreadSplit` may take fewer on more threads.
    let bandRows: Int
    /// Floats of one scratch row (`depthwiseCHWScratchRowFloats`).
    let scratchRowFloats: Int
    /// The filter as the channel-last kernels read it, when the planes go
    /// through them in tiles of 16 channels (`DepthwiseCHWTiles`): 5 × 5
    /// filters on planes of at most `channelLastTileMaximumPixels` output
    /// pixels, with a multiple of 8 channels (so that every tile has a whole
    /// number of 8-lane vectors); nil where the plane kernels run. On a
    /// Zen 4 pose_detection's such layers ran 1.1–1.5× faster in tiles with
    /// the AVX-512 kernels and 1.06–1.2× with the AVX2 ones; in tiles its
    /// 3 × 3 layers ran 1.15–1.6× slower and its 28 × 28 5 × 5 ones within
    /// 7 % either way (AVX-512).
    let channelLastWeights: PackedDepthwiseWeights?
    /// Floats of scratch one thread uses, rounded up to a multiple of 16:
    /// one band's rows and 16 floats of slack, with `flatPlanes`
    /// `depthwiseCHWPlaneScratchFloats`, or with `channelLastWeights` an
    /// input and an output tile (`DepthwiseCHWTiles.scratchFloats`).
    let scratchPerThread: Int

    /// Scratch floats per band the band height aims at (32 KiB, in L1).
    static let scratchBudget = 8 * 1024
    /// Work items the split into bands aims at when there are few planes.
    static let minimumWorkItems = 16
    /// The most floats a padded row of the flat-plane kernel may take: one
    /// vector (wider rows are faster in bands).
    static let flatPlaneMaximumRowFloats = 16
    /// The fewest output rows a thread's band may have for `run` to split
    /// the planes' rows between threads (`ThreadSplit`).
    static let minimumRowsPerThreadBand = 28
    /// The most output pixels a plane may have for the channel-last tiles
    /// (`channelLastWeights`): 16 × 16.
    static let channelLastTileMaximumPixels = 256

    /// The channel-major form of `depthwise`, or nil when no plane kernel
    /// fits: a depth multiplier other than 1, dilation, a filter other than
    /// 3×3 or 5×5, a stride other than 1 or 2 or different strides along H
    /// and W, weights not packed (the reference mode), a bias of `−0` or a
    /// filter value that is not finite.
    public init?(_ depthwise: DepthwiseConv2D) {
        let g = depthwise.window
        guard let packed = depthwise.packed,
              depthwise.depthMultiplier == 1,
              g.dilationH == 1, g.dilationW == 1,
              g.filterHeight == g.filterWidth, g.filterWidth == 3 || g.filterWidth == 5,
              (1...2).contains(g.strideH), g.strideW == g.strideH
        else { return nil }
        let channels = depthwise.outputChannels, taps = g.filterHeight * g.filterWidth
        let bias = Array(UnsafeBufferPointer(start: packed.bias, count: channels))
        // The taps' rows, padding included (zeros): every weight is among them.
        let packedTaps = UnsafeBufferPointer(start: packed.taps(row: 0, column: 0), count: taps * packed.channelStride)
        guard addsPaddingTapsExactly(bias: bias, weights: packedTaps) else { return nil }
        let (channelFilters, needsPacking) = PackedWeightStore.packedWeights(count: channels * taps)
        if needsPacking {
            let filters = channelFilters.baseAddress
            for t in 0..<taps {
                let tapWeights = packed.taps(row: t / g.filterWidth, column: t % g.filterWidth)
                for c in 0..<channels { filters[c * taps + t] = tapWeights[c] }
            }
        }
        let rowFloats = depthwiseCHWScratchRowFloats(
            size: g.filterWidth, strideWidth: g.strideW, outputWidth: g.outputWidth)
        // Rows fitting the budget: each output row adds strideH scratch rows.
        let cacheRows = max(1, (Self.scratchBudget / rowFloats - g.filterHeight) / g.strideH + 1)
        // Planes ≤ N·C ≤ the input's element count: no overflow.
        let planes = g.batch * channels
        let splitForThreads = (Self.minimumWorkItems + planes - 1) / planes
        let bands = min(g.outputHeight, max((g.outputHeight + cacheRows - 1) / cacheRows, splitForThreads))
        let planeFloats = depthwiseCHWPlaneScratchFloats(
            size: g.filterWidth, stride: g.strideW, outputHeight: g.outputHeight, outputWidth: g.outputWidth)
        let flatPlanes = g.outputWidth + (g.filterWidth - 1) / g.strideW <= Self.flatPlaneMaximumRowFloats
            && planeFloats <= Self.scratchBudget
        let bandRows = flatPlanes ? g.outputHeight : (g.outputHeight + bands - 1) / bands
        self.instructionSet = packed.instructionSet
        self.window = g
        self.channels = channels
        self.activation = depthwise.activation
        self.channelFilters = channelFilters
        self.bias = bias
        self.foldsPadding = depthwise.foldsPadding
        self.flatPlanes = flatPlanes
        self.outputShapes = depthwise.outputShapes
        self.multiplyAccumulates = depthwise.multiplyAccumulates
        self.bandRows = bandRows
        self.scratchRowFloats = rowFloats
        let tiles = g.filterWidth == 5 && g.outputHeight * g.outputWidth <= Self.channelLastTileMaximumPixels
            && channels.isMultiple(of: 8)
        self.channelLastWeights = tiles ? packed : nil
        // Rows and row floats are bounded by tensor dimensions plus the filter
        // size. 16 floats of slack: filling a row may write a vector past it.
        self.scratchPerThread = tiles
            ? (DepthwiseCHWTiles.scratchFloats(g.convolutionGeometry) + 15) / 16 * 16
            : flatPlanes
            ? (planeFloats + 15) / 16 * 16
            : (((bandRows - 1) * g.strideH + g.filterHeight) * rowFloats + 31) / 16 * 16
    }

    /// One band of scratch rows per thread.
    /// - Throws: `KernelError` when that exceeds `TensorShape.maxElements` floats.
    public func workspaceSize(threadCount: Int) throws -> Int {
        let (total, overflow) = max(1, threadCount).multipliedReportingOverflow(by: scratchPerThread)
        guard !overflow, total <= TensorShape.maxElements else {
            throw KernelError(
                op: opName,
                "scratch of \(scratchPerThread) floats per thread for \(threadCount) threads is too large")
        }
        return total
    }

    /// Direct convolution, one output value at a time, summing taps in
    /// (ky, kx) order in Float exactly as `DepthwiseConv2D.runReference`
    /// does, so both give the same bits up to the layout.
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N][C][H·W]
        let output = io.outputs[0]  // [N][C][OH·OW]
        let g = window
        for n in 0..<g.batch {
            for c in 0..<channels {
                let inputPlane = input + (n * channels + c) * g.inputHeight * g.inputWidth
                let outputPlane = output + (n * channels + c) * g.outputHeight * g.outputWidth
                for oy in 0..<g.outputHeight {
                    for ox in 0..<g.outputWidth {
                        var total: Float = 0
                        for ky in 0..<g.filterHeight {
                            let iy = oy * g.strideH - g.padTop + ky
                            guard iy >= 0, iy < g.inputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ix = ox * g.strideW - g.padLeft + kx
                                guard ix >= 0, ix < g.inputWidth else { continue }
                                total += inputPlane[iy * g.inputWidth + ix]
                                    * channelFilters.baseAddress[(c * g.filterHeight + ky) * g.filterWidth + kx]
                            }
                        }
                        outputPlane[oy * g.outputWidth + ox] = activation.apply(total + bias[c])
                    }
                }
            }
        }
    }

    /// The family's plane kernels over work items of one band of output rows
    /// of one channel plane (or, for small planes, of one whole plane, runs
    /// of consecutive planes going to the kernel together), or with
    /// `channelLastWeights` the channel-last kernels over tiles of 16
    /// channels (`DepthwiseCHWTiles`, a group of planes an item); each thread
    /// uses its own slice of `io.workspace` (at least
    /// `workspaceSize(threadCount: runner.threadCount)` floats). Every output
    /// value is computed the same way whatever the thread count and the bands.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        precondition(
            io.workspace.count / runner.threadCount >= scratchPerThread,
            "\(opName): workspace smaller than workspaceSize(threadCount:)")
        let g = window
        let threads = usefulThreadCount(
            runner.threadCount, multiplyAdds: g.batch * channels, g.outputHeight * g.outputWidth,
            g.filterHeight * g.filterWidth)
        if let weights = channelLastWeights {
            guard let scratch = io.workspace.baseAddress else { preconditionFailure("\(opName): empty workspace") }
            let groups = (channels + DepthwiseCHWTiles.tileChannels - 1) / DepthwiseCHWTiles.tileChannels
            runner.limited(to: threads).forEach(
                g.batch * groups,
                DepthwiseCHWTiles(
                    geometry: g.convolutionGeometry, weights: weights, kernels: instructionSet.microkernels,
                    channels: channels, groups: groups, input: io.inputs[0], output: io.outputs[0],
                    clamp: activation.clampRange, scratch: scratch, scratchPerThread: scratchPerThread))
            return
        }
        let split = ThreadSplit(kernel: self, threads: threads)
        // Validated sizes: planes · bands ≤ N·C·OH, below the output's element count.
        let items = g.batch * channels * split.bandsPerPlane
        bias.withUnsafeBufferPointer { bias in
            guard let scratch = io.workspace.baseAddress, let bias = bias.baseAddress
            else { preconditionFailure("\(opName): empty workspace or bias") }
            runner.limited(to: threads).forEach(
                items,
                Bands(
                    kernel: self, split: split, kernels: instructionSet.microkernels, input: io.inputs[0],
                    output: io.outputs[0], filters: channelFilters.baseAddress, bias: bias, scratch: scratch))
        }
    }

    /// How `run` cuts the planes into work items for its threads.
    ///
    /// On one thread, or on planes of fewer than `minimumRowsPerThreadBand`
    /// rows a thread, items go plane by plane (each plane's bands in turn),
    /// so a thread takes whole planes. On large planes the items go band by
    /// band, each thread's share being at least one band of rows of every
    /// plane: the rows the sparse 1 × 1 convolutions before and after, which
    /// split by pixel tiles, write and read on the same thread. Split by
    /// planes, the 1 × 1 convolutions after pose_detection's 112 × 112 and
    /// 56 × 56 depthwise layers ran 27–40 % longer at 2 threads; split by
    /// rows, 28 × 28 and 14 × 14 planes (bands of 14 and 7 rows, whose
    /// halos add 2 or 4 input rows to each) ran 26–45 % longer (Xeon, AVX-512,
    /// 2026-12-06).
    struct ThreadSplit {
        /// Output rows of each band (the last of a plane may have fewer).
        let bandRows: Int
        let bandsPerPlane: Int
        /// Whether item `i` is band `i / planes` of plane `i % planes`
        /// rather than band `i % bandsPerPlane` of plane `i / bandsPerPlane`.
        let bandMajor: Bool

        init(kernel: DepthwiseConv2DCHW, threads: Int) {
            let height = kernel.window.outputHeight
            bandMajor = threads > 1 && !kernel.flatPlanes
                && height / threads >= DepthwiseConv2DCHW.minimumRowsPerThreadBand
            // No more rows than `kernel.bandRows`, whose scratch the workspace holds.
            bandRows = bandMajor ? min(kernel.bandRows, (height + threads - 1) / threads) : kernel.bandRows
            bandsPerPlane = (height + bandRows - 1) / bandRows
        }
    }

    /// Work item `i`: a band of output rows of one plane (plane `n·C + c`)
    /// as `split` orders them, or with `flatPlanes` plane `i` whole, for
    /// `ParallelRunner.forEach`.
    private struct Bands: ParallelWork {
        let kernel: DepthwiseConv2DCHW
        let split: ThreadSplit
        /// `kernel.instructionSet.microkernels`, looked up once per call.
        let kernels: MicrokernelTable
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let filters: UnsafePointer<Float>
        let bias: UnsafePointer<Float>
        let scratch: UnsafeMutablePointer<Float>

        func run(_ items: Range<Int>, thread: Int) {
            let k = kernel, g = kernel.window
            let inputPlane = g.inputHeight * g.inputWidth, outputPlane = g.outputHeight * g.outputWidth
            let taps = g.filterHeight * g.filterWidth
            let (lower, upper) = k.activation.clampRange
            if k.flatPlanes {
                // Runs of planes of one batch item, so that their channels
                // are consecutive.
                var plane = items.lowerBound
                while plane < items.upperBound {
                    let c = plane % k.channels, count = min(items.upperBound - plane, k.channels - c)
                    kernels.depthwiseCHWPlanes(
                        g.filterWidth, g.strideW,
                        DepthwiseCHWPlanesOperands(
                            input: input + plane * inputPlane, inputHeight: g.inputHeight,
                            inputWidth: g.inputWidth, output: output + plane * outputPlane,
                            outputHeight: g.outputHeight, outputWidth: g.outputWidth, planeCount: count,
                            padTop: g.padTop, padLeft: g.padLeft, weights: filters + c * taps, biases: bias + c,
                            lower: lower, upper: upper, scratch: scratch + thread * k.scratchPerThread))
                    plane += count
                }
                return
            }
            // Scratch rows whose padding columns this call has zeroed: a
            // band with no more rows finds them still zero.
            var zeroedRows = 0
            let planes = g.batch * k.channels
            for item in items {
                let plane = split.bandMajor ? item % planes : item / split.bandsPerPlane, c = plane % k.channels
                let band = split.bandMajor ? item / planes : item % split.bandsPerPlane
                let firstRow = band * split.bandRows
                let rowCount = min(split.bandRows, g.outputHeight - firstRow)
                kernels.depthwiseCHWBand(
                    g.filterWidth, g.strideW,
                    DepthwiseCHWBandOperands(
                        input: input + plane * inputPlane, inputHeight: g.inputHeight,
                        inputWidth: g.inputWidth,
                        output: output + plane * outputPlane + firstRow * g.outputWidth,
                        outputWidth: g.outputWidth, firstRow: firstRow,
                        rowCount: rowCount,
                        strideHeight: g.strideH, padTop: g.padTop, padLeft: g.padLeft,
                        weights: filters + c * taps, bias: bias[c], lower: lower, upper: upper,
                        scratch: scratch + thread * k.scratchPerThread, scratchRowFloats: k.scratchRowFloats,
                        paddingColumnsZeroed: rowCount <= zeroedRows))
                zeroedRows = max(zeroedRows, rowCount)
            }
        }
    }
}

/// Whether kernels that add `0 · w` for every tap in the padding give the
/// same bits as kernels that skip those taps: a running sum starts from
/// the bias and becomes `−0` only from a `−0` bias (`+0` plus anything
/// that rounds to zero is `+0`), the only sum that adding `+0` changes;
/// and `0 · w` is `±0` only for a finite `w`.
func addsPaddingTapsExactly(bias: [Float], weights: UnsafeBufferPointer<Float>) -> Bool {
    // A float is finite unless its exponent bits are all ones: the largest exponent
    // field tells, in a loop without a branch per weight.
    let exponentBits = Float.infinity.bitPattern
    let largestExponent = weights.reduce(0 as UInt32) { max($0, $1.bitPattern & exponentBits) }
    return !bias.contains { $0 == 0 && $0.sign == .minus } && largestExponent < exponentBits
}
