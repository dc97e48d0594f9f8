/// Element types a TensorFlow Lite tensor can declare.
///
/// The runtime computes in `float32`; `float16` appears only in constant
/// weights (folded to `float32` at load time) and `int32` only in constant
/// shape, axis and padding operands. The integer and quantized types are
/// recognised so that a model using them gets a precise "unsupported" error.
public enum DataType: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // Raw values are TFLite's `TensorType` enum values.
    case float32 = 0
    case float16 = 1
    case int32 = 2
    case uint8 = 3
    case int64 = 4
    case string = 5
    case bool = 6
    case int16 = 7
    case complex64 = 8
    case int8 = 9
    case float64 = 10
    case complex128 = 11
    case uint64 = 12
    case resource = 13
    case variant = 14
    case uint32 = 15
    case uint16 = 16
    case int4 = 17
    case bfloat16 = 18

    /// Size of one element in bytes, or `nil` where elements are not fixed-size
    /// bytes (strings, resources, variants, packed 4-bit integers).
    public var byteSize: Int? {
        switch self {
        case .bool, .int8, .uint8: return 1
        case .float16, .bfloat16, .int16, .uint16: return 2
        case .float32, .int32, .uint32: return 4
        case .float64, .int64, .uint64, .complex64: return 8
        case .complex128: return 16
        case .string, .resource, .variant, .int4: return nil
        }
    }

    public var description: String {
        switch self {
        case .float32: return "float32"
        case .float16: return "float16"
        case .int32: return "int32"
        case .uint8: return "uint8"
        case .int64: return "int64"
        case .string: return "string"
        case .bool: return "bool"
        case .int16: return "int16"
        case .complex64: return "complex64"
        case .int8: return "int8"
        case .float64: return "float64"
        case .complex128: return "complex128"
        case .uint64: return "uint64"
        case .resource: return "resource"
        case .variant: return "variant"
        case .uint32: return "uint32"
        case .uint16: return "uint16"
        case .int4: return "int4"
        case .bfloat16: return "bfloat16"
        }
    }
}
