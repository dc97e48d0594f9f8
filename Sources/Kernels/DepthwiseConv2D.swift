import FlatBufferReader
import KernelTemplates
import Tensor

/// DEPTHWISE_CONV_2D: each input channel is convolved with its own
/// `depthMultiplier` filters, plus an optional constant bias and a fused
/// activation, computed as TFLite's builtin reference kernel computes it (float32)
/// by `runReference`, and as XNNPACK computes it by the fast kernels: each
/// sum starts from the bias and adds one fused multiply-add per tap, filter
/// columns outer (`kx`, then `ky`), so that they give LiteRT's and
/// MediaPipe's results bit for bit.
///
/// Operands, in order:
/// - `input [N, H, W, Cin]`
/// - `filter [1, KH, KW, Cout]`, constant, with `Cout = Cin · M`
/// - `bias [Cout]`, constant, optional (absent when only two operands are given;
///   any shape with `Cout` elements is accepted, as TFLite does)
///
/// Output `[N, OH, OW, Cout]`, with OH and OW chosen by `Options.padding`.
/// Output channel `oc = ic · M + m` reads input channel `ic`:
///
///     output[n, oy, ox, oc] = act(Σ_{ky, kx} input[n, iy, ix, ic] · filter[0, ky, kx, oc] + bias[oc])
///     iy = oy·strideH − padTop + ky·dilationH,  ix = ox·strideW − padLeft + kx·dilationW
///
/// where taps outside the input (in the padding) contribute nothing.
///
/// The depth multiplier M is taken from the shapes, `Cout / Cin`, exactly as
/// TFLite's kernel does; `Options.depthMultiplier` is not consulted, so a
/// model whose option disagrees with its filter runs as it runs under TFLite.
public struct DepthwiseConv2D: OperatorDescriptor {
    /// DEPTHWISE_CONV_2D's builtin options (TFLite `DepthwiseConv2DOptions`).
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
        /// The multiplier as written in the model. Informational only: the
        /// kernel uses `Cout / Cin` from the filter shape, as TFLite does.
        public var depthMultiplier: Int
        /// Clamp applied to every output value.
        public var activation: FusedActivation

        public init(
            padding: Padding, strideH: Int = 1, strideW: Int = 1,
            dilationH: Int = 1, dilationW: Int = 1, depthMultiplier: Int = 1,
            activation: FusedActivation = .none
        ) {
            self.padding = padding
            self.strideH = strideH
            self.strideW = strideW
            self.dilationH = dilationH
            self.dilationW = dilationW
            self.depthMultiplier = depthMultiplier
            self.activation = activation
        }
    }

    /// "DEPTHWISE_CONV_2D", "PAD+DEPTHWISE_CONV_2D" when a PAD is folded into it.
    public static let builtin = BuiltinOperator.depthwiseConv2D
    public static let optionsType = BuiltinOptionsType.depthwiseConv2D
    /// The bias may be absent.
    public static let optionalInputPositions = [2]

    /// `DepthwiseConv2DOptions`: `padding`, `stride_w` and `stride_h` (default 0) and
    /// `dilation_w_factor` and `dilation_h_factor` (default 1), each refused below 1, and
    /// `depth_multiplier` (default 0), refused below 0, with a `KernelError`; and
    /// `fused_activation_function` (TANH and SIGN_BIT refused).
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.DepthwiseConv2D
        let op = "DEPTHWISE_CONV_2D"
        let window = try ConvolutionWindowOptions(table, Fields.self, op: op)
        return Options(
            padding: window.padding, strideH: window.strideH, strideW: window.strideW,
            dilationH: window.dilationH, dilationW: window.dilationW,
            depthMultiplier: try table.int(Fields.depthMultiplier, atLeast: 0, op: op),
            activation: try FusedActivation(table, Fields.fusedActivationFunction, op: op))
    }

    public var opName: String { (foldsPadding ? "PAD+" : "") + "DEPTHWISE_CONV_2D" }
    /// `[[N, OH, OW, Cout]]`.
    public let outputShapes: [TensorShape]
    /// Filter and bias are copied (and packed) at prepare time.
    public let readsConstantInputs = false
    /// `N · OH · OW · Cout · KH · KW`: every filter tap is counted, including
    /// taps that fall in the padding.
    public let multiplyAccumulates: Int
    /// M = Cout / Cin, the filters per input channel (≥ 1), from the filter shape.
    public let depthMultiplier: Int

    /// Batch and spatial geometry of the sliding window.
    private(set) var window: WindowGeometry
    /// Cin.
    let inputChannels: Int
    /// Cout = Cin · M.
    let outputChannels: Int
    let activation: FusedActivation
    /// The filter `[1, KH, KW, Cout]` and bias `[Cout]` (zeros when the op has
    /// no bias: TFLite adds 0 in that case too), kept once.
    let weights: Weights
    /// Whether a PAD before this convolution was folded into its window
    /// (`foldingPadding(of:)`).
    private(set) var foldsPadding = false
    /// How the fast kernel rounds when the convolution is pointwise (`isPointwise`).
    public private(set) var pointwiseRounding = PointwiseDepthwiseRounding.fused

    /// Whether every output is its own input pixel's channel scaled and shifted: a 1×1 filter,
    /// stride 1, depth multiplier 1 and nothing of the window in padding.
    public var isPointwise: Bool {
        let g = window
        return g.filterHeight == 1 && g.filterWidth == 1 && g.strideH == 1 && g.strideW == 1
            && depthMultiplier == 1 && g.padTop == 0 && g.padLeft == 0
            && g.outputHeight == g.inputHeight && g.outputWidth == g.inputWidth
    }

    /// How a depthwise convolution keeps its filter and bias.
    enum Weights: Sendable {
        /// Packed for the SIMD kernel (depth multiplier 1); `runReference`
        /// reads them from the packed taps as well.
        case packed(PackedDepthwiseWeights)
        /// As the operands give them, `filter [KH·KW·Cout]` and `bias [Cout]`
        /// (other depth multipliers, which run the reference kernel).
        case unpacked(filter: [Float], bias: [Float])
    }

    /// `filter[0, ky, kx, oc]`.
    @inline(__always)
    func filterValue(row ky: Int, column kx: Int, channel oc: Int) -> Float {
        switch weights {
        case .packed(let packed): return packed.taps(row: ky, column: kx)[oc]
        case .unpacked(let filter, _): return filter[(ky * window.filterWidth + kx) * outputChannels + oc]
        }
    }

    /// `bias[oc]`.
    @inline(__always)
    func biasValue(channel oc: Int) -> Float {
        switch weights {
        case .packed(let packed): return packed.bias[oc]
        case .unpacked(_, let bias): return bias[oc]
        }
    }

    /// Filter and bias packed for the SIMD kernel; nil when the depth multiplier
    /// is not 1 (those run the reference kernel).
    var packed: PackedDepthwiseWeights? {
        if case .packed(let packed) = weights { return packed }
        return nil
    }

    /// Validates the operands and options and copies the constant filter and bias,
    /// packed for the microkernels of `instructionSet` when the depth multiplier is 1
    /// (then the operands' arrays are not kept).
    ///
    /// Throws `KernelError` for: an operand count other than 2 or 3; an input or
    /// filter that is not 4-D; a filter whose first dimension is not 1; an empty
    /// filter; filter channels that are not a whole multiple (≥ 1) of the input
    /// channels; a filter or bias that is not a float32 constant; a bias without
    /// `Cout` elements; strides or dilations outside `1...Int32.max`; an empty
    /// input or output; an unsupported `instructionSet`.
    /// `pointwiseRounding` is how the fast kernel rounds when the convolution is pointwise.
    public static func prepare(
        inputs: [Operand], options: Options, instructionSet: KernelInstructionSet,
        pointwiseRounding: PointwiseDepthwiseRounding = .fused
    ) throws -> DepthwiseConv2D {
        let checked = try check(inputs: inputs, options: options)
        try instructionSet.requireSupported(op: checked.op)
        let filter = inputs[1]
        try filter.requireConstantFloatCount(op: checked.op, role: "filter")
        let bias = try optionalConstantBias(op: checked.op, inputs: inputs, channels: checked.outputChannels)
        let window = checked.window
        // The filter's values (float16 ones widened) are read only when no
        // earlier load's packing is taken.
        let weights: Weights = checked.outputChannels == checked.inputChannels
            ? .packed(try PackedDepthwiseWeights(
                channels: checked.outputChannels, kernelHeight: window.filterHeight,
                kernelWidth: window.filterWidth,
                weights: filter.checkedConstantFloats(op: checked.op, role: "filter"),
                bias: bias, instructionSet: instructionSet))
            : .unpacked(filter: filter.checkedConstantFloats(op: checked.op, role: "filter"), bias: bias)
        return DepthwiseConv2D(
            outputShapes: [checked.outputShape], multiplyAccumulates: checked.multiplyAccumulates,
            depthMultiplier: checked.outputChannels / checked.inputChannels, window: window,
            inputChannels: checked.inputChannels, outputChannels: checked.outputChannels,
            activation: options.activation, weights: weights, pointwiseRounding: pointwiseRounding)
    }

    /// `prepare` for the detected instruction set.
    public static func prepare(inputs: [Operand], options: Options) throws -> DepthwiseConv2D {
        try prepare(inputs: inputs, options: options, instructionSet: .detected)
    }

    /// The kernel for `context`'s instruction set, or only `validate` when the load does not
    /// read weights.
    public static func prepare(inputs: [Operand], options: Options, context: PrepareContext) throws -> PreparedOperator {
        guard context.readsWeights else { return .validated(try validate(inputs: inputs, options: options)) }
        return .kernel(try prepare(
            inputs: inputs, options: options, instructionSet: context.instructionSet,
            pointwiseRounding: context.pointwiseDepthwiseRounding))
    }

    /// Every check of `prepare`, without reading or packing the filter and bias
    /// (which may be `ConstantData.unreadFloat32`): the output shape and cost
    /// `prepare` would give, or the `KernelError` it would throw.
    public static func validate(inputs: [Operand], options: Options) throws -> ValidatedOperator {
        let checked = try check(inputs: inputs, options: options)
        if checked.outputChannels == checked.inputChannels {
            try PackedDepthwiseWeights.checkSize(
                channels: checked.outputChannels, kernelHeight: checked.window.filterHeight,
                kernelWidth: checked.window.filterWidth)
        }
        return ValidatedOperator(
            outputShapes: [checked.outputShape], multiplyAccumulates: checked.multiplyAccumulates)
    }

    /// What the operand and option checks establish.
    private struct Checked {
        let op: String
        let window: WindowGeometry
        let inputChannels: Int
        let outputChannels: Int
        let outputShape: TensorShape
        let multiplyAccumulates: Int
    }

    /// The checks shared by `prepare` and `validate`; constant values are not read.
    private static func check(inputs: [Operand], options: Options) throws -> Checked {
        let op = "DEPTHWISE_CONV_2D"
        guard inputs.count == 2 || inputs.count == 3 else {
            throw KernelError(
                op: op, "expects 2 or 3 inputs (input, filter, optional bias), got \(inputs.count)")
        }
        let inputShape = inputs[0].shape, filterShape = inputs[1].shape
        guard inputShape.rank == 4 else {
            throw KernelError(op: op, "input must be 4-D [N, H, W, Cin], got shape \(inputShape)")
        }
        guard filterShape.rank == 4, filterShape[0] == 1 else {
            throw KernelError(op: op, "filter must be 4-D [1, KH, KW, Cout], got shape \(filterShape)")
        }
        guard filterShape.elementCount > 0 else {
            throw KernelError(op: op, "filter shape \(filterShape) has a zero dimension")
        }
        let inputChannels = inputShape[3], outputChannels = filterShape[3]
        guard inputChannels > 0, outputChannels % inputChannels == 0 else {
            throw KernelError(
                op: op,
                "filter channels \(outputChannels) are not a whole multiple of the input channels "
                    + "\(inputChannels) (depth multiplier option \(options.depthMultiplier))")
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
        // element count and KH·KW·Cout is the filter's, both ≤ 2^31, so the
        // product is ≤ 2^62.
        let macs = window.batch * window.outputHeight * window.outputWidth * filterShape.elementCount
        return Checked(
            op: op, window: window, inputChannels: inputChannels, outputChannels: outputChannels,
            outputShape: outputShape, multiplyAccumulates: macs)
    }

    /// This convolution reading the input of `pad`, a zero PAD of only the
    /// rows and columns of its `[N, H, W, C]` input, with that padding in
    /// its window: the same outputs without the padded copy (the padding's
    /// taps contribute nothing). Nil when `pad` pads other dimensions,
    /// does not produce this convolution's input shape, or a PAD is already
    /// folded.
    public func foldingPadding(of pad: Pad) -> DepthwiseConv2D? {
        guard !foldsPadding, let p = pad.spatialPadding,
              pad.outputShapes[0].dimensions == [window.batch, window.inputHeight, window.inputWidth, inputChannels],
              let folded = window.foldingPadding(top: p.top, bottom: p.bottom, left: p.left, right: p.right)
        else { return nil }
        var result = self
        result.window = folded
        result.foldsPadding = true
        return result
    }

    /// The SIMD kernel over channels for depth multiplier 1 (a pointwise one scales and shifts
    /// each pixel's channels, rounding as `pointwiseRounding` says); the reference otherwise.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        guard let packed else { return runReference(io) }
        if isPointwise {
            return pointwiseDepthwiseF32(
                input: io.inputs[0], output: io.outputs[0],
                pixels: window.batch * window.outputHeight * window.outputWidth, channels: outputChannels,
                weights: packed.taps(row: 0, column: 0), bias: packed.bias, clamp: activation.clampRange,
                rounding: pointwiseRounding, runner: runner)
        }
        run(input: io.inputs[0], output: io.outputs[0], weights: packed, runner: runner)
    }

    /// The SIMD kernel of a depth multiplier 1 convolution that is not pointwise, from `input`
    /// into `output`; `weights` is `packed`.
    func run(
        input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, weights: PackedDepthwiseWeights,
        runner: ParallelRunner
    ) {
        depthwiseConvolutionF32(
            input: input, output: output, batch: window.batch, geometry: window.convolutionGeometry,
            weights: weights, clamp: activation.clampRange, runner: runner)
    }

    /// Direct depthwise convolution, one output value at a time, summing taps
    /// in (ky, kx) order in Float as TFLite's reference kernel does.
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N, H, W, Cin]
        let output = io.outputs[0]  // [N, OH, OW, Cout], Cout = Cin · M
        let g = window
        for n in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for ic in 0..<inputChannels {
                        for m in 0..<depthMultiplier {
                            let oc = ic * depthMultiplier + m
                            var total: Float = 0
                            for ky in 0..<g.filterHeight {
                                let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                                guard iy >= 0, iy < g.inputHeight else { continue }
                                for kx in 0..<g.filterWidth {
                                    let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                                    guard ix >= 0, ix < g.inputWidth else { continue }
                                    let inputIndex = ((n * g.inputHeight + iy) * g.inputWidth + ix) * inputChannels + ic
                                    total += input[inputIndex] * filterValue(row: ky, column: kx, channel: oc)
                                }
                            }
                            let outputIndex = ((n * g.outputHeight + oy) * g.outputWidth + ox) * outputChannels + oc
                            output[outputIndex] = activation.apply(total + biasValue(channel: oc))
                        }
                    }
                }
            }
        }
    }
}
