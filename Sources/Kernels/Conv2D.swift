import Tensor

/// CONV_2D: a 2-D convolution of an NHWC activation with a constant filter,
/// plus an optional constant bias and a fused activation, computed as TFLite's
/// builtin reference kernel computes it (float32).
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
public struct Conv2D: PreparedKernel {
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

    public let opName = "CONV_2D"
    /// `[[N, OH, OW, Cout]]`.
    public let outputShapes: [TensorShape]
    /// `N · OH · OW · Cout · KH · KW · Cin`: every filter tap is counted,
    /// including taps that fall in the padding.
    public let multiplyAccumulates: Int

    /// Batch and spatial geometry of the sliding window.
    let window: WindowGeometry
    /// Cin.
    let inputChannels: Int
    /// Cout.
    let outputChannels: Int
    let activation: FusedActivation
    /// `[Cout, KH, KW, Cin]`, copied from the constant filter operand.
    let filter: [Float]
    /// `[Cout]`; zeros when the op has no bias (TFLite adds 0 in that case too).
    let bias: [Float]

    /// Validates the operands and options and copies the constant filter and bias.
    ///
    /// Throws `KernelError` for: an operand count other than 2 or 3; an input or
    /// filter that is not 4-D; an empty filter; input channels that differ from
    /// the filter's (grouped convolution is reported as unsupported); a filter or
    /// bias that is not a float32 constant; a bias without `Cout` elements;
    /// strides or dilations outside `1...Int32.max`; an empty input or output.
    public static func prepare(inputs: [Operand], options: Options) throws -> Conv2D {
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
        let filter = try inputs[1].requireConstantFloats(op: op, role: "filter")
        let bias = try optionalConstantBias(op: op, inputs: inputs, channels: outputChannels)
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
        return Conv2D(
            outputShapes: [outputShape], multiplyAccumulates: macs, window: window,
            inputChannels: inputChannels, outputChannels: outputChannels,
            activation: options.activation, filter: filter, bias: bias)
    }

    /// Direct convolution, one output value at a time, summing taps in
    /// (ky, kx, ic) order in Float as TFLite's reference kernel does.
    public func runReference(_ io: KernelIO) {
        let input = io.inputs[0]    // [N, H, W, Cin]
        let output = io.outputs[0]  // [N, OH, OW, Cout]
        let g = window
        for n in 0..<g.batch {
            for oy in 0..<g.outputHeight {
                for ox in 0..<g.outputWidth {
                    for oc in 0..<outputChannels {
                        var total: Float = 0
                        for ky in 0..<g.filterHeight {
                            let iy = oy * g.strideH - g.padTop + ky * g.dilationH
                            guard iy >= 0, iy < g.inputHeight else { continue }
                            for kx in 0..<g.filterWidth {
                                let ix = ox * g.strideW - g.padLeft + kx * g.dilationW
                                guard ix >= 0, ix < g.inputWidth else { continue }
                                let inputBase = ((n * g.inputHeight + iy) * g.inputWidth + ix) * inputChannels
                                let filterBase = ((oc * g.filterHeight + ky) * g.filterWidth + kx) * inputChannels
                                for ic in 0..<inputChannels {
                                    total += input[inputBase + ic] * filter[filterBase + ic]
                                }
                            }
                        }
                        let outputIndex = ((n * g.outputHeight + oy) * g.outputWidth + ox) * outputChannels + oc
                        output[outputIndex] = activation.apply(total + bias[oc])
                    }
                }
            }
        }
    }
}

// MARK: - Validation shared by the windowed and weighted ops

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
    let inputHeight: Int
    let inputWidth: Int
    let filterHeight: Int
    let filterWidth: Int
    let strideH: Int
    let strideW: Int
    let dilationH: Int
    let dilationW: Int
    let outputHeight: Int
    let outputWidth: Int
    /// Implicit padding rows above the input (TensorFlow puts an odd extra row below).
    let padTop: Int
    /// Implicit padding columns left of the input (an odd extra column goes right).
    let padLeft: Int

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

extension Operand {
    /// The values of a float32 constant operand (weights, bias), checked to
    /// hold exactly one value per element of its shape.
    func requireConstantFloats(op: String, role: String) throws -> [Float] {
        guard let constant else {
            throw KernelError(
                op: op, "\(role) must be a constant tensor, got a runtime tensor of shape \(shape)")
        }
        guard let values = constant.floatValues else {
            throw KernelError(op: op, "\(role) must be a float32 constant, got an int32 constant")
        }
        guard values.count == shape.elementCount else {
            throw KernelError(
                op: op,
                "\(role) constant holds \(values.count) values but its shape \(shape) needs \(shape.elementCount)")
        }
        return values
    }
}

/// The bias of an op whose optional third operand is a constant with one value
/// per output channel, or `channels` zeros when there is no third operand.
func optionalConstantBias(op: String, inputs: [Operand], channels: Int) throws -> [Float] {
    guard inputs.count > 2 else { return [Float](repeating: 0, count: channels) }
    let values = try inputs[2].requireConstantFloats(op: op, role: "bias")
    guard values.count == channels else {
        throw KernelError(
            op: op,
            "bias has \(values.count) elements (shape \(inputs[2].shape)), expected \(channels), "
                + "one per output channel")
    }
    return values
}

/// A validated output shape, or a `KernelError` if it is too large.
func makeOutputShape(op: String, _ dimensions: [Int]) throws -> TensorShape {
    do {
        return try TensorShape(dimensions)
    } catch {
        throw KernelError(op: op, "output shape is invalid: \(error)")
    }
}
