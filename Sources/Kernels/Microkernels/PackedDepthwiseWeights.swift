import Tensor

/// The filter and bias of a depthwise convolution with depth multiplier 1,
/// packed once at load time into the layout the depthwise kernels read, or
/// taken as an earlier load of the same model packed them (`PackedWeightStore`).
///
/// Source layout: `W[KH, KW, C]` (TFLite's `[1, KH, KW, C]` filter).
///
/// Packed layout, in one 64-byte-aligned buffer: tap `t = ky·KW + kx`
/// holds its `C` weights at float offset `t·channelStride` (zero-padded to
/// `channelStride = C` rounded up to 16), followed by the bias at offset
/// `KH·KW·channelStride` (zero-padded likewise; zeros when there is none).
/// The layout is the same for both microkernel families; `instructionSet`
/// says which one runs.
public struct PackedDepthwiseWeights: Sendable {
    /// `C`: input and output channels.
    public let channels: Int
    public let kernelHeight: Int
    public let kernelWidth: Int
    /// The microkernels that read these weights.
    public let instructionSet: KernelInstructionSet
    /// Floats between consecutive taps (C rounded up to 16).
    let channelStride: Int
    let storage: AlignedBuffer

    /// Packs `weights` (`[KH, KW, C]`, `KH·KW·C` values) and `bias` (`C`
    /// values, or nil for none) for the microkernels of `instructionSet`.
    /// `weights` is evaluated only when there is something to pack: not
    /// when an earlier load's packing is taken. Sizes must be at least 1
    /// and the counts must match (the caller validated the operand shapes).
    /// - Throws: `KernelError` when the padded layout would exceed
    ///   `TensorShape.maxElements` floats, or when `instructionSet` is not
    ///   supported here.
    public init(
        channels: Int, kernelHeight: Int, kernelWidth: Int, weights readWeights: @autoclosure () -> [Float],
        bias: [Float]?, instructionSet: KernelInstructionSet = .detected
    ) throws(KernelError) {
        precondition(min(channels, kernelHeight, kernelWidth) >= 1, "empty depthwise filter")
        let (taps, tapsOverflow) = kernelHeight.multipliedReportingOverflow(by: kernelWidth)
        let (count, countOverflow) = taps.multipliedReportingOverflow(by: channels)
        precondition(!tapsOverflow && !countOverflow, "weights are not [KH, KW, C]")
        precondition(bias == nil || bias?.count == channels, "bias is not [C]")
        try instructionSet.requireSupported(op: "weight packing")
        let (stride, total) = try Self.layout(
            channels: channels, kernelHeight: kernelHeight, kernelWidth: kernelWidth)
        // An earlier load's packing (`PackedWeightStore`), or fresh zeroed storage to pack.
        let (storage, needsPacking) = PackedWeightStore.packedWeights(count: total)
        if needsPacking {
            let weights = readWeights()
            precondition(weights.count == count, "weights are not [KH, KW, C]")
            let packed = storage.baseAddress
            for t in 0..<taps {
                for c in 0..<channels { packed[t * stride + c] = weights[t * channels + c] }
            }
            if let bias {
                for c in 0..<channels { packed[taps * stride + c] = bias[c] }
            }
        }
        self.instructionSet = instructionSet
        self.channels = channels
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.channelStride = stride
        self.storage = storage
    }

    /// Throws the `KernelError` that `init` throws for these sizes (a packed
    /// layout above `TensorShape.maxElements` floats), without packing anything.
    /// Sizes must be at least 1.
    public static func checkSize(channels: Int, kernelHeight: Int, kernelWidth: Int) throws(KernelError) {
        precondition(min(channels, kernelHeight, kernelWidth) >= 1, "empty depthwise filter")
        _ = try layout(channels: channels, kernelHeight: kernelHeight, kernelWidth: kernelWidth)
    }

    /// The tap stride and the packed size in floats (taps plus the bias row).
    private static func layout(
        channels: Int, kernelHeight: Int, kernelWidth: Int
    ) throws(KernelError) -> (stride: Int, total: Int) {
        // channels ≤ maxElements (it is a tensor dimension): rounding cannot overflow.
        let stride = (channels + 15) / 16 * 16
        let (taps, tapsOverflow) = kernelHeight.multipliedReportingOverflow(by: kernelWidth)
        let (rows, rowsOverflow) = taps.addingReportingOverflow(1)
        let (total, totalOverflow) = rows.multipliedReportingOverflow(by: stride)
        guard !tapsOverflow, !rowsOverflow, !totalOverflow, total <= TensorShape.maxElements else {
            throw KernelError(
                op: "weight packing",
                "packed depthwise filter \(kernelHeight)×\(kernelWidth)×\(channels) exceeds "
                    + "\(TensorShape.maxElements) floats")
        }
        return (stride, total)
    }

    /// Weights of tap `(ky, kx)`, `channelStride` floats apart per tap.
    @inline(__always)
    func taps(row ky: Int, column kx: Int) -> UnsafePointer<Float> {
        UnsafePointer(storage.baseAddress + (ky * kernelWidth + kx) * channelStride)
    }

    /// The bias, `channelStride` floats.
    @inline(__always)
    var bias: UnsafePointer<Float> {
        UnsafePointer(storage.baseAddress + kernelHeight * kernelWidth * channelStride)
    }
}
