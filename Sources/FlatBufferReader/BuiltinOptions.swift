/// Padding scheme of convolutions and pools (`enum Padding : byte`).
public enum Padding: Int8, Sendable, CaseIterable {
    /// Output spatial size = ceil(input / stride); zeros padded evenly, the extra one after.
    case same = 0
    /// No padding: output spatial size = ceil((input - effective filter + 1) / stride).
    case valid = 1
}

/// Activation fused into an operator's output (`enum ActivationFunctionType : byte`).
public enum ActivationFunction: Int8, Sendable, CaseIterable {
    case none = 0
    case relu = 1
    /// Clamp to [-1, 1].
    case reluN1To1 = 2
    /// Clamp to [0, 6].
    case relu6 = 3
    case tanh = 4
    case signBit = 5
}

/// Options of CONV_2D. Filter layout `[O, KH, KW, I]`, input/output `[N, H, W, C]`.
public struct Conv2DOptions: Sendable, Equatable {
    public let padding: Padding
    /// Strides in pixels along width and height (schema default 0, rejected at load).
    public let strideW: Int32
    public let strideH: Int32
    public let fusedActivation: ActivationFunction
    /// Dilation factors along width and height (schema default 1).
    public let dilationWFactor: Int32
    public let dilationHFactor: Int32

    public init(
        padding: Padding = .same, strideW: Int32 = 0, strideH: Int32 = 0, fusedActivation: ActivationFunction = .none,
        dilationWFactor: Int32 = 1, dilationHFactor: Int32 = 1
    ) {
        self.padding = padding
        self.strideW = strideW
        self.strideH = strideH
        self.fusedActivation = fusedActivation
        self.dilationWFactor = dilationWFactor
        self.dilationHFactor = dilationHFactor
    }
}

/// Options of DEPTHWISE_CONV_2D. Filter layout `[1, KH, KW, C * depthMultiplier]`,
/// input/output `[N, H, W, C]`.
public struct DepthwiseConv2DOptions: Sendable, Equatable {
    public let padding: Padding
    /// Strides in pixels (schema default 0, rejected at load).
    public let strideW: Int32
    public let strideH: Int32
    /// Output channels per input channel (schema default 0; recent converters leave it
    /// redundant with the filter shape).
    public let depthMultiplier: Int32
    public let fusedActivation: ActivationFunction
    /// Dilation factors (schema default 1).
    public let dilationWFactor: Int32
    public let dilationHFactor: Int32

    public init(
        padding: Padding = .same, strideW: Int32 = 0, strideH: Int32 = 0, depthMultiplier: Int32 = 0,
        fusedActivation: ActivationFunction = .none, dilationWFactor: Int32 = 1, dilationHFactor: Int32 = 1
    ) {
        self.padding = padding
        self.strideW = strideW
        self.strideH = strideH
        self.depthMultiplier = depthMultiplier
        self.fusedActivation = fusedActivation
        self.dilationWFactor = dilationWFactor
        self.dilationHFactor = dilationHFactor
    }
}

/// Options of FULLY_CONNECTED. Weights `[O, I]`, input `[..., I]`, output `[..., O]`.
public struct FullyConnectedOptions: Sendable, Equatable {
    /// Weight storage order (`enum FullyConnectedOptionsWeightsFormat : byte`).
    public enum WeightsFormat: Int8, Sendable, CaseIterable {
        case `default` = 0
        case shuffled4x16Int8 = 1
    }

    public let fusedActivation: ActivationFunction
    public let weightsFormat: WeightsFormat
    /// Keep the input's leading dimensions instead of flattening them into a batch.
    public let keepNumDims: Bool
    public let asymmetricQuantizeInputs: Bool

    public init(
        fusedActivation: ActivationFunction = .none, weightsFormat: WeightsFormat = .default, keepNumDims: Bool = false,
        asymmetricQuantizeInputs: Bool = false
    ) {
        self.fusedActivation = fusedActivation
        self.weightsFormat = weightsFormat
        self.keepNumDims = keepNumDims
        self.asymmetricQuantizeInputs = asymmetricQuantizeInputs
    }
}

/// Options of ADD.
public struct AddOptions: Sendable, Equatable {
    public let fusedActivation: ActivationFunction
    /// Power-of-two scale for int16 inputs (schema default true).
    public let potScaleInt16: Bool

    public init(fusedActivation: ActivationFunction = .none, potScaleInt16: Bool = true) {
        self.fusedActivation = fusedActivation
        self.potScaleInt16 = potScaleInt16
    }
}

/// Options of AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D. Input/output `[N, H, W, C]`.
public struct Pool2DOptions: Sendable, Equatable {
    public let padding: Padding
    /// Strides in pixels (schema default 0, rejected at load).
    public let strideW: Int32
    public let strideH: Int32
    /// Window size in pixels (schema default 0, rejected at load).
    public let filterWidth: Int32
    public let filterHeight: Int32
    public let fusedActivation: ActivationFunction

    public init(
        padding: Padding = .same, strideW: Int32 = 0, strideH: Int32 = 0, filterWidth: Int32 = 0, filterHeight: Int32 = 0,
        fusedActivation: ActivationFunction = .none
    ) {
        self.padding = padding
        self.strideW = strideW
        self.strideH = strideH
        self.filterWidth = filterWidth
        self.filterHeight = filterHeight
        self.fusedActivation = fusedActivation
    }
}

/// Options of RESHAPE.
public struct ReshapeOptions: Sendable, Equatable {
    /// The target shape, one entry of which may be -1 (inferred); nil when absent, in which
    /// case the shape comes from the operator's second input.
    public let newShape: [Int32]?

    public init(newShape: [Int32]? = nil) {
        self.newShape = newShape
    }
}

/// Options of CONCATENATION.
public struct ConcatenationOptions: Sendable, Equatable {
    /// Axis to concatenate along; negative counts from the end.
    public let axis: Int32
    public let fusedActivation: ActivationFunction

    public init(axis: Int32 = 0, fusedActivation: ActivationFunction = .none) {
        self.axis = axis
        self.fusedActivation = fusedActivation
    }
}

/// An operator's `builtin_options` union, decoded here for the operators whose kernels do not
/// read their own options (the others declare theirs: `OperatorDescriptor` in Kernels).
///
/// For an operator whose opcode has an options table in this subset (e.g. CONV_2D), an absent
/// union decodes as that table with every field at its schema default, as TFLite does; so a
/// CONV_2D operator always carries `.conv2D`. `.none` remains only for opcodes without options
/// in this subset.
public enum BuiltinOptions: Sendable, Equatable {
    case none
    case conv2D(Conv2DOptions)
    case depthwiseConv2D(DepthwiseConv2DOptions)
    case fullyConnected(FullyConnectedOptions)
    case add(AddOptions)
    case pool2D(Pool2DOptions)
    /// Empty option tables.
    case dequantize, densify
    case reshape(ReshapeOptions)
    case concatenation(ConcatenationOptions)
    /// Any other member of the union, by its type code: not decoded here (an op declared by its
    /// kernel reads its own table through `OptionsTable`).
    case other(typeCode: UInt8)
}
