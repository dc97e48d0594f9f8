/// The element type of a tensor (`enum TensorType : byte` in the TFLite schema).
/// Values outside the schema's range are rejected when a model is loaded.
public struct TensorType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int8

    public init(rawValue: Int8) {
        self.rawValue = rawValue
    }

    public static let float32 = TensorType(rawValue: 0)
    public static let float16 = TensorType(rawValue: 1)
    public static let int32 = TensorType(rawValue: 2)
    public static let uint8 = TensorType(rawValue: 3)
    public static let int64 = TensorType(rawValue: 4)
    public static let string = TensorType(rawValue: 5)
    public static let bool = TensorType(rawValue: 6)
    public static let int16 = TensorType(rawValue: 7)
    public static let complex64 = TensorType(rawValue: 8)
    public static let int8 = TensorType(rawValue: 9)
    public static let float64 = TensorType(rawValue: 10)
    public static let complex128 = TensorType(rawValue: 11)
    public static let uint64 = TensorType(rawValue: 12)
    public static let resource = TensorType(rawValue: 13)
    public static let variant = TensorType(rawValue: 14)
    public static let uint32 = TensorType(rawValue: 15)
    public static let uint16 = TensorType(rawValue: 16)
    public static let int4 = TensorType(rawValue: 17)

    /// Bytes per element, or nil for types without a fixed whole-byte size
    /// (string, resource, variant, and int4 which packs two elements per byte).
    public var byteSize: Int? {
        switch rawValue {
        case 0, 2, 15: return 4
        case 1, 7, 16: return 2
        case 3, 6, 9: return 1
        case 4, 8, 10, 12: return 8
        case 11: return 16
        default: return nil
        }
    }

    private static let names = [
        "FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16", "COMPLEX64", "INT8",
        "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT", "UINT32", "UINT16", "INT4",
    ]

    /// The schema name, e.g. `FLOAT32`; unknown codes print as `TYPE_<n>`.
    public var description: String {
        Self.names.indices.contains(Int(rawValue)) ? Self.names[Int(rawValue)] : "TYPE_\(rawValue)"
    }
}
