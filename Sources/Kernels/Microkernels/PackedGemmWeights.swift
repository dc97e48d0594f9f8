import KernelTemplates
import Tensor

/// The weights and bias of a matrix product `C[P, N] = A[P, K] · Wᵀ + bias`,
/// packed once at load time into the layout the GEMM microkernels read, or
/// taken as an earlier load of the same model packed them (`PackedWeightStore`).
///
/// Source layout: `W[N, K]` row-major (`N` output channels, each a contiguous
/// row of `K` input values). This is TFLite's FULLY_CONNECTED `[out, in]`
/// and CONV_2D `[Cout, KH, KW, Cin]` with `K = KH·KW·Cin`.
///
/// Packed layout, in one 64-byte-aligned buffer, for the microkernel family
/// `instructionSet` (the panel width `w` is 16 for `.baseline`, 32 for
/// `.avx512`):
/// - **Panels.** Output channels are cut into panels: `⌊N / w⌋` panels of
///   `w` channels, then the rest `r = N mod w` as the narrowest panels that
///   cover it: one of 8 (`r ≤ 8`), one of 16 (`.avx512`, `r ≤ 16`), one of
///   16 and one of 8 (`.avx512`, `r ≤ 24`), or one more of `w`. A panel
///   covering channels `j₀ ..< j₀ + width` starts at weight offset `j₀·K`
///   and is K-major: element `[k, j]` is at `panel + k·width + j` and holds
///   `W[j₀ + j, k]`, or 0 past the last channel. Whole panels of 8 and 16
///   keep the microkernels' stores whole vectors. The weights are float16
///   (`panelPrecision`) when every one of them is a float16 value, as in
///   models that store their weights as float16 and DEQUANTIZE them: half
///   the memory. `gemmF32Block` widens such a panel (exactly) into a thread's
///   float32 scratch of `widenedPanelFloats` before the unchanged float32
///   microkernels read it, so the sums are the same bits (blocks of few
///   rows, a lone row among them, read the float16 panels in place instead,
///   widening each k's weights as they load them). Otherwise, in the
///   portable build (`packsFloat16Panels`) and for layers of few weights
///   (`maxWeightsForFloat32Panels`), float32.
/// - **Bias.** `N` float32 values at float offset `biasOffset`, zero-padded
///   to a multiple of `w` (all zeros when there is no bias).
/// - **Rows.** When `N ≤ PackedGemmWeights.maxDotOutputs` (one channel), a
///   panel would be mostly padding, so the weights are kept row-major
///   `[N, K]`, float32, at offset 0 instead and read by a dot-product kernel
///   (the same for both families).
public struct PackedGemmWeights: Sendable {
    /// How the panels hold their weights.
    public enum Precision: Sendable, CaseIterable {
        /// 2 bytes a weight, widened to float32 a panel at a time as the GEMM runs.
        case float16
        /// 4 bytes a weight, read in place.
        case float32
    }

    /// Output channels per full panel of the baseline kernels (two
    /// `SIMD8<Float>` vectors).
    public static let baselinePanelWidth = 16
    /// Output channels per full panel of the AVX-512 kernels (two
    /// `SIMD16<Float>` vectors).
    public static let avx512PanelWidth = 32
    /// Up to this many output channels, the weights stay row-major and each
    /// output is a dot product over `K` (`gemmF32DotMicrokernel8x1`, or
    /// `singleChannelConvolutionF32`'s pixels across the lanes). Two channels
    /// take an 8-wide panel instead: its tiles run one chain of multiply-adds
    /// per row, where the dot-product kernel ran one per eight rows and
    /// channel, each waiting on the last (palm_detection_full's 24 × 24 × 2
    /// head 24.6 → 14.8 µs, one thread, Zen 4).
    public static let maxDotOutputs = 1
    /// Layers with at most this many weights (16 KiB as float32: the stems,
    /// expansions from 16 or 24 channels, the detectors' small heads) keep
    /// float32 panels even for float16 weights (`OperandValidation`'s
    /// `packedGemmWeights`): a convolution with float16 panels widens each
    /// panel once per output row and computes the row a panel at a time,
    /// which costs such a layer more than its 2 more bytes a weight (53 KB
    /// at most in one of the models; palm_detection_full's 5×5 stem 7 %
    /// faster).
    public static let maxWeightsForFloat32Panels = 4096

    /// `K`: the length of each input row.
    public let inputChannels: Int
    /// `N`: the number of output channels.
    public let outputChannels: Int
    /// The microkernels that read these weights.
    public let instructionSet: KernelInstructionSet
    /// `instructionSet.microkernels`, kept so that a GEMM call reads it from the weights it
    /// borrows: the property returns the shared table retained, and both threads retaining and
    /// releasing it for every block of rows pulled its reference count back and forth between
    /// their cores.
    let microkernels: MicrokernelTable
    /// How the panels (or rows) hold the weights: `.float32` in the dot-product layout.
    public let panelPrecision: Precision
    /// Output channels per full panel: 16, or 32 for `.avx512`.
    let panelWidth: Int
    /// Whether the weights are stored row-major for the dot-product kernel.
    let usesDotProducts: Bool
    /// Panels of `panelWidth` channels, the first ones (0 in the dot-product layout).
    let fullPanelCount: Int
    /// Whether a 16-wide panel follows the full ones (`.avx512` only).
    let hasPanelOf16: Bool
    /// Whether an 8-wide panel comes last.
    let hasPanelOf8: Bool
    /// Float offset of the bias in `storage`.
    let biasOffset: Int
    let storage: AlignedBuffer
    /// The GEMM tiling last chosen for these weights (`GemmTiling`).
    let tilingCache = GemmTilingCache()

    /// Packs `weights` (`[N, K]` row-major, `N·K` values) and `bias` (`N`
    /// values, or nil for none) for the microkernels of `instructionSet`, as
    /// float16 panels when every weight is a float16 value and this build
    /// packs them (`packsFloat16Panels`), else as float32.
    ///
    /// `outputChannels` and `inputChannels` must be at least 1 and the
    /// counts must match (the caller validated the operand shapes).
    /// - Throws: `KernelError` when the padded layout would exceed
    ///   `TensorShape.maxElements` floats, or when `instructionSet` is not
    ///   supported here.
    public init(
        outputChannels: Int, inputChannels: Int, weights: [Float], bias: [Float]?,
        instructionSet: KernelInstructionSet = .detected
    ) throws(KernelError) {
        let float16 = Self.packsFloat16Panels && outputChannels > Self.maxDotOutputs
            && Self.areFloat16Values(weights)
        try self.init(
            outputChannels: outputChannels, inputChannels: inputChannels, weights: weights, bias: bias,
            instructionSet: instructionSet, panelPrecision: float16 ? .float16 : .float32)
    }

    /// Packs as `init(outputChannels:inputChannels:weights:bias:instructionSet:)`
    /// does, with panels of `requested` precision (`.float32` in the
    /// dot-product layout whatever is requested). `.float16` only when every
    /// weight is a float16 value (`areFloat16Values`).
    init(
        outputChannels: Int, inputChannels: Int, weights: [Float], bias: [Float]?,
        instructionSet: KernelInstructionSet, panelPrecision requested: Precision
    ) throws(KernelError) {
        let (weightCount, weightOverflow) = outputChannels.multipliedReportingOverflow(by: inputChannels)
        precondition(!weightOverflow && weights.count == weightCount, "weights are not [N, K]")
        assert(requested == .float32 || Self.areFloat16Values(weights), "weights that float16 cannot hold")
        try self.init(
            outputChannels: outputChannels, inputChannels: inputChannels, bias: bias,
            instructionSet: instructionSet, panelPrecision: requested
        ) { layout in
            let packed = layout.storage.baseAddress
            weights.withUnsafeBufferPointer { source in
                if layout.usesDotProducts {
                    packed.update(from: source.baseAddress!, count: weightCount)
                    return
                }
                let w = UnsafeRawPointer(source.baseAddress!)
                switch layout.panelPrecision {
                case .float16:
                    // The halves before the bias, which stays float32.
                    let halves = UnsafeMutableRawPointer(packed).bindMemory(
                        to: Float16.self, capacity: 2 * layout.biasOffset)
                    layout.packPanels(w, as: Float.self, into: halves) { Float16($0) }
                case .float32:
                    layout.packPanels(w, as: Float.self, into: packed) { $0 }
                }
            }
        }
    }

    /// Packs float16 weights (`[N, K]` row-major) and `bias` as
    /// `init(outputChannels:inputChannels:weights:bias:instructionSet:)`
    /// packs the same values widened, with the same panels: float16 ones
    /// take the halves as they are, straight from `halves`; with
    /// `float32Panels` (the caller's choice: `maxWeightsForFloat32Panels`)
    /// they are widened as they are packed. Neither makes another copy of the
    /// weights. Where this build or the dot-product layout keeps float32
    /// anyway, the halves are widened first. The microkernels read the same
    /// float32 values every way.
    public init(
        outputChannels: Int, inputChannels: Int, float16Weights halves: Float16Bytes, bias: [Float]?,
        instructionSet: KernelInstructionSet = .detected, float32Panels: Bool = false
    ) throws(KernelError) {
        #if _endian(little)
        let packsFromHalves = outputChannels > Self.maxDotOutputs && (Self.packsFloat16Panels || float32Panels)
        #else
        let packsFromHalves = false  // the halves are little-endian
        #endif
        guard packsFromHalves else {
            try self.init(
                outputChannels: outputChannels, inputChannels: inputChannels,
                weights: Dequantize.float16ToFloat32(halves), bias: bias, instructionSet: instructionSet)
            return
        }
        let (weightCount, weightOverflow) = outputChannels.multipliedReportingOverflow(by: inputChannels)
        precondition(!weightOverflow && halves.count == weightCount, "weights are not [N, K]")
        let source = UnsafeRawPointer(halves.bytes.baseAddress!)
        let precision: Precision = float32Panels ? .float32 : .float16
        try self.init(
            outputChannels: outputChannels, inputChannels: inputChannels, bias: bias,
            instructionSet: instructionSet, panelPrecision: precision
        ) { layout in
            switch precision {
            case .float16:
                let packed = UnsafeMutableRawPointer(layout.storage.baseAddress).bindMemory(
                    to: UInt16.self, capacity: 2 * layout.biasOffset)
                // Bit patterns moved as they are: a NaN keeps its payload (widened, it reads as the
                // float32 the source's widening gives). Read unaligned: a file's buffer may start anywhere.
                layout.packPanels(source, as: UInt16.self, into: packed) { $0 }
            case .float32:
                // Widened as `Dequantize.float16ToFloat32` widens them.
                layout.packPanels(source, as: UInt16.self, into: layout.storage.baseAddress) {
                    Dequantize.float32(fromHalfBits: $0)
                }
            }
        }
    }

    /// Packs as `init(outputChannels:inputChannels:weights:bias:instructionSet:)`
    /// packs `filter.densified()` (whose `rows · columns` values are the
    /// `N · K` weights, `K` a multiple of `columns`), writing only the stored
    /// values into the zeroed panels: the same layout, bit for bit, without
    /// the dense copy.
    init(
        outputChannels: Int, inputChannels: Int, compressedRows filter: CompressedRowFilter, bias: [Float]?,
        instructionSet: KernelInstructionSet
    ) throws(KernelError) {
        precondition(
            filter.rows * filter.columns == outputChannels * inputChannels && inputChannels % filter.columns == 0,
            "weights are not [N, K] with K a multiple of the rows' length")
        // The zeros that are not stored widen back from float16 too.
        let values = filter.storedValues()
        let float16 = Self.packsFloat16Panels && outputChannels > Self.maxDotOutputs
            && Self.areFloat16Values(values)
        try self.init(
            outputChannels: outputChannels, inputChannels: inputChannels, bias: bias,
            instructionSet: instructionSet, panelPrecision: float16 ? .float16 : .float32
        ) { layout in
            switch layout.panelPrecision {
            case .float16: layout.scatter(filter, values: values, as: UInt16.self) { Float16($0).bitPattern }
            case .float32: layout.scatter(filter, values: values, as: Float.self) { $0 }
            }
        }
    }

    /// Writes each stored value of `filter` (`values`) where `W[n, k]` lies, as `stored` gives it.
    private func scatter<Stored>(
        _ filter: CompressedRowFilter, values: [Float], as _: Stored.Type, _ stored: (Float) -> Stored
    ) {
        let packed = UnsafeMutableRawPointer(storage.baseAddress)
        let rowsPerWeightRow = inputChannels / filter.columns
        var (rowStart, stride) = (0, 0)
        filter.forEachStoredValue(of: values, startingRow: { r in
            // Filter row r is W[n, first ..< first + columns].
            let n = r / rowsPerWeightRow, first = r % rowsPerWeightRow * filter.columns
            let (row, columnStride) = sourceRow(n)
            (rowStart, stride) = (row.start + first * columnStride, columnStride)
        }) { value, column in
            let index = rowStart + column * stride
            packed.storeBytes(of: stored(value), toByteOffset: index * MemoryLayout<Stored>.stride, as: Stored.self)
        }
    }

    /// The layout for `N × K` weights of `requested` precision (`.float32`
    /// in the dot-product layout) and its storage (`PackedWeightStore`):
    /// either an earlier load's, packed already, or fresh and zeroed, with
    /// `bias` (N values, nil for none) written in place and the weights by
    /// `packWeights`, given the layout.
    private init(
        outputChannels: Int, inputChannels: Int, bias: [Float]?,
        instructionSet: KernelInstructionSet, panelPrecision requested: Precision,
        packWeights: (PackedGemmWeights) -> Void
    ) throws(KernelError) {
        precondition(outputChannels >= 1 && inputChannels >= 1, "empty GEMM weights")
        precondition(bias == nil || bias?.count == outputChannels, "bias is not [N]")
        try instructionSet.requireSupported(op: "weight packing")
        let dot = outputChannels <= Self.maxDotOutputs
        let precision = dot ? .float32 : requested
        let layout = try Self.layout(
            outputChannels: outputChannels, inputChannels: inputChannels, instructionSet: instructionSet,
            precision: precision)

        self.instructionSet = instructionSet
        self.microkernels = instructionSet.microkernels
        self.panelPrecision = precision
        self.panelWidth = layout.panelWidth
        self.usesDotProducts = dot
        self.fullPanelCount = layout.fullPanelCount
        self.hasPanelOf16 = layout.hasPanelOf16
        self.hasPanelOf8 = layout.hasPanelOf8
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.biasOffset = layout.biasOffset
        let (storage, needsPacking) = PackedWeightStore.packedWeights(count: layout.totalFloats)
        self.storage = storage
        guard needsPacking else { return }
        if let bias {
            let packedBias = storage.baseAddress + biasOffset
            for i in 0..<outputChannels { packedBias[i] = bias[i] }
        }
        packWeights(self)
    }

    /// Whether this build packs float16 panels: the native x86-64 build,
    /// whose haswell target widens eight float16 values in one instruction
    /// (`vcvtph2ps`, F16C). The portable build would widen lane by lane, so
    /// it keeps float32 panels.
    public static var packsFloat16Panels: Bool {
        #if LANDMARKER_FMA
        return true
        #else
        return false
        #endif
    }

    /// Whether every value of `weights` widens back from float16 to the same
    /// float32 bits (a NaN with a payload float16 cannot hold does not).
    static func areFloat16Values(_ weights: [Float]) -> Bool {
        weights.withUnsafeBufferPointer { values in
            // The differing bits of every value, or-ed: no early exit, so the loop vectorises.
            var differingBits: UInt32 = 0
            for value in values { differingBits |= Float(Float16(value)).bitPattern ^ value.bitPattern }
            return differingBits == 0
        }
    }

    /// Writes the panels of `w` (`[N, K]` row-major `Source` values, at any
    /// alignment) to `packed`, each weight as `stored` gives it (exactly: the
    /// caller chose `Stored` so).
    @inline(__always)
    private func packPanels<Source: SIMDScalar, Stored>(
        _ w: UnsafeRawPointer, as _: Source.Type, into packed: UnsafeMutablePointer<Stored>,
        _ stored: (Source) -> Stored
    ) {
        let n = outputChannels, k = inputChannels, size = MemoryLayout<Source>.stride
        for p in 0..<panelCount {
            let panelWidth = width(ofPanel: p), column = column(ofPanel: p)
            let panel = packed + column * k
            let rows = w + column * k * size
            let channels = min(panelWidth, n - column)
            // The panel's channels are one contiguous block of the source: read
            // it in order, a channel's row at a time, eight k at a time, each
            // value stored a panel row apart (a few times faster than one k at
            // a time; reading the channels in turn for each k took about a
            // quarter longer, and writing 64 panel rows per pass over the
            // channels half again as long).
            for j in 0..<channels {
                let row = rows + j * k * size
                // Where weight (j, kk) goes: one panel row further for each k.
                var destination = panel + j
                var kk = 0
                while kk + 8 <= k {
                    let values = row.loadUnaligned(fromByteOffset: kk * size, as: SIMD8<Source>.self)
                    for t in 0..<8 {
                        destination.pointee = stored(values[t])
                        destination += panelWidth
                    }
                    kk += 8
                }
                while kk < k {
                    destination.pointee = stored(row.loadUnaligned(fromByteOffset: kk * size, as: Source.self))
                    destination += panelWidth
                    kk += 1
                }
            }
        }
    }

    /// Throws the `KernelError` that `init` throws for these sizes (a packed
    /// layout above `TensorShape.maxElements` floats), without packing anything.
    /// Both sizes must be at least 1.
    public static func checkSize(
        outputChannels: Int, inputChannels: Int, instructionSet: KernelInstructionSet = .detected
    ) throws(KernelError) {
        precondition(outputChannels >= 1 && inputChannels >= 1, "empty GEMM weights")
        // Float32 panels are the larger layout.
        _ = try layout(
            outputChannels: outputChannels, inputChannels: inputChannels, instructionSet: instructionSet,
            precision: .float32)
    }

    /// Where `init` puts the panels (or rows) and the bias, in floats.
    private struct Layout {
        let panelWidth: Int
        let usesDotProducts: Bool
        let fullPanelCount: Int
        let hasPanelOf16: Bool
        let hasPanelOf8: Bool
        let biasOffset: Int
        let totalFloats: Int
    }

    private static func layout(
        outputChannels n: Int, inputChannels k: Int, instructionSet: KernelInstructionSet, precision: Precision
    ) throws(KernelError) -> Layout {
        let width = instructionSet == .avx512 ? avx512PanelWidth : baselinePanelWidth
        let dot = n <= maxDotOutputs
        let rest = n % width
        let wideRest = instructionSet == .avx512 ? 24 : 8  // the most a 16 and an 8 cover
        let full = dot ? 0 : n / width + (rest > wideRest ? 1 : 0)
        let of16 = !dot && instructionSet == .avx512 && (9...24).contains(rest)
        let of8 = !dot && ((1...8).contains(rest) || (instructionSet == .avx512 && (17...24).contains(rest)))
        // n ≤ maxElements: none of these can overflow.
        let storedColumns = dot ? n : full * width + (of16 ? 16 : 0) + (of8 ? 8 : 0)
        let (weightCount, sizeOverflow) = storedColumns.multipliedReportingOverflow(by: k)
        guard !sizeOverflow, weightCount <= TensorShape.maxElements else {
            throw tooLarge(n, k)
        }
        let weightFloats = precision == .float16 ? (weightCount + 1) / 2 : weightCount
        // Both terms are at most maxElements + 31 (2^31 + 31): the sum cannot overflow.
        let biasOffset = (weightFloats + width - 1) / width * width
        let total = biasOffset + (n + width - 1) / width * width
        guard total <= TensorShape.maxElements else { throw tooLarge(n, k) }

        return Layout(
            panelWidth: width, usesDotProducts: dot, fullPanelCount: full, hasPanelOf16: of16,
            hasPanelOf8: of8, biasOffset: biasOffset, totalFloats: total)
    }

    private static func tooLarge(_ n: Int, _ k: Int) -> KernelError {
        KernelError(
            op: "weight packing",
            "packed weights for \(n) outputs × \(k) inputs exceed \(TensorShape.maxElements) floats")
    }

    /// Units `gemmF32Block` iterates over: panels, or output channels in
    /// the dot-product layout.
    var columnBlockCount: Int { usesDotProducts ? outputChannels : panelCount }

    /// Number of panels (0 in the dot-product layout).
    var panelCount: Int { fullPanelCount + (hasPanelOf16 ? 1 : 0) + (hasPanelOf8 ? 1 : 0) }

    /// Output channels of panel `p`: `panelWidth`, 16 or 8.
    @inline(__always)
    func width(ofPanel p: Int) -> Int {
        p < fullPanelCount ? panelWidth : (p == fullPanelCount && hasPanelOf16 ? 16 : 8)
    }

    /// The first output channel of panel `p`.
    @inline(__always)
    func column(ofPanel p: Int) -> Int {
        p <= fullPanelCount ? p * panelWidth : fullPanelCount * panelWidth + 16
    }

    /// Start of panel `p` (K-major, the panel's width in weights per k) of
    /// float32 panels.
    @inline(__always)
    func float32Panel(_ p: Int) -> UnsafePointer<Float> {
        assert(panelPrecision == .float32, "float16 panels read as float32")
        return UnsafePointer(storage.baseAddress + column(ofPanel: p) * inputChannels)
    }

    /// Start of panel `p` (K-major, the panel's width in weights per k) of
    /// float16 panels: the weights' bit patterns, 2 bytes each.
    @inline(__always)
    func float16Panel(_ p: Int) -> UnsafeRawPointer {
        assert(panelPrecision == .float16, "float32 panels read as float16")
        return UnsafeRawPointer(storage.baseAddress) + 2 * column(ofPanel: p) * inputChannels
    }

    /// Floats of scratch that one float16 panel widens into: the widest
    /// panel's `panelWidth·K` (0 for float32 panels, read in place).
    var widenedPanelFloats: Int { panelPrecision == .float16 ? panelWidth * inputChannels : 0 }

    /// Writes float16 panel `p` widened to float32 (exactly) to `widened`, in
    /// the same K-major layout, ready for the float32 microkernels:
    /// `width(ofPanel: p)·K` floats, at most `widenedPanelFloats`. Eight
    /// values a step (one `vcvtph2ps` each in the native build); a panel's
    /// width is a multiple of 8.
    func widenPanel(_ p: Int, into widened: UnsafeMutablePointer<Float>) {
        assert(panelPrecision == .float16, "float32 panels widened")
        let halves = float16Panel(p)
        let count = width(ofPanel: p) * inputChannels
        for i in stride(from: 0, to: count, by: 8) {
            let eight = halves.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<Float16>.self)
            UnsafeMutableRawPointer(widened + i).storeBytes(of: SIMD8<Float>(eight), as: SIMD8<Float>.self)
        }
    }

    /// The weights of panel `p` (or, in the dot-product layout, all rows
    /// from `p = 0`) as floats, in either precision.
    func panel(_ p: Int) -> PackedWeightValues {
        PackedWeightValues(
            storage: UnsafeRawPointer(storage.baseAddress), precision: panelPrecision,
            start: column(ofPanel: p) * inputChannels)
    }

    /// The bias, zero-padded to a multiple of `panelWidth`.
    @inline(__always)
    var bias: UnsafePointer<Float> { UnsafePointer(storage.baseAddress + biasOffset) }

    /// Where row `n` of the source `W[N, K]` lies in the packed layout:
    /// `W[n, k]` is `start[k · stride]` (the panel's width apart, or
    /// adjacent in the dot-product layout). For the reference kernels and for
    /// building other layouts at load time; the packed values are the source
    /// values (float16 ones widened exactly), so reading them here gives the
    /// same floats.
    /// - Precondition: `n` is in `0..<outputChannels`.
    func sourceRow(_ n: Int) -> (start: PackedWeightValues, stride: Int) {
        precondition((0..<outputChannels).contains(n), "output channel \(n) outside 0..<\(outputChannels)")
        let base = UnsafeRawPointer(storage.baseAddress)
        if usesDotProducts {
            return (PackedWeightValues(storage: base, precision: panelPrecision, start: n * inputChannels), 1)
        }
        let fullColumns = fullPanelCount * panelWidth
        let p = n < fullColumns
            ? n / panelWidth
            : fullPanelCount + (hasPanelOf16 && n >= fullColumns + 16 ? 1 : 0)
        let start = column(ofPanel: p) * inputChannels + (n - column(ofPanel: p))
        return (PackedWeightValues(storage: base, precision: panelPrecision, start: start), width(ofPanel: p))
    }

    /// Calls `body(W[n, k], k)` for every `k` of `range`, in order, reading
    /// the packed values in place (float16 ones widened exactly); the
    /// precision is chosen once, not once a weight. For building other
    /// layouts at load time.
    /// - Precondition: `n` is in `0..<outputChannels`, `range` within `0..<inputChannels`.
    @inline(__always)
    func forEachWeight(ofRow n: Int, in range: Range<Int>, _ body: (Float, Int) -> Void) {
        precondition(range.lowerBound >= 0 && range.upperBound <= inputChannels, "inputs outside 0..<\(inputChannels)")
        let (row, stride) = sourceRow(n)
        switch row.precision {
        // k·stride is an offset inside the packed storage: no overflow.
        case .float16:
            let source = row.storage.assumingMemoryBound(to: Float16.self) + row.start
            for k in range { body(Float(source[k &* stride]), k) }
        case .float32:
            let source = row.storage.assumingMemoryBound(to: Float.self) + row.start
            for k in range { body(source[k &* stride], k) }
        }
    }

    /// How many weights are not zero (as `!= 0` says: −0 is zero, NaN is not), counted over
    /// the packed storage in place, whose padding is zero; without a branch on a weight.
    /// Counting stops at the end of the first stretch of `countingStretch` stored weights
    /// that takes the count past `bound`: the result is exact when it is at most `bound`,
    /// and only known to exceed `bound` otherwise (a dense filter need not be read to the end
    /// to be found too dense for a sparse kernel).
    func nonzeroWeightCount(stoppingAbove bound: Int = .max) -> Int {
        switch panelPrecision {
        case .float16:
            let halves = UnsafeRawPointer(storage.baseAddress).assumingMemoryBound(to: UInt16.self)
            // The magnitude's bits moved to the top of 32: the sign falls out.
            return Self.countNonzero(stored: 2 * biasOffset, stoppingAbove: bound) { UInt32(halves[$0]) << 17 }
        case .float32:
            let floats = UnsafeRawPointer(storage.baseAddress).assumingMemoryBound(to: UInt32.self)
            return Self.countNonzero(stored: biasOffset, stoppingAbove: bound) { floats[$0] << 1 }
        }
    }

    /// Stored weights counted between two looks at the bound of `nonzeroWeightCount`.
    static let countingStretch = 4096

    /// The non-zero count of `stored` weights whose magnitude bits `magnitudeBits(i)` gives,
    /// stretch by stretch, stopping after a stretch that takes it past `bound`.
    @inline(__always)
    private static func countNonzero(
        stored: Int, stoppingAbove bound: Int, _ magnitudeBits: (Int) -> UInt32
    ) -> Int {
        var count = 0, start = 0
        while start < stored && count <= bound {
            let end = min(stored, start + countingStretch)
            for i in start..<end { count &+= isNonzero(magnitudeBits: magnitudeBits(i)) }
            start = end
        }
        return count
    }

    /// 1 when `magnitudeBits` (a value's bits without its sign) are not all zero, else 0,
    /// without a branch (a conditional expression on a value from memory compiles to one).
    @inline(__always)
    static func isNonzero(magnitudeBits: UInt32) -> Int {
        Int(truncatingIfNeeded: (magnitudeBits | (0 &- magnitudeBits)) >> 31)
    }

    /// The weights as the source layout `W[N, K]`, row-major.
    func unpackedWeights() -> [Float] {
        [Float](unsafeUninitializedCapacity: outputChannels * inputChannels) { buffer, initialized in
            for n in 0..<outputChannels {
                let destination = buffer.baseAddress! + n * inputChannels
                forEachWeight(ofRow: n, in: 0..<inputChannels) { weight, k in destination[k] = weight }
            }
            initialized = outputChannels * inputChannels
        }
    }

    /// The `N` bias values (zeros when there was no bias).
    func unpackedBias() -> [Float] {
        Array(UnsafeBufferPointer(start: bias, count: outputChannels))
    }
}

/// Packed weights of either precision read as floats, from weight offset
/// `start` of their storage: for the reference kernels, tests and load-time
/// relayouts, not the microkernels.
struct PackedWeightValues {
    let storage: UnsafeRawPointer
    let precision: PackedGemmWeights.Precision
    let start: Int

    /// Weight `start + i`, widened to float32 if stored as float16.
    subscript(i: Int) -> Float {
        switch precision {
        case .float16: Float(storage.load(fromByteOffset: 2 * (start + i), as: Float16.self))
        case .float32: storage.load(fromByteOffset: 4 * (start + i), as: Float.self)
        }
    }
}
