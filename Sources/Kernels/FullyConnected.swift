import FlatBufferReader
import KernelTemplates
import Tensor

/// FULLY_CONNECTED: a matrix product of the flattened activation with constant
/// weights, plus an optional constant bias and a fused activation, computed as
/// TFLite's builtin reference kernel computes it (float32).
///
/// Operands, in order:
/// - `input [..., K]`, any rank ≥ 1, read as `[B, K]` rows with
///   `B = elementCount / K` (K must divide the element count; the last
///   dimension need not be K unless `keepNumDims` is set)
/// - `weights [Nout, K]`, constant
/// - `bias [Nout]`, constant, optional (absent when only two operands are given;
///   any shape with `Nout` elements is accepted, as TFLite does)
///
/// Output `[B, Nout]`, or the input's shape with its last dimension replaced by
/// `Nout` when `keepNumDims` is set:
///
///     output[b, o] = act(Σ_k input[b, k] · weights[o, k] + bias[o])
public struct FullyConnected: OperatorDescriptor {
    /// FULLY_CONNECTED's builtin options (TFLite `FullyConnectedOptions`, default
    /// float weights format).
    public struct Options: Sendable, Hashable {
        /// Clamp applied to every output value.
        public var activation: FusedActivation
        /// Keep the input's leading dimensions in the output (`[..., Nout]`)
        /// instead of flattening them to `[B, Nout]`.
        public var keepNumDims: Bool

        public init(activation: FusedActivation = .none, keepNumDims: Bool = false) {
            self.activation = activation
            self.keepNumDims = keepNumDims
        }
    }

    public static let builtin = BuiltinOperator.fullyConnected
    public static let optionsType = BuiltinOptionsType.fullyConnected
    /// The bias may be absent.
    public static let optionalInputPositions = [2]

    /// `FullyConnectedOptions`: `fused_activation_function` (TANH and SIGN_BIT refused) and
    /// `keep_num_dims` (default false). `weights_format` and the quantization fields concern
    /// quantized weights only and are not read.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.FullyConnected
        return Options(
            activation: try FusedActivation(table, Fields.fusedActivationFunction, op: "FULLY_CONNECTED"),
            keepNumDims: try table.value(Fields.keepNumDims))
    }

    public let opName = "FULLY_CONNECTED"
    /// `[[B, Nout]]`, or `[[..., Nout]]` with `keepNumDims`.
    public let outputShapes: [TensorShape]
    /// Weights and bias are packed at prepare time.
    public let readsConstantInputs = false
    /// `B · Nout · K`.
    public let multiplyAccumulates: Int

    /// B, the number of input rows.
    let batch: Int
    /// K, the length of each input row.
    let inputDepth: Int
    /// Nout, the number of output values per row.
    let outputDepth: Int
    let activation: FusedActivation
    /// The weights `[Nout, K]` packed into GEMM panels, with the bias `[Nout]`
    /// (zeros when the op has no bias: TFLite adds 0 in that case too). The
    /// only copy of the weights: `runReference` reads them from here as well.
    let packed: PackedGemmWeights

    /// Validates the operands and options and packs the constant weights and bias
    /// for the microkernels of `instructionSet`; the operands' arrays are not kept.
    ///
    /// Throws `KernelError` for: an operand count other than 2 or 3; a scalar
    /// input; weights that are not 2-D or are empty; K not dividing the input's
    /// element count; with `keepNumDims`, an input whose last dimension is not K;
    /// weights or bias that are not float32 constants; a bias without `Nout`
    /// elements; an empty input or an output too large to represent;
    /// an unsupported `instructionSet`.
    public static func prepare(
        inputs: [Operand], options: Options, instructionSet: KernelInstructionSet
    ) throws -> FullyConnected {
        let checked = try check(inputs: inputs, options: options)
        try instructionSet.requireSupported(op: checked.op)
        try inputs[1].requireConstantFloatCount(op: checked.op, role: "weights")
        let bias = try optionalConstantBias(op: checked.op, inputs: inputs, channels: checked.outputDepth)
        let packed = try inputs[1].packedGemmWeights(
            op: checked.op, role: "weights", outputChannels: checked.outputDepth,
            inputChannels: checked.inputDepth, bias: bias, instructionSet: instructionSet)
        return FullyConnected(
            outputShapes: [checked.outputShape], multiplyAccumulates: checked.multiplyAccumulates,
            batch: checked.batch, inputDepth: checked.inputDepth, outputDepth: checked.outputDepth,
            activation: options.activation, packed: packed)
    }

    /// `prepare` for the detected instruction set.
    public static func prepare(inputs: [Operand], options: Options) throws -> FullyConnected {
        try prepare(inputs: inputs, options: options, instructionSet: .detected)
    }

    /// The kernel for `context`'s instruction set, or only `validate` when the load does not
    /// read weights.
    public static func prepare(inputs: [Operand], options: Options, context: PrepareContext) throws -> PreparedOperator {
        guard context.readsWeights else { return .validated(try validate(inputs: inputs, options: options)) }
        return .kernel(try prepare(inputs: inputs, options: options, instructionSet: context.instructionSet))
    }

    /// Every check of `prepare`, without reading or packing the weights and bias
    /// (which may be `ConstantData.unreadFloat32`): the output shape and cost
    /// `prepare` would give, or the `KernelError` it would throw.
    public static func validate(inputs: [Operand], options: Options) throws -> ValidatedOperator {
        let checked = try check(inputs: inputs, options: options)
        try PackedGemmWeights.checkSize(outputChannels: checked.outputDepth, inputChannels: checked.inputDepth)
        return ValidatedOperator(
            outputShapes: [checked.outputShape], multiplyAccumulates: checked.multiplyAccumulates)
    }

    /// What the operand and option checks establish.
    private struct Checked {
        let op: String
        let batch: Int
        let inputDepth: Int
        let outputDepth: Int
        let outputShape: TensorShape
        let multiplyAccumulates: Int
    }

    /// The checks shared by `prepare` and `validate`; constant values are not read.
    private static func check(inputs: [Operand], options: Options) throws -> Checked {
        let op = "FULLY_CONNECTED"
        guard inputs.count == 2 || inputs.count == 3 else {
            throw KernelError(
                op: op, "expects 2 or 3 inputs (input, weights, optional bias), got \(inputs.count)")
        }
        let inputShape = inputs[0].shape, weightsShape = inputs[1].shape
        guard inputShape.rank >= 1 else {
            throw KernelError(op: op, "input must have rank ≥ 1 [..., K], got a scalar")
        }
        guard weightsShape.rank == 2 else {
            throw KernelError(op: op, "weights must be 2-D [Nout, K], got shape \(weightsShape)")
        }
        guard weightsShape.elementCount > 0 else {
            throw KernelError(op: op, "weights shape \(weightsShape) has a zero dimension")
        }
        let outputDepth = weightsShape[0], inputDepth = weightsShape[1]
        guard inputShape.elementCount > 0 else {
            throw KernelError(op: op, "input shape \(inputShape) is empty")
        }
        guard inputShape.elementCount % inputDepth == 0 else {
            throw KernelError(
                op: op,
                "input shape \(inputShape) has \(inputShape.elementCount) elements, "
                    + "not a whole number of rows of the weights' K = \(inputDepth)")
        }
        let batch = inputShape.elementCount / inputDepth
        let outputDimensions: [Int]
        if options.keepNumDims {
            guard inputShape[inputShape.rank - 1] == inputDepth else {
                throw KernelError(
                    op: op,
                    "keepNumDims needs the input's last dimension to equal the weights' K = "
                        + "\(inputDepth), got input shape \(inputShape)")
            }
            outputDimensions = inputShape.dimensions.dropLast() + [outputDepth]
        } else {
            outputDimensions = [batch, outputDepth]
        }
        try inputs[1].requireConstantFloatCount(op: op, role: "weights")
        try requireOptionalConstantBias(op: op, inputs: inputs, channels: outputDepth)
        let outputShape = try makeOutputShape(op: op, outputDimensions)
        // Cannot overflow: B·Nout is the output's element count and K ≤ the
        // weights' element count, both ≤ 2^31, so the product is ≤ 2^62.
        let macs = outputShape.elementCount * inputDepth
        return Checked(
            op: op, batch: batch, inputDepth: inputDepth, outputDepth: outputDepth,
            outputShape: outputShape, multiplyAccumulates: macs)
    }

    /// One GEMM over the batch rows with the packed weights.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        gemmF32(
            input: io.inputs[0], rows: batch, weights: packed, output: io.outputs[0], workspace: io.workspace,
            clamp: activation.clampRange, runner: runner)
    }

    /// A widened panel per thread for float16 weights (`gemmF32WorkspaceSize`).
    public func workspaceSize(threadCount: Int) throws -> Int {
        try gemmF32WorkspaceSize(weights: packed, threadCount: threadCount)
    }

    /// One dot product per output value, summed over k in order in Float as
    /// TFLite's reference kernel does, with the weights read from the packed
    /// panels (`PackedGemmWeights.sourceRow`).
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [B, K]
        let output = io.outputs[0]  // [B, Nout]
        for b in 0..<batch {
            for o in 0..<outputDepth {
                // weights[o, k] is weightRow[k · stride].
                let (weightRow, stride) = packed.sourceRow(o)
                var total: Float = 0
                for k in 0..<inputDepth {
                    total += input[b * inputDepth + k] * weightRow[k * stride]
                }
                output[b * outputDepth + o] = activation.apply(total + packed.bias[o])
            }
        }
    }
}
