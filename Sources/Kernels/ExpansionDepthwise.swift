import KernelTemplates
import Tensor

/// A 1×1 CONV_2D that expands a map to many channels and the DEPTHWISE_CONV_2D that alone reads
/// the expanded map (the first two layers of an inverted residual block), run as one operator
/// that never writes the expanded map whole.
///
/// Operands, in the convolution's operand order:
/// - `io.inputs[0]`: the convolution's input, `[N, H, W, Cin]`; its filter and bias operands
///   (not read: both layers copied their constants when they were prepared);
/// - `io.outputs[0]`: the depthwise layer's output, `[N, OH, OW, C]`.
///
/// Unfused, the expanded map (`[N, H, W, C]`, 3.2 MB for hand_landmark_lite's 112 × 112 × 64)
/// is written whole and read back whole; where it outgrows a core's L2 it makes the round trip
/// through L3 or memory. At one thread this operator walks the depthwise layer's row units
/// (`DepthwiseRowUnits`: bands of up to 4 output rows, or single rows) in order and, for each,
/// first expands the input rows its filter reads that are not in the band yet, into a band of
/// the workspace, right below the rows the previous unit left there that it reads too; then the
/// depthwise kernels read the band while it is in L1 and L2. Each expanded value is computed by
/// the same GEMM tiles as the unfused convolution (a value depends only on its pixel's row of the
/// input, never on the tile), and each output row by the same depthwise kernels over the same
/// values, so the results are bit-identical to running the two layers one after the other.
///
/// At more threads, on a map of at least `minimumBandedFloatsAtThreads` floats, each thread walks
/// one contiguous run of the units in the same way with a band of its own (the rows where two
/// runs meet are expanded by both); on smaller maps the two layers run one after the other, the
/// expanded map in the workspace, each core expanding and reading back its own part of the map.
///
/// `OperatorFusion.joiningExpansions` makes one where the expanded map has at least
/// `minimumExpandedFloats` floats; on smaller maps the pair is no faster joined.
public struct ExpansionDepthwise: PreparedKernel {
    /// Expanded maps of at least 256 Ki floats (1 MiB) join their depthwise layer. On a 2-core
    /// Xeon (AVX-512, 2 MiB of L2 a core) at one thread, joined against the two layers: the
    /// 112 × 112 × 64 and 128 × 128 × 64 pairs of the hand landmark models and pose_landmark_full
    /// about a quarter faster, their 56 × 56 and 64 × 64 pairs of 96 or 144 channels 0–13 %, a
    /// 28 × 28 × 240 pair (188 Ki floats) level (Benchmarks/JOURNAL.md, "An expansion and its
    /// depthwise layer in bands, at one thread").
    public static let minimumExpandedFloats = 256 * 1024

    /// Expanded maps of at least 768 Ki floats (3 MiB) run in bands at more than one thread too,
    /// one contiguous run of units a thread. On the 2-core Xeon (AVX-512) at two threads, against
    /// the two layers one after the other: the 112 × 112 × 64 and 128 × 128 × 64 pairs 14–20 %
    /// faster (the AVX2 family 11 %); the stride-1 56 × 56 and 64 × 64 pairs (at most 576 Ki
    /// floats) 2–5 % slower and the smaller stride-2 ones level, so those stay layer by layer
    /// (Benchmarks/JOURNAL.md, "Two threads: the hand-over's line, depthwise rows a part a thread,
    /// the largest expansions in bands").
    public static let minimumBandedFloatsAtThreads = 768 * 1024

    /// "CONV_2D+DEPTHWISE_CONV_2D", with the names of what each layer has folded in.
    public let opName: String
    /// `[[N, OH, OW, C]]`: the depthwise layer's.
    public var outputShapes: [TensorShape] { depthwise.outputShapes }
    /// Both layers'.
    public let multiplyAccumulates: Int
    /// Both layers copied their filters and biases.
    public let readsConstantInputs = false

    let expansion: Conv2D
    let depthwise: DepthwiseConv2D
    let geometry: ConvolutionGeometry
    let weights: PackedDepthwiseWeights
    let units: DepthwiseRowUnits
    /// Floats of one expanded row: `W · C`.
    let rowFloats: Int
    /// The most expanded rows one unit reads: its band of the workspace holds that many.
    let bandRows: Int
    /// Floats of the band, rounded up to whole cache lines (the widened panel follows it).
    let bandFloats: Int
    /// Whether more than one thread walks the units in bands (`minimumBandedFloatsAtThreads`).
    let bandsAtThreads: Bool
    /// Floats of one thread's band and the convolution's workspace at one thread (its widened panel).
    let bandWorkspaceFloats: Int

    /// `expansion` and `depthwise` as one operator, or nil where that does not apply: the
    /// convolution is not 1×1 with a packed filter or has a fused ADD (its residual would be read
    /// a band at a time too); the depthwise layer does not read the convolution's output shape,
    /// is itself pointwise or has no fast kernel, or its filter is not one the band kernels take
    /// (3×3 or 5×5, stride 1 or 2, undilated, at least `depthwiseBandMinimumChannels`); the
    /// expanded map has fewer than `minimumExpandedFloats` floats (the tests join smaller maps, and
    /// band smaller ones at more threads with `minimumBandedFloatsAtThreads`); the convolution's
    /// workspace at one thread cannot be sized.
    public init?(
        expansion: Conv2D, depthwise: DepthwiseConv2D, minimumExpandedFloats: Int = Self.minimumExpandedFloats,
        minimumBandedFloatsAtThreads: Int = Self.minimumBandedFloatsAtThreads
    ) {
        guard expansion.isPointwise, expansion.isFilterPacked, expansion.epilogue.add == nil,
              let weights = depthwise.packed, !depthwise.isPointwise,
              expansion.outputShapes[0].dimensions == [
                  depthwise.window.batch, depthwise.window.inputHeight, depthwise.window.inputWidth,
                  depthwise.inputChannels],
              expansion.outputShapes[0].elementCount >= minimumExpandedFloats
        else { return nil }
        let g = depthwise.window.convolutionGeometry
        guard g.hasSpecialisedDepthwiseKernels, weights.channels >= depthwiseBandMinimumChannels else { return nil }
        self.expansion = expansion
        self.depthwise = depthwise
        self.geometry = g
        self.weights = weights
        units = DepthwiseRowUnits(geometry: g, channels: weights.channels)
        rowFloats = g.inputWidth * weights.channels
        // A unit has at most 4 rows (`DepthwiseRowUnits`).
        bandRows = min(g.inputHeight, 3 * g.strideHeight + g.kernelHeight)
        guard let panelFloats = try? expansion.workspaceSize(threadCount: 1) else { return nil }
        bandFloats = (bandRows * rowFloats + 15) / 16 * 16
        bandWorkspaceFloats = bandFloats + panelFloats
        bandsAtThreads = expansion.outputShapes[0].elementCount >= minimumBandedFloatsAtThreads
        opName = expansion.opName + "+" + depthwise.opName
        multiplyAccumulates = expansion.multiplyAccumulates + depthwise.multiplyAccumulates
    }

    /// Floats of the expanded map, `N · H · W · C`.
    var expandedFloats: Int { expansion.outputShapes[0].elementCount }

    /// Whether `threads` threads walk the units in bands (`runInBands`), each its own run of them.
    private func runsInBands(threads: Int) -> Bool {
        threads == 1 || bandsAtThreads
    }

    /// A band and widened panel for each thread that walks bands; for the layers one after the
    /// other, and for `runReference`, the whole expanded map and the convolution's workspace for
    /// that many threads.
    public func workspaceSize(threadCount: Int) throws -> Int {
        let threads = max(1, threadCount)
        // Both terms are at most `TensorShape.maxElements`: the sum does not overflow.
        var floats = expandedFloats + (try expansion.workspaceSize(threadCount: threads))
        if runsInBands(threads: threads) {
            let (bands, overflow) = bandWorkspaceFloats.multipliedReportingOverflow(by: threads)
            floats = overflow ? Int.max : max(bands, floats)
        }
        guard floats <= TensorShape.maxElements else {
            throw KernelError(op: opName, "workspace for \(threadCount) threads exceeds \(TensorShape.maxElements) floats")
        }
        return floats
    }

    /// The two reference kernels one after the other, the expanded map in the workspace.
    public func runReference(_ io: KernelIO) {
        let expanded = io.workspace.baseAddress!
        let rest = UnsafeMutableBufferPointer(rebasing: io.workspace[expandedFloats...])
        expansion.runReference(KernelIO(inputs: io.inputs, outputs: [expanded], workspace: rest))
        depthwise.runReference(KernelIO(inputs: [UnsafePointer(expanded)], outputs: io.outputs))
    }

    /// At one thread the units in order, band by band (`runInBands`); at more, on a large map, one
    /// contiguous run of the units a thread, band by band; else the two fast kernels one after the
    /// other.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let workspace = io.workspace.baseAddress!
        let threads = runner.threadCount
        guard runsInBands(threads: threads) else {
            let rest = UnsafeMutableBufferPointer(rebasing: io.workspace[expandedFloats...])
            expansion.runPointwise(
                pixels: 0..<(expandedFloats / weights.channels), input: io.inputs[0], output: workspace,
                workspace: rest, runner: runner)
            depthwise.run(input: workspace, output: io.outputs[0], weights: weights, runner: runner)
            return
        }
        runner.forEach(
            threads,
            ThreadBands(
                operator: self, threads: threads, input: io.inputs[0], output: io.outputs[0], workspace: io.workspace))
    }

    /// Thread `item`'s run of every image's units for `ParallelRunner.forEach`, in the band of the
    /// thread that computes it.
    private struct ThreadBands: ParallelWork {
        let `operator`: ExpansionDepthwise
        let threads: Int
        let input: UnsafePointer<Float>
        let output: UnsafeMutablePointer<Float>
        let workspace: UnsafeMutableBufferPointer<Float>

        func run(_ items: Range<Int>, thread: Int) {
            let start = thread * `operator`.bandWorkspaceFloats
            let band = workspace.baseAddress! + start
            let panel = UnsafeMutableBufferPointer(
                rebasing: workspace[(start + `operator`.bandFloats)..<(start + `operator`.bandWorkspaceFloats)])
            let unitCount = `operator`.units.perImage
            for item in items {
                // Unit counts are at most an output height: the products do not overflow.
                let units = (unitCount * item / threads)..<(unitCount * (item + 1) / threads)
                `operator`.runInBands(input: input, output: output, units: units, band: band, panel: panel)
            }
        }
    }

    /// Units `units` of every image in order on the calling thread, each after the expanded rows
    /// it reads: `band` holds `bandRows · rowFloats` floats, `panel` the convolution's workspace at
    /// one thread.
    private func runInBands(
        input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, units unitRange: Range<Int>,
        band: UnsafeMutablePointer<Float>, panel: UnsafeMutableBufferPointer<Float>
    ) {
        let g = geometry
        let inputImage = g.inputHeight * g.inputWidth * expansion.inputChannels
        let outputImage = g.outputHeight * g.outputWidth * weights.channels
        let kernels = weights.instructionSet.microkernels
        let oneGroup = DepthwiseChannelGroups(channels: weights.channels, inputRows: 0, threads: 1)
        for n in 0..<expansion.outputShapes[0][0] {
            // The band holds expanded rows `first ..< end` of image `n`.
            var first = 0, end = 0
            for unit in unitRange {
                let (oy, rows) = units.rows(ofUnit: unit)
                // The input rows the unit's filter rows cover, clipped to the image: from `low`,
                // which never decreases from one unit to the next, to `high`.
                let low = max(0, oy * g.strideHeight - g.padTop)
                let high = min(g.inputHeight, (oy + rows - 1) * g.strideHeight - g.padTop + g.kernelHeight)
                if low >= end {
                    (first, end) = (low, low)
                } else if low > first {
                    // The rows the previous unit read and this one reads too move to the band's top.
                    band.update(from: band + (low - first) * rowFloats, count: (end - low) * rowFloats)
                    first = low
                }
                if high > end {
                    expansion.runPointwise(
                        pixels: (end * g.inputWidth)..<(high * g.inputWidth), input: input + n * inputImage,
                        output: band + (end - first) * rowFloats, workspace: panel, runner: .serial)
                    end = high
                }
                DepthwiseRows(
                    geometry: g, weights: weights, kernels: kernels, units: units, unitCount: units.perImage,
                    channelGroups: oneGroup, input: band, firstInputRow: first, output: output + n * outputImage,
                    clamp: depthwise.activation.clampRange
                ).run(unit..<(unit + 1), thread: 0)
            }
        }
    }
}
