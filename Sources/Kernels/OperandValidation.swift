import Tensor

// Validation shared by the windowed (conv, depthwise, pool) and weighted ops.

/// The validated batch and spatial geometry of a 2-D sliding window over an
/// `[N, H, W, C]` input: filter size, strides, dilations, output size and
/// leading padding, all in pixels. Used by CONV_2D, DEPTHWISE_CONV_2D and
/// MAX_POOL_2D.
///
/// Every size is at least 1 (paddings at least 0); options are at most
/// `Int32.max` and sizes at most `TensorShape.maxElements` (2^31), so index
/// arithmetic such as `oy·strideH − padTop + ky·dilationH` stays far below
/// `Int.max`.
struct WindowGeometry: Sendable, Hashable {
    let batch: Int
    private(set) var inputHeight: Int
    private(set) var inputWidth: Int
    let filterHeight: Int
    let filterWidth: Int
    let strideH: Int
    let strideW: Int
    let dilationH: Int
    let dilationW: Int
    let outputHeight: Int
    let outputWidth: Int
    /// Implicit padding rows above the input (TensorFlow puts an odd extra row below).
    private(set) var padTop: Int
    /// Implicit padding columns left of the input (an odd extra column goes right).
    private(set) var padLeft: Int

    /// Validates the window options and computes the output size.
    ///
    /// - Parameters:
    ///   - input: a 4-D `[N, H, W, C]` shape (the caller checks the rank).
    ///   - filterNames: how errors name the filter height and width (an
    ///     operand's dimensions or an option's name).
    init(
        op: String, input: TensorShape,
        filterHeight: Int, filterWidth: Int, filterNames: (height: String, width: String),
        padding: Padding, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int
    ) throws {
        precondition(input.rank == 4, "WindowGeometry needs a 4-D input shape")
        let allowed = 1...Int(Int32.max)
        for (name, value) in [
            ("strideH", strideH), ("strideW", strideW),
            ("dilationH", dilationH), ("dilationW", dilationW),
            (filterNames.height, filterHeight), (filterNames.width, filterWidth),
        ] where !allowed.contains(value) {
            throw KernelError(op: op, "\(name) must be in \(allowed), got \(value)")
        }
        guard input.elementCount > 0 else {
            throw KernelError(op: op, "input shape \(input) is empty")
        }
        guard let rows = padding.outputSize(
            input: input[1], filter: filterHeight, stride: strideH, dilation: dilationH)
        else {
            throw KernelError(
                op: op,
                "\(padding) padding gives an empty output: input height \(input[1]), "
                    + "\(filterNames.height) \(filterHeight), dilationH \(dilationH), strideH \(strideH)")
        }
        guard let columns = padding.outputSize(
            input: input[2], filter: filterWidth, stride: strideW, dilation: dilationW)
        else {
            throw KernelError(
                op: op,
                "\(padding) padding gives an empty output: input width \(input[2]), "
                    + "\(filterNames.width) \(filterWidth), dilationW \(dilationW), strideW \(strideW)")
        }
        self.batch = input[0]
        self.inputHeight = input[1]
        self.inputWidth = input[2]
        self.filterHeight = filterHeight
        self.filterWidth = filterWidth
        self.strideH = strideH
        self.strideW = strideW
        self.dilationH = dilationH
        self.dilationW = dilationW
        self.outputHeight = rows.size
        self.outputWidth = columns.size
        self.padTop = rows.padBefore
        self.padLeft = columns.padBefore
    }
}

extension WindowGeometry {
    /// The same window over the input of a zero PAD folded into it: a PAD
    /// that adds `top`/`bottom` rows and `left`/`right` columns in front of
    /// this window. The input is that much smaller and the padding moves
    /// into the window's implicit padding, whose taps contribute nothing, so
    /// the outputs are those of the padded input. Nil when `self`'s input is
    /// not larger than the padding.
    func foldingPadding(top: Int, bottom: Int, left: Int, right: Int) -> WindowGeometry? {
        // Each term is at most a padded tensor dimension: no overflow.
        let height = inputHeight - top - bottom, width = inputWidth - left - right
        guard min(top, bottom, left, right) >= 0, height >= 1, width >= 1 else { return nil }
        var folded = self
        folded.inputHeight = height
        folded.inputWidth = width
        folded.padTop = padTop + top
        folded.padLeft = padLeft + left
        return folded
    }

    /// The same window as the fast kernels describe it.
    var convolutionGeometry: ConvolutionGeometry {
        ConvolutionGeometry(
            inputHeight: inputHeight, inputWidth: inputWidth,
            outputHeight: outputHeight, outputWidth: outputWidth,
            kernelHeight: filterHeight, kernelWidth: filterWidth,
            strideHeight: strideH, strideWidth: strideW,
            dilationHeight: dilationH, dilationWidth: dilationW,
            padTop: padTop, padLeft: padLeft)
    }
}

extension Operand {
    /// Checks that this operand is a float32 constant, read or unread, with
    /// one value per element of its shape.
    func requireConstantFloatCount(op: String, role: String) throws {
        guard let constant else {
            throw KernelError(
                op: op, "\(role) must be a constant tensor, got a runtime tensor of shape \(shape)")
        }
        let count: Int
        switch constant {
        case .float32(let values): count = values.count
        case .float16(let halves): count = halves.count
        case .compressedRows(let filter): count = filter.rows * filter.columns
        case .unreadFloat32(let unread): count = unread
        case .int32: throw KernelError(op: op, "\(role) must be a float32 constant, got an int32 constant")
        }
        guard count == shape.elementCount else {
            throw KernelError(
                op: op,
                "\(role) constant holds \(count) values but its shape \(shape) needs \(shape.elementCount)")
        }
    }

    /// The values of a float constant operand (weights, bias), float16 ones
    /// widened, checked to hold exactly one value per element of its shape.
    func requireConstantFloats(op: String, role: String) throws -> [Float] {
        try requireConstantFloatCount(op: op, role: role)
        return checkedConstantFloats(op: op, role: role)
    }

    /// The values of a float constant operand that `requireConstantFloatCount`
    /// accepted, float16 ones widened: for packings that read them only when
    /// no earlier load packed them (`PackedWeightStore`).
    func checkedConstantFloats(op: String, role: String) -> [Float] {
        guard let values = constant?.floatValues else {
            preconditionFailure("\(op): \(role) values were not read; only validate takes unread constants")
        }
        return values
    }

    /// This weights operand (`[N, K]` row-major once flattened) and `bias`
    /// packed for the GEMM microkernels of `instructionSet`: float16 weights
    /// straight from their halves (widened into float32 panels for layers of
    /// at most `PackedGemmWeights.maxWeightsForFloat32Panels` weights), compressed rows from
    /// their stored values, float32 ones as they are. Checked as
    /// `requireConstantFloats` checks.
    func packedGemmWeights(
        op: String, role: String, outputChannels: Int, inputChannels: Int, bias: [Float]?,
        instructionSet: KernelInstructionSet
    ) throws -> PackedGemmWeights {
        try requireConstantFloatCount(op: op, role: role)
        if case .float16(let halves)? = constant {
            return try PackedGemmWeights(
                outputChannels: outputChannels, inputChannels: inputChannels, float16Weights: halves,
                bias: bias, instructionSet: instructionSet,
                float32Panels: outputChannels * inputChannels <= PackedGemmWeights.maxWeightsForFloat32Panels)
        }
        if case .compressedRows(let filter)? = constant, inputChannels.isMultiple(of: filter.columns) {
            return try PackedGemmWeights(
                outputChannels: outputChannels, inputChannels: inputChannels, compressedRows: filter,
                bias: bias, instructionSet: instructionSet)
        }
        return try PackedGemmWeights(
            outputChannels: outputChannels, inputChannels: inputChannels,
            weights: requireConstantFloats(op: op, role: role), bias: bias, instructionSet: instructionSet)
    }
}

/// Checks an optional bias: absent (two operands), or a float32 constant,
/// read or unread, with one value per output channel.
func requireOptionalConstantBias(op: String, inputs: [Operand], channels: Int) throws {
    guard inputs.count > 2 else { return }
    try inputs[2].requireConstantFloatCount(op: op, role: "bias")
    let count = inputs[2].shape.elementCount
    guard count == channels else {
        throw KernelError(
            op: op,
            "bias has \(count) elements (shape \(inputs[2].shape)), expected \(channels), "
                + "one per output channel")
    }
}

/// The bias of an op whose optional third operand is a constant with one value
/// per output channel, or `channels` zeros when there is no third operand.
func optionalConstantBias(op: String, inputs: [Operand], channels: Int) throws -> [Float] {
    guard inputs.count > 2 else { return [Float](repeating: 0, count: channels) }
    try requireOptionalConstantBias(op: op, inputs: inputs, channels: channels)
    return try inputs[2].requireConstantFloats(op: op, role: "bias")
}

/// A validated output shape, or a `KernelError` if it is too large.
func makeOutputShape(op: String, _ dimensions: [Int]) throws -> TensorShape {
    do {
        return try TensorShape(dimensions)
    } catch {
        throw KernelError(op: op, "output shape is invalid: \(error)")
    }
}
