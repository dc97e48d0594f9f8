import FlatBufferReader
import KernelTemplates
import Tensor

/// CONV_2D: a 2-D convolution of an NHWC activation with a constant filter,
/// plus an optional constant bias and a fused activation, computed as TFLite's
/// builtin reference kernel computes it (float32) by `runReference`, and as
/// XNNPACK computes it by the fast kernels: each sum starts from the bias and
/// adds one fused multiply-add per tap in `(ky, kx, ic)` order, so that they
/// give LiteRT's and MediaPipe's results bit for bit.
///
/// Operands, in order:
/// - `input [N, H, W, Cin]`
/// - `filter [Cout, KH, KW, Cin]`, constant
/// - `bias [Cout]`, constant, optional (absent when only two operands are given;
///   any shape with `Cout` elements is accepted, as TFLite does)
///
/// Output `[N, OH, OW, Cout]`, with OH and OW chosen by `Options.padding`:
///
///     output[n, oy, ox, oc] = act(Σ_{ky, kx, ic} input[n, iy, ix, ic] · filter[oc, ky, kx, ic] + bias[oc])
///     iy = oy·strideH − padTop + ky·dilationH,  ix = ox·strideW − padLeft + kx·dilationW
///
/// where taps outside the input (in the padding) contribute nothing. Grouped
/// convolution (Cin a multiple of the filter's input channels) is rejected.
public struct Conv2D: OperatorDescriptor {
    /// CONV_2D's builtin options (TFLite `Conv2DOptions`).
    public struct Options: Sendable, Hashable {
        /// How the output size and the implicit zero padding are chosen.
        public var padding: Padding
        /// Step between output rows, in input pixels (≥ 1).
        public var strideH: Int
        /// Step between output columns, in input pixels (≥ 1).
        public var strideW: Int
        /// Spacing between filter rows, in input pixels (≥ 1; 1 is a dense filter).
        public var dilationH: Int
        /// Spacing between filter columns, in input pixels (≥ 1; 1 is a dense filter).
        public var dilationW: Int
        /// Clamp applied to every output value.
        public var activation: FusedActivation

        public init(
            padding: Padding, strideH: Int = 1, strideW: Int = 1,
            dilationH: Int = 1, dilationW: Int = 1, activation: FusedActivation = .none
        ) {
            self.padding = padding
            self.strideH = strideH
            self.strideW = strideW
            self.dilationH = dilationH
            self.dilationW = dilationW
            self.activation = activation
        }
    }

    public static let builtin = BuiltinOperator.conv2D
    public static let optionsType = BuiltinOptionsType.conv2D
    /// The bias may be absent.
    public static let optionalInputPositions = [2]

    /// `Conv2DOptions`: `padding`, `stride_w` and `stride_h` (default 0) and
    /// `dilation_w_factor` and `dilation_h_factor` (default 1), each refused below 1 with a
    /// `KernelError`, and `fused_activation_function` (TANH and SIGN_BIT refused).
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.Conv2D
        let op = "CONV_2D"
        let window = try ConvolutionWindowOptions(table, Fields.self, op: op)
        return Options(
            padding: window.padding, strideH: window.strideH, strideW: window.strideW,
            dilationH: window.dilationH, dilationW: window.dilationW,
            activation: try FusedActivation(table, Fields.fusedActivationFunction, op: op))
    }

    /// "CONV_2D", with "+ADD", "+PRELU" and "+RELU" when those operators
    /// are fused into it.
    public var opName: String {
        (foldsPadding ? "PAD+" : "") + "CONV_2D" + (epilogue.add != nil ? "+ADD" : "")
            + (epilogue.preluAlpha != nil ? "+PRELU" : "") + (epilogue.rectifies ? "+RELU" : "")
    }
    /// `[[N, OH, OW, Cout]]`.
    public let outputShapes: [TensorShape]
    /// Filter and bias are packed at prepare time.
    public let readsConstantInputs = false
    /// `N · OH · OW · Cout · KH · KW · Cin`: every filter tap is counted,
    /// including taps that fall in the padding.
    public let multiplyAccumulates: Int

    /// Batch and spatial geometry of the sliding window.
    private(set) var window: WindowGeometry
    /// Cin.
    let inputChannels: Int
    /// Cout.
    let outputChannels: Int
    let activation: FusedActivation
    /// The filter `[Cout, KH, KW, Cin]` and the bias `[Cout]` (zeros when
    /// the op has no bias: TFLite adds 0 in that case too), kept once.
    private(set) var weights: Weights
    /// The window as the fast kernels describe it.
    private(set) var geometry: ConvolutionGeometry
    /// Operands of the convolution itself (2 or 3); a fused ADD's residual
    /// is the operand after them.
    let convolutionOperandCount: Int
    /// Operators fused into this one (`fusing(add:residualIsFirstOperand:)`,
    /// `fusing(prelu:alpha:)`, `fusing(relu:)`), applied in that order.
    var epilogue = ConvolutionEpilogue.none
    /// Whether a PAD before this convolution was folded into its window
    /// (`foldingPadding(of:)`).
    private(set) var foldsPadding = false

    /// How a convolution keeps its filter and bias.
    enum Weights: Sendable {
        /// As `[Cout, KH·KW·Cin]` GEMM panels with the bias: the only copy
        /// of the weights once a model is loaded (`runReference` reads them
        /// from here as well).
        case packed(PackedGemmWeights)
        /// A 1×1 filter stored as compressed rows, not packed yet, and the
        /// bias, for the family `instructionSet`: a model load packs such a
        /// filter only once it knows that no sparse kernel
        /// (`SparsePointwiseConv2DCHW`) takes the convolution's place
        /// (`packingFilter(_:)`). A convolution cannot run like this.
        case compressedRowsToPack(bias: [Float], instructionSet: KernelInstructionSet)
    }

    /// The packed filter and bias of a convolution that runs.
    var packed: PackedGemmWeights {
        guard case .packed(let packed) = weights else {
            preconditionFailure("a CONV_2D runs only once its filter is packed (Conv2D.packingFilter(_:))")
        }
        return packed
    }

    /// Whether the filter is packed, so that the convolution can run (see `Weights`).
    public var isFilterPacked: Bool {
        if case .packed = weights { return true }
        return false
    }

    /// The kernel family the convolution was prepared for.
    var instructionSet: KernelInstructionSet {
        switch weights {
        case .packed(let packed): return packed.instructionSet
        case .compressedRowsToPack(_, let instructionSet): return instructionSet
        }
    }

    /// `bias [Cout]`.
    func unpackedBias() -> [Float] {
        switch weights {
        case .packed(let packed): return packed.unpackedBias()
        case .compressedRowsToPack(let bias, _): return bias
        }
    }

    /// A 1×1 filter with unit strides and no padding: a plain GEMM over pixels.
    var isPointwise: Bool { Self.isPointwise(window) }

    private static func isPointwise(_ g: WindowGeometry) -> Bool {
        g.filterHeight == 1 && g.filterWidth == 1 && g.strideH == 1 && g.strideW == 1
            && g.padTop == 0 && g.padLeft == 0
    }

    /// Validates the operands and options and packs the constant filter and bias
    /// for the microkernels of `instructionSet`; the operands' arrays are not kept.
    /// With `defersCompressedRows`, a 1×1 filter (unit strides, no padding)
    /// given as compressed rows is checked but not packed (`Weights`): the
    /// caller then packs it with `packingFilter(_:)` before the convolution
    /// runs, unless a sparse kernel takes its place.
    ///
    /// Throws `KernelError` for: an operand count other than 2 or 3; an input or
    /// filter that is not 4-D; an empty filter; input channels that differ from
    /// the filter's (grouped convolution is reported as unsupported); a filter or
    /// bias that is not a float32 constant; a bias without `Cout` elements;
    /// strides or dilations outside `1...Int32.max`; an empty input or output;
    /// an unsupported `instructionSet`.
    public static func prepare(
        inputs: [Operand], options: Options, instructionSet: KernelInstructionSet,
        defersCompressedRows: Bool = false
    ) throws -> Conv2D {
        let checked = try check(inputs: inputs, options: options)
        try instructionSet.requireSupported(op: checked.op)
        try inputs[1].requireConstantFloatCount(op: checked.op, role: "filter")
        let bias = try optionalConstantBias(op: checked.op, inputs: inputs, channels: checked.outputChannels)
        let weights: Weights
        if defersCompressedRows, isPointwise(checked.window), case .compressedRows(let rows)? = inputs[1].constant,
           rows.rows == checked.outputChannels, rows.columns == checked.patchSize {
            try PackedGemmWeights.checkSize(
                outputChannels: checked.outputChannels, inputChannels: checked.patchSize, instructionSet: instructionSet)
            weights = .compressedRowsToPack(bias: bias, instructionSet: instructionSet)
        } else {
            weights = .packed(try inputs[1].packedGemmWeights(
                op: checked.op, role: "filter", outputChannels: checked.outputChannels,
                inputChannels: checked.patchSize, bias: bias, instructionSet: instructionSet))
        }
        return Conv2D(
            outputShapes: [checked.outputShape], multiplyAccumulates: checked.multiplyAccumulates,
            window: checked.window, inputChannels: checked.inputChannels,
            outputChannels: checked.outputChannels, activation: options.activation,
            weights: weights, geometry: checked.window.convolutionGeometry,
            convolutionOperandCount: inputs.count)
    }

    /// `prepare` for the detected instruction set, the filter packed.
    public static func prepare(inputs: [Operand], options: Options) throws -> Conv2D {
        try prepare(inputs: inputs, options: options, instructionSet: .detected)
    }

    /// The kernel for `context`'s instruction set and deferral of compressed rows, or only
    /// `validate` when the load does not read weights.
    public static func prepare(inputs: [Operand], options: Options, context: PrepareContext) throws -> PreparedOperator {
        guard context.readsWeights else { return .validated(try validate(inputs: inputs, options: options)) }
        return .kernel(try prepare(
            inputs: inputs, options: options, instructionSet: context.instructionSet,
            defersCompressedRows: context.defersCompressedRows))
    }

    /// This convolution with its filter, `rows` (`[Cout, Cin]`, the rows
    /// `prepare` was given), packed as `prepare` packs it without
    /// `defersCompressedRows`; itself when the filter is packed already.
    public func packingFilter(_ rows: CompressedRowFilter) throws -> Conv2D {
        guard case .compressedRowsToPack(let bias, let instructionSet) = weights else { return self }
        precondition(rows.rows == outputChannels && rows.columns == inputChannels, "the filter is not [Cout, Cin]")
        var result = self
        result.weights = .packed(try PackedGemmWeights(
            outputChannels: outputChannels, inputChannels: rows.columns, compressedRows: rows, bias: bias,
            instructionSet: instructionSet))
        return result
    }

    /// Every check of `prepare`, without reading or packing the filter and bias
    /// (which may be `ConstantData.unreadFloat32`): the output shape and cost
    /// `prepare` would give, or the `KernelError` it would throw.
    public static func validate(inputs: [Operand], options: Options) throws -> ValidatedOperator {
        let checked = try check(inputs: inputs, options: options)
        try PackedGemmWeights.checkSize(
            outputChannels: checked.outputChannels, inputChannels: checked.patchSize)
        return ValidatedOperator(
            outputShapes: [checked.outputShape], multiplyAccumulates: checked.multiplyAccumulates)
    }

    /// What the operand and option checks establish.
    private struct Checked {
        let op: String
        let window: WindowGeometry
        let inputChannels: Int
        let outputChannels: Int
        /// KH·KW·Cin, the GEMM's K.
        let patchSize: Int
        let outputShape: TensorShape
        let multiplyAccumulates: Int
    }

    /// The checks shared by `prepare` and `validate`; constant values are not read.
    private static func check(inputs: [Operand], options: Options) throws -> Checked {
        let op = "CONV_2D"
        guard inputs.count == 2 || inputs.count == 3 else {
            throw KernelError(
                op: op, "expects 2 or 3 inputs (input, filter, optional bias), got \(inputs.count)")
        }
        let inputShape = inputs[0].shape, filterShape = inputs[1].shape
        guard inputShape.rank == 4 else {
            throw KernelError(op: op, "input must be 4-D [N, H, W, Cin], got shape \(inputShape)")
        }
        guard filterShape.rank == 4 else {
            throw KernelError(op: op, "filter must be 4-D [Cout, KH, KW, Cin], got shape \(filterShape)")
        }
        guard filterShape.elementCount > 0 else {
            throw KernelError(op: op, "filter shape \(filterShape) has a zero dimension")
        }
        let inputChannels = inputShape[3], outputChannels = filterShape[0]
        let filterInputChannels = filterShape[3]
        guard inputChannels == filterInputChannels else {
            if inputChannels > 0, inputChannels % filterInputChannels == 0 {
                throw KernelError(
                    op: op,
                    "grouped convolution is not supported: input channels \(inputChannels) are "
                        + "\(inputChannels / filterInputChannels) groups of the filter's "
                        + "\(filterInputChannels) input channels")
            }
            throw KernelError(
                op: op,
                "input channels \(inputChannels) do not match the filter's input channels "
                    + "\(filterInputChannels) (filter shape \(filterShape))")
        }
        try inputs[1].requireConstantFloatCount(op: op, role: "filter")
        try requireOptionalConstantBias(op: op, inputs: inputs, channels: outputChannels)
        let window = try WindowGeometry(
            op: op, input: inputShape,
            filterHeight: filterShape[1], filterWidth: filterShape[2],
            filterNames: ("filter height", "filter width"),
            padding: options.padding,
            strideH: options.strideH, strideW: options.strideW,
            dilationH: options.dilationH, dilationW: options.dilationW)
        let outputShape = try makeOutputShape(
            op: op, [window.batch, window.outputHeight, window.outputWidth, outputChannels])
        // Cannot overflow: N·OH·OW ≤ N·H·W (stride ≥ 1) is at most the input's
        // element count and Cout·KH·KW·Cin is the filter's, both ≤ 2^31, so the
        // product is ≤ 2^62.
        let macs = window.batch * window.outputHeight * window.outputWidth * filterShape.elementCount
        return Checked(
            op: op, window: window, inputChannels: inputChannels, outputChannels: outputChannels,
            patchSize: filterShape.elementCount / outputChannels, outputShape: outputShape,
            multiplyAccumulates: macs)
    }

    // MARK: Fusion

    /// This convolution followed by `add`, an ADD of its output and a
    /// tensor of the same shape (the residual), run as one kernel whose
    /// last input is the residual: the sum is computed as each output tile
    /// is written, with the ADD's float operations, so the results are
    /// bit-identical to running both. Nil when `add` broadcasts, does not
    /// have this convolution's output shape, or something is already fused.
    /// - Parameter residualIsFirstOperand: whether the residual is the ADD's
    ///   first operand (this convolution's output its second).
    public func fusing(add: Add, residualIsFirstOperand: Bool) -> Conv2D? {
        guard epilogue.isEmpty, add.broadcast.isElementwise,
              add.outputShapes[0] == outputShapes[0]
        else { return nil }
        var fused = self
        fused.epilogue.add = .init(lower: add.lower, upper: add.upper, residualFirst: residualIsFirstOperand)
        return fused
    }

    /// This convolution (and any fused ADD) followed by `prelu` with one
    /// `alpha` per output channel, run as one kernel, bit-identical to
    /// running both. Nil when `alpha` is not a float32 constant of
    /// `[..., Cout]` with every other dimension 1, when the PRELU's output
    /// is not this convolution's output shape, or when a PRELU or a RELU is
    /// already fused.
    public func fusing(prelu: Prelu, alpha: Operand) -> Conv2D? {
        guard epilogue.preluAlpha == nil, !epilogue.rectifies, prelu.outputShapes[0] == outputShapes[0],
              alpha.shape.rank >= 1, alpha.shape[alpha.shape.rank - 1] == outputChannels,
              alpha.shape.elementCount == outputChannels,
              let values = alpha.constant?.floatValues
        else { return nil }
        // outputChannels ≤ maxElements: rounding up cannot overflow.
        let padded = AlignedBuffer(count: (outputChannels + 31) / 32 * 32)
        for (c, value) in values.enumerated() { padded.baseAddress[c] = value }
        var fused = self
        fused.epilogue.preluAlpha = padded
        return fused
    }

    /// This convolution (and any fused ADD or PRELU) followed by `relu`, run
    /// as one kernel: each output finished as the RELU kernel computes it,
    /// `0 < y ? y : 0` (−0 and NaN become +0, which the convolution's own
    /// RELU activation, a clamp, would keep), so the results are
    /// bit-identical to running both. Nil when a RELU is already fused or
    /// `relu`'s shape is not this convolution's output shape.
    public func fusing(relu: Relu) -> Conv2D? {
        guard !epilogue.rectifies, relu.outputShapes[0] == outputShapes[0] else { return nil }
        var fused = self
        fused.epilogue.rectifies = true
        return fused
    }

    /// This convolution reading the input of `pad`, a zero PAD of only the
    /// rows and columns of its `[N, H, W, C]` input, with that padding in
    /// its window: the same outputs without the padded copy (the padding's
    /// taps contribute nothing). Nil when `pad` pads other dimensions,
    /// does not produce this convolution's input shape, or a PAD is already
    /// folded.
    public func foldingPadding(of pad: Pad) -> Conv2D? {
        guard !foldsPadding, let p = pad.spatialPadding,
              pad.outputShapes[0].dimensions == [window.batch, window.inputHeight, window.inputWidth, inputChannels],
              let folded = window.foldingPadding(top: p.top, bottom: p.bottom, left: p.left, right: p.right)
        else { return nil }
        var result = self
        result.window = folded
        result.geometry = folded.convolutionGeometry
        result.foldsPadding = true
        return result
    }

    /// The residual of a fused ADD, from the kernel's inputs.
    private func residual(_ io: KernelIO) -> UnsafePointer<Float>? {
        epilogue.add == nil ? nil : io.inputs[convolutionOperandCount]
    }

    /// Whether the fast kernel computes each output row with pixels across the
    /// vector lanes (`singleChannelConvolutionF32`): a convolution that is not
    /// 1×1, with one output channel and nothing fused after it.
    var runsOnPixelLanes: Bool {
        !isPointwise && epilogue.isEmpty
            && singleChannelConvolutionApplies(geometry: geometry, inputChannels: inputChannels, weights: packed)
    }

    /// 1×1 convolutions run as one GEMM over all pixels; one with a single
    /// output channel with pixels across the vector lanes
    /// (`runsOnPixelLanes`); others on the same GEMM microkernels, reading their
    /// taps in place (`convolutionF32`: the borders from zero-padded copies of
    /// the input rows). All three give the same bits.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        if isPointwise {
            gemmF32(
                input: io.inputs[0], rows: window.batch * window.inputHeight * window.inputWidth,
                weights: packed, output: io.outputs[0], workspace: io.workspace, clamp: activation.clampRange,
                epilogue: epilogue, residual: residual(io), runner: runner)
        } else if runsOnPixelLanes {
            singleChannelConvolutionF32(
                input: io.inputs[0], output: io.outputs[0], batch: window.batch, geometry: geometry,
                inputChannels: inputChannels, weights: packed, workspace: io.workspace,
                clamp: activation.clampRange, runner: runner)
        } else {
            convolutionF32(
                input: io.inputs[0], output: io.outputs[0], batch: window.batch, geometry: geometry,
                inputChannels: inputChannels, weights: packed, workspace: io.workspace,
                clamp: activation.clampRange, epilogue: epilogue, residual: residual(io), runner: runner)
        }
    }

    /// Pixels `pixels` of a 1×1 convolution without a fused ADD, from `input` (pixel 0 of
    /// `[pixels, Cin]`) into `output` (where pixel `pixels.lowerBound` goes, `[pixels.count,
    /// Cout]`), each value as `run` computes it. `workspace` holds at least
    /// `gemmF32WorkspaceSize(weights:threadCount:)` floats for `runner.threadCount`.
    func runPointwise(
        pixels: Range<Int>, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
        workspace: UnsafeMutableBufferPointer<Float>, runner: ParallelRunner
    ) {
        precondition(isPointwise && epilogue.add == nil, "a 1×1 convolution without a residual")
        gemmF32(
            input: input + pixels.lowerBound * inputChannels, rows: pixels.count, weights: packed, output: output,
            workspace: workspace, clamp: activation.clampRange, epilogue: epilogue, runner: runner)
    }

    public func workspaceSize(threadCount: Int) throws -> Int {
        if isPointwise { return try gemmF32WorkspaceSize(weights: packed, threadCount: threadCount) }
        if runsOnPixelLanes {
            return try singleChannelConvolutionWorkspaceSize(
                geometry: geometry, inputChannels: inputChannels, threadCount: threadCount)
        }
        return try convolutionF32WorkspaceSize(weights: packed, threadCount: threadCount)
    }

    /// Direct convolution, one output value at a time, summing taps in
    /// (ky, kx, ic) order in Float as TFLite's reference kernel does; then
    /// any fused ADD and PRELU, element by element, as their reference
    /// kernels compute them. The filter values are read from the packed
    /// panels (`PackedGemmWeights.sourceRow`).
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N, H, W, Cin]
        let output = io.outputs[0]  // [N, OH, OW, Cout]
        let g = window
        for n in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for oc in 0..<outputChannels {
                        // filter[oc, ky, kx, ic] is filterRow[((ky · KW + kx) · Cin + ic) · stride].
                        let (filterRow, stride) = packed.sourceRow(oc)
                        var total: Float = 0
                        for ky in 0..<g.filterHeight {
                            let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                            guard iy >= 0, iy < g.inputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                                guard ix >= 0, ix < g.inputWidth else { continue }
                                let inputBase = ((n * g.inputHeight + iy) * g.inputWidth + ix) * inputChannels
                                let filterBase = (ky * g.filterWidth + kx) * inputChannels
                                for ic in 0..<inputChannels {
                                    total += input[inputBase + ic] * filterRow[(filterBase + ic) * stride]
                                }
                            }
                        }
                        let outputIndex = ((n * g.outputHeight + oy) * g.outputWidth + ox) * outputChannels + oc
                        output[outputIndex] = activation.apply(total + packed.bias[oc])
                    }
                }
            }
        }
        guard !epilogue.isEmpty else { return }
        let residual = self.residual(io)
        for i in 0..<outputShapes[0].elementCount {
            output[i] = epilogue.apply(output[i], residual: residual?[i] ?? 0, channel: i % outputChannels)
        }
    }
}
