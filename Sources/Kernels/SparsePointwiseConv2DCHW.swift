import KernelTemplates
import Tensor

/// A 1×1 CONV_2D whose filter is mostly zeros, on channel-major tensors:
/// the same convolution as the `Conv2D` it is made from, computed from the
/// filter's non-zero values only.
///
/// Tensors are laid out `[N][C][P]` (P = H·W pixels, contiguous per channel)
/// instead of NHWC; their shapes (`outputShapes`) stay the NHWC ones.
/// Operands, in the convolution's operand order:
/// - `io.inputs[0]`: the input, `[N][Cin][P]`;
/// - the filter and bias operands (not read: copied at init);
/// - with a fused ADD, the residual `[N][Cout][P]` after them;
/// - `io.outputs[0]`: the output, `[N][Cout][P]`:
///
///       y = clamp(bias[oc] + Σ_{ic: w[oc, ic] ≠ 0} w[oc, ic] · input[n][ic][p], activation)
///       output[n][oc][p] = clamp(y + residual[n][oc][p], addLower, addUpper)   (or residual + y)
///
/// the second line only with a fused ADD, with the ADD's float operations.
/// The fast kernel (`sparsePointwiseTile`) runs each sum in the dense fast
/// kernel's order (the bias, then one multiply-add per non-zero weight in
/// ascending input channel order), so for finite inputs its output is the
/// dense `Conv2D`'s bit for bit: leaving out a zero weight leaves a sum
/// unchanged except where the sum is −0, which only a −0 bias can start,
/// so every weight of an output channel with a −0 bias is kept. Where an
/// input is infinite or NaN, the dense convolution's `0 · x` makes its sum
/// NaN and this one's not.
public struct SparsePointwiseConv2DCHW: PreparedKernel {
    /// "CONV_2D(sparse CHW)", with "+ADD" when an ADD is fused.
    public let opName: String
    /// `[[N, H, W, Cout]]`: the convolution's shape (the data is `[N][Cout][H·W]`).
    public let outputShapes: [TensorShape]
    /// The dense convolution's `N · H · W · Cout · Cin`, zeros included, so
    /// that rates stay comparable with `Conv2D`'s.
    public let multiplyAccumulates: Int
    /// The filter and bias are copied at init.
    public let readsConstantInputs = false
    /// Non-zero filter values, over `Cout · Cin`.
    public let density: Double

    /// Pixels per tile of the fast kernel.
    static let tilePixels = SparsePointwiseTile.width
    /// Input channels per block of the fast kernel: a tile's rows of one
    /// block (`tilePixels · 128` floats, 32 KiB) stay in L1 while every
    /// output channel reads them. Without blocks, layers of 480 to 1152
    /// input channels ran 15–50 % longer (measured on 32-pixel tiles).
    static let defaultBlockChannels = 128

    let batch: Int
    /// P = H·W.
    let pixels: Int
    /// Cin.
    let inputChannels: Int
    /// Cout.
    let outputChannels: Int
    /// Input channels per block (the last block may have fewer).
    let blockChannels: Int
    let blockCount: Int
    /// The family whose tile kernels `run` calls: the convolution's.
    let instructionSet: KernelInstructionSet
    /// Whether the fast kernel first copies each tile's input rows to
    /// aligned scratch (`packSparsePointwiseTile`): when rows of P floats do
    /// not all start on a 64-byte boundary. Unpacked, misaligned rows made
    /// the 14×14 and 7×7 layers run 30–50 % longer with the AVX-512 kernels;
    /// packing aligned rows would cost up to about 10 % (measured on 32-pixel
    /// tiles).
    let packsInput: Bool
    /// The kept filter values, where to find their input rows (with
    /// `packsInput`, `(ic − first channel of its block) · 64` in the packed
    /// tile; otherwise `ic · P` in the image: `inputChannel(ofOffset:block:)`
    /// gives `ic` back), and where each output channel's values of each block
    /// start (`SparsePointwiseLists.withLists`).
    let lists: SparsePointwiseLists
    /// `[Cout]`.
    let bias: [Float]
    let activation: FusedActivation
    /// The fused ADD, if any (never a PRELU).
    let epilogue: ConvolutionEpilogue
    /// Index of the residual in `io.inputs` when an ADD is fused.
    let residualOperand: Int

    /// The largest fraction of non-zero filter values worth running sparse
    /// with the kernels of the family `conv` was prepared for: 0.3 with the
    /// baseline (AVX2) kernels, 0.28 with the AVX-512 ones, whose dense GEMM
    /// gains more from 16 lanes than the sparse tile does. On a Zen 5 at one
    /// thread (2026-12-05), face_detection_full_range_sparse (filters at 30 %)
    /// ran 3 % faster dense with the AVX-512 kernels and 4 % slower dense
    /// with the AVX2 ones; pose_detection (25 %) runs 15 % faster sparse with
    /// the AVX-512 kernels; the few mostly-zero filters of hand_landmark_full
    /// are denser than either bound. Only chooses which kernel runs: both
    /// give the same bits.
    package static func worthwhileDensity(for conv: Conv2D) -> Double {
        conv.instructionSet == .avx512 ? 0.28 : 0.3
    }

    /// The sparse form of `conv`, or nil when it does not apply: `conv` is
    /// not a 1×1 convolution with unit strides and no padding, has a fused
    /// PRELU or RELU, or more than `maxDensity` of its filter values are non-zero.
    /// It runs with the kernels of the family `conv` was prepared for. With
    /// `filter`, `conv`'s filter as compressed rows (`[Cout, Cin]`), the
    /// weights are read from its stored values rather than from `conv`'s
    /// packed panels: the same kernel either way. A `conv` whose filter is
    /// not packed yet (`Conv2D.isFilterPacked`) needs `filter`.
    public init?(_ conv: Conv2D, maxDensity: Double = 0.5, filter: CompressedRowFilter? = nil) {
        self.init(conv, maxDensity: maxDensity, blockChannels: Self.defaultBlockChannels, filter: { filter })
    }

    /// `init(_:maxDensity:filter:)` with the compressed rows given by `filter`
    /// (nil: none), called only when the weight lists are built: not when a
    /// weight-store scope (`PackedWeightStore`) holds them from an earlier
    /// load of the model.
    public init?(_ conv: Conv2D, maxDensity: Double, filter: () -> CompressedRowFilter?) {
        self.init(conv, maxDensity: maxDensity, blockChannels: Self.defaultBlockChannels, filter: filter)
    }

    /// `init(_:maxDensity:filter:)` with blocks of at most `blockChannels`
    /// input channels, packing each tile's input rows when `packsInput` says
    /// so (nil: when P is not a multiple of 16).
    init?(
        _ conv: Conv2D, maxDensity: Double, blockChannels: Int, packsInput: Bool? = nil,
        filter: () -> CompressedRowFilter? = { nil }
    ) {
        let g = conv.window
        guard conv.isPointwise, conv.epilogue.preluAlpha == nil, !conv.epilogue.rectifies, blockChannels > 0,
              g.outputHeight == g.inputHeight, g.outputWidth == g.inputWidth
        else { return nil }
        let cin = conv.inputChannels, cout = conv.outputChannels
        let bias = conv.unpackedBias()
        let pixels = g.inputHeight * g.inputWidth
        let blockCount = (cin + blockChannels - 1) / blockChannels
        // Even blocks: at most `blockChannels` each.
        let layout = SparsePointwiseLists.Layout(
            inputChannels: cin, outputChannels: cout, blockChannels: (cin + blockCount - 1) / blockCount,
            blockCount: blockCount, pixels: pixels, packsInput: packsInput ?? !pixels.isMultiple(of: 16),
            tilePixels: Self.tilePixels)
        let lists = SparsePointwiseLists.stored(layout: layout, maxDensity: maxDensity) {
            /// Whether output channel `oc` keeps its zero weights: its sum starts from −0.
            let keepsZeros = bias.map { $0 == 0 && $0.sign == .minus }
            if let filter = filter() {
                guard filter.rows == cout, filter.columns == cin else { return nil }
                return SparsePointwiseLists(
                    compressedRows: filter, layout: layout, keepsZeros: keepsZeros, maxDensity: maxDensity)
            }
            precondition(conv.isFilterPacked, "a convolution whose filter is not packed needs its compressed rows")
            return SparsePointwiseLists(
                packed: conv.packed, layout: layout, keepsZeros: keepsZeros, maxDensity: maxDensity)
        }
        guard let lists else { return nil }
        var epilogue = ConvolutionEpilogue.none
        epilogue.add = conv.epilogue.add
        self.opName = "CONV_2D(sparse CHW)" + (epilogue.add != nil ? "+ADD" : "")
        self.outputShapes = conv.outputShapes
        self.multiplyAccumulates = conv.multiplyAccumulates
        self.density = lists.density
        self.batch = g.batch
        self.pixels = pixels
        self.inputChannels = cin
        self.outputChannels = cout
        self.blockChannels = layout.blockChannels
        self.blockCount = blockCount
        self.instructionSet = conv.instructionSet
        self.packsInput = layout.packsInput
        self.lists = lists
        self.bias = bias
        self.activation = conv.activation
        self.epilogue = epilogue
        self.residualOperand = conv.convolutionOperandCount
    }

    /// The input channel of a kept weight of block `block` whose entry in
    /// `offsets` is `offset` (P ≥ 1 wherever there is a pixel to compute).
    func inputChannel(ofOffset offset: Int32, block: Int) -> Int {
        packsInput ? block * blockChannels + Int(offset) / Self.tilePixels : Int(offset) / pixels
    }

    /// The residual of a fused ADD, from the kernel's inputs.
    private func residual(_ io: KernelIO) -> UnsafePointer<Float>? {
        epilogue.add == nil ? nil : io.inputs[residualOperand]
    }

    /// One value at a time: the kept products summed in ascending input
    /// channel order in Float, plus the bias, clamped, then the fused ADD as
    /// the ADD's reference kernel computes it (the dense `Conv2D`'s
    /// reference, whose sum starts from +0, gives the same bits).
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N][Cin][P]
        let output = io.outputs[0]  // [N][Cout][P]
        let residual = self.residual(io)  // [N][Cout][P]
        lists.withLists { values, offsets, starts in
            for n in 0..<batch {
                let image = input + n * inputChannels * pixels
                for oc in 0..<outputChannels {
                    let row = (n * outputChannels + oc) * pixels
                    for p in 0..<pixels {
                        var total: Float = 0
                        for block in 0..<blockCount {
                            let first = Int(starts[block * outputChannels + oc])
                            let end = Int(starts[block * outputChannels + oc + 1])
                            for k in first..<end {
                                let ic = inputChannel(ofOffset: offsets[k], block: block)
                                total += values[k] * image[ic * pixels + p]
                            }
                        }
                        let y = activation.apply(total + bias[oc])
                        output[row + p] = epilogue.apply(y, residual: residual?[row + p] ?? 0, channel: oc)
                    }
                }
            }
        }
    }

    /// Per thread: with more than one block of input channels, the sums of
    /// one tile between blocks (`Cout · 64` floats), and with `packsInput`,
    /// one block of a tile's input rows (`blockChannels · 64` floats).
    public func workspaceSize(threadCount: Int) throws -> Int {
        let perThread = threadWorkspace
        guard perThread > 0 else { return 0 }
        let (size, overflow) = max(1, threadCount).multipliedReportingOverflow(by: perThread)
        guard !overflow, size <= TensorShape.maxElements else {
            throw KernelError(
                op: opName, "workspace for \(threadCount) threads exceeds \(TensorShape.maxElements) floats")
        }
        return size
    }

    /// Floats of workspace each thread of `run` uses: partial sums, then the
    /// packed input rows (both multiples of 16 floats, so both stay aligned).
    var threadWorkspace: Int {
        // Cout and blockChannels are at most 2^31 and 64 is small: no overflow.
        (blockCount > 1 ? outputChannels * Self.tilePixels : 0) + (packsInput ? blockChannels * Self.tilePixels : 0)
    }

    /// Tiles of 64 pixels (the last of an image may have fewer) times
    /// groups of output channels, each tile's blocks of input channels in
    /// order: every value is computed the same way whatever the thread
    /// count, so the results are bit-identical for all of them.
    ///
    /// A map of fewer tiles than the threads want (14 × 14 and smaller) is
    /// cut into groups of output channels too, and the items are ordered
    /// group by group, so that each thread's share is whole groups: its
    /// channels' planes for every pixel. Only the line where two threads'
    /// groups meet is then written by both (split by tiles, a 14 × 14
    /// plane's 784 bytes put the tile edge inside a line in three planes of
    /// four), and the channel-major depthwise layer after it,
    /// which splits by planes, reads planes its own thread wrote. Ordered
    /// tile by tile instead, pose_detection's 14 × 14 expansions ran 8–11 %
    /// longer at 2 threads, and the depthwise layers after them 7–8 %
    /// (Xeon, AVX-512, 2026-12-06).
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        precondition(
            threadWorkspace == 0 || io.workspace.count >= threadWorkspace * runner.threadCount,
            "the workspace is smaller than workspaceSize(threadCount:) asked for")
        let threads = usefulThreadCount(runner.threadCount, multiplyAdds: batch * pixels, max(1, lists.keptCount), 1)
        let tilesPerImage = (pixels + Self.tilePixels - 1) / Self.tilePixels
        let tileCount = batch * tilesPerImage
        let wanted = threads > 1 ? threads * 4 : 1
        let groups = tileCount >= wanted ? 1 : min(outputChannels, (wanted + tileCount - 1) / tileCount)
        lists.withLists { values, offsets, starts in
            bias.withUnsafeBufferPointer { bias in
                let work = SparsePointwiseTiles(
                    input: io.inputs[0], output: io.outputs[0], residual: residual(io),
                    kernels: instructionSet.microkernels,
                    weights: SparsePointwiseWeights(
                        values: values, offsets: offsets, starts: starts, outputChannels: outputChannels),
                    bias: bias.baseAddress!, workspace: io.workspace.baseAddress,
                    threadWorkspace: threadWorkspace, packsInput: packsInput,
                    inputChannels: inputChannels, outputChannels: outputChannels, pixels: pixels,
                    blockChannels: blockChannels, blockCount: blockCount,
                    tilesPerImage: tilesPerImage, tileCount: tileCount, groups: groups,
                    clamp: activation.clampRange, add: epilogue.add)
                // A map of one tile (7 × 7) is cut into groups of channels only: each thread takes
                // its share of them in one chunk, so that it packs each block of input rows once
                // for all of them, not once per group.
                let groupsPerChunk = tileCount == 1 ? max(1, groups / threads) : 1
                runner.limited(to: threads).forEach(tileCount * groups, minimumPerChunk: groupsPerChunk, work)
            }
        }
    }
}

/// The work items of `SparsePointwiseConv2DCHW.run`: item `i` is tile
/// `i % tileCount` (tiles numbered image by image) of group `i / tileCount`
/// of output channels.
private struct SparsePointwiseTiles: ParallelWork {
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let residual: UnsafePointer<Float>?
    /// The microkernels of the convolution's family.
    let kernels: MicrokernelTable
    let weights: SparsePointwiseWeights
    let bias: UnsafePointer<Float>
    /// `threadWorkspace` floats per thread (see `workspaceSize`).
    let workspace: UnsafeMutablePointer<Float>?
    let threadWorkspace: Int
    let packsInput: Bool
    let inputChannels: Int
    let outputChannels: Int
    let pixels: Int
    let blockChannels: Int
    let blockCount: Int
    let tilesPerImage: Int
    /// Tiles of all images.
    let tileCount: Int
    let groups: Int
    let clamp: (lower: Float, upper: Float)
    let add: ConvolutionEpilogue.ResidualAdd?

    /// Computes `items` a tile at a time: with a single tile, the groups of it in `items` take
    /// each block of input channels in turn, so that a packed block is copied once for all of
    /// them (each channel's sums still go through the blocks in order: the same operations as
    /// one group at a time).
    func run(_ items: Range<Int>, thread: Int) {
        let tilePixels = SparsePointwiseConv2DCHW.tilePixels
        let scratch = workspace.map { $0 + thread * threadWorkspace }
        let partial = blockCount > 1 ? scratch : nil
        let packed = scratch.map { $0 + (blockCount > 1 ? outputChannels * tilePixels : 0) }
        var item = items.lowerBound
        while item < items.upperBound {
            let tile = item % tileCount, firstGroup = item / tileCount
            // Consecutive items share a tile only when there is one.
            let groupEnd = tileCount == 1 ? min(groups, firstGroup + (items.upperBound - item)) : firstGroup + 1
            let n = tile / tilesPerImage, first = tile % tilesPerImage * tilePixels
            let outputBase = n * outputChannels * pixels + first
            let out = SparsePointwiseOutput(
                output: output + outputBase, residual: residual.map { $0 + outputBase },
                channelStride: pixels, bias: bias, lower: clamp.lower, upper: clamp.upper,
                addLower: add?.lower ?? -.infinity, addUpper: add?.upper ?? .infinity,
                residualFirst: add?.residualFirst ?? false)
            let image = input + n * inputChannels * pixels + first
            let count = min(tilePixels, pixels - first)
            for block in 0..<blockCount {
                var rows = image
                if packsInput, let packed {
                    let firstChannel = block * blockChannels
                    pack(
                        input: image + firstChannel * pixels, channels: min(blockChannels, inputChannels - firstChannel),
                        pixels: count, packed: packed)
                    rows = UnsafePointer(packed)
                }
                for group in firstGroup..<groupEnd {
                    let channels = (outputChannels * group / groups)..<(outputChannels * (group + 1) / groups)
                    // Each group's sums in their own channels' slots of the partial sums.
                    let part = SparsePointwiseTile(
                        input: rows, pixels: count, channels: channels, block: block,
                        partial: partial.map { $0 + channels.lowerBound * tilePixels },
                        isLast: block == blockCount - 1)
                    kernels.sparsePointwiseTile(part, weights, out)
                }
            }
            item += groupEnd - firstGroup
        }
    }

    /// Copies a tile's `pixels` pixels of `channels` input rows from `input`
    /// to `packed` with the family's `packSparsePointwiseTile`.
    private func pack(input: UnsafePointer<Float>, channels: Int, pixels count: Int, packed: UnsafeMutablePointer<Float>) {
        kernels.packSparsePointwiseTile(input, pixels, channels, count, packed)
    }
}
