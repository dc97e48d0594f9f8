import FlatBufferReader
import KernelTemplates

/// A fused activation applied to an op's output (TFLite `ActivationFunctionType`).
public enum FusedActivation: Sendable, Hashable, CustomStringConvertible {
    case none
    case relu
    case reluN1To1
    case relu6

    /// The output clamp range the activation implies. As in TFLite, NONE and
    /// RELU clamp to the finite float range, so an infinite result becomes
    /// `±Float.greatestFiniteMagnitude`.
    public var clampRange: (lower: Float, upper: Float) {
        switch self {
        case .none: return (-.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        case .relu: return (0, .greatestFiniteMagnitude)
        case .reluN1To1: return (-1, 1)
        case .relu6: return (0, 6)
        }
    }

    /// Applies the activation to one value: `min(max(x, lower), upper)` with
    /// C++ `std::max`/`std::min` semantics (NaN passes through, `relu(-0) = -0`).
    @inlinable
    public func apply(_ x: Float) -> Float {
        let (lower, upper) = clampRange
        let low = x < lower ? lower : x
        return upper < low ? upper : low
    }

    public var description: String {
        switch self {
        case .none: return "NONE"
        case .relu: return "RELU"
        case .reluN1To1: return "RELU_N1_TO_1"
        case .relu6: return "RELU6"
        }
    }

    /// The activation the `fused_activation_function` field `field` of `table` names (an
    /// `ActivationFunctionType`). Throws `KernelError` for TANH and SIGN_BIT, which no kernel
    /// here fuses, and `ModelError.invalidEnum` for a value outside the schema enum.
    public init(_ table: OptionsTable, _ field: OptionsField<Int8>, op: String) throws {
        switch try table.enumeration(field, as: ActivationFunctionType.self, schemaEnum: "ActivationFunctionType") {
        case .none: self = .none
        case .relu: self = .relu
        case .reluN1To1: self = .reluN1To1
        case .relu6: self = .relu6
        case let function:
            throw KernelError(op: op, "fused activation \(function) is not supported")
        }
    }
}

extension OptionsTable {
    /// The `int` field `field` of `op`'s options as an `Int`; `KernelError` when it is below
    /// `minimum` (e.g. a stride of 0, the schema default).
    func int(_ field: OptionsField<Int32>, atLeast minimum: Int32, op: String) throws -> Int {
        let value = try value(field)
        guard value >= minimum else {
            throw KernelError(op: op, "\(field.name) is \(value), must be >= \(minimum)")
        }
        return Int(value)
    }
}

/// `enum ActivationFunctionType : byte` of the TFLite schema, by its values.
private enum ActivationFunctionType: Int8 {
    case none = 0, relu = 1, reluN1To1 = 2, relu6 = 3, tanh = 4, signBit = 5
}

/// TFLite spatial padding (`enum Padding : byte`, whose values the raw values are). `same`
/// pads so that `out = ceil(in / stride)`, with the extra row/column (if the total is odd) at
/// the bottom/right, as TensorFlow does.
public enum Padding: Int8, Sendable, Hashable, CustomStringConvertible {
    case same = 0
    case valid = 1

    /// The `padding` field `field` of `table`; `ModelError.invalidEnum` for a value outside the
    /// schema enum.
    public init(_ table: OptionsTable, _ field: OptionsField<Int8>) throws {
        self = try table.enumeration(field, as: Padding.self, schemaEnum: "Padding")
    }

    /// Output size and leading (top/left) padding along one spatial axis.
    /// Returns nil if the sizes are not positive or the result is empty.
    public func outputSize(
        input: Int, filter: Int, stride: Int, dilation: Int
    ) -> (size: Int, padBefore: Int)? {
        guard input > 0, filter > 0, stride > 0, dilation > 0 else { return nil }
        let (span, overflow) = (filter - 1).multipliedReportingOverflow(by: dilation)
        guard !overflow, span < Int(Int32.max) else { return nil }
        let effectiveFilter = span + 1
        switch self {
        case .same:
            let out = (input + stride - 1) / stride
            let needed = max(0, (out - 1) * stride + effectiveFilter - input)
            return (out, needed / 2)
        case .valid:
            guard input >= effectiveFilter else { return nil }
            return ((input - effectiveFilter) / stride + 1, 0)
        }
    }

    public var description: String { self == .same ? "SAME" : "VALID" }
}

/// The fields of a convolution's options that describe its sliding window: `Conv2DOptions` and
/// `DepthwiseConv2DOptions` name them alike.
protocol ConvolutionWindowFields {
    static var padding: OptionsField<Int8> { get }
    static var strideW: OptionsField<Int32> { get }
    static var strideH: OptionsField<Int32> { get }
    static var dilationWFactor: OptionsField<Int32> { get }
    static var dilationHFactor: OptionsField<Int32> { get }
}

extension BuiltinOptionsFields.Conv2D: ConvolutionWindowFields {}
extension BuiltinOptionsFields.DepthwiseConv2D: ConvolutionWindowFields {}

/// The sliding window of CONV_2D's and DEPTHWISE_CONV_2D's options, read once for both: what
/// their `readOptions` share.
struct ConvolutionWindowOptions {
    var padding: Padding
    var strideH: Int
    var strideW: Int
    var dilationH: Int
    var dilationW: Int

    /// `stride_w` and `stride_h` (default 0) and `dilation_w_factor` and `dilation_h_factor`
    /// (default 1), each refused below 1 with a `KernelError` naming `op`, then `padding`.
    init<Fields: ConvolutionWindowFields>(_ table: OptionsTable, _: Fields.Type, op: String) throws {
        // In the schema's order, so that the first bad field is the one reported.
        strideW = try table.int(Fields.strideW, atLeast: 1, op: op)
        strideH = try table.int(Fields.strideH, atLeast: 1, op: op)
        dilationW = try table.int(Fields.dilationWFactor, atLeast: 1, op: op)
        dilationH = try table.int(Fields.dilationHFactor, atLeast: 1, op: op)
        padding = try Padding(table, Fields.padding)
    }
}
