/// A scalar type an options-table field holds: the schema's `bool`, `byte`, `ubyte`, `short`,
/// `ushort`, `int`, `uint`, `long`, `ulong`, `float` or `double`.
public protocol OptionsScalar: Sendable {
    /// The bytes the value occupies inline in its table: 1, 2, 4 or 8.
    static var byteCount: Int { get }
    /// The value whose little-endian bytes are the low `byteCount` bytes of `bits`.
    init(optionsBits bits: UInt64)
}

extension Bool: OptionsScalar {
    public static var byteCount: Int { 1 }
    /// Any non-zero byte is true, as flatbuffers reads a `bool`.
    public init(optionsBits bits: UInt64) { self = bits != 0 }
}

extension Float: OptionsScalar {
    public static var byteCount: Int { 4 }
    public init(optionsBits bits: UInt64) { self.init(bitPattern: UInt32(truncatingIfNeeded: bits)) }
}

extension Double: OptionsScalar {
    public static var byteCount: Int { 8 }
    public init(optionsBits bits: UInt64) { self.init(bitPattern: bits) }
}

extension OptionsScalar where Self: FixedWidthInteger {
    public static var byteCount: Int { MemoryLayout<Self>.size }
    public init(optionsBits bits: UInt64) { self.init(truncatingIfNeeded: bits) }
}

extension Int8: OptionsScalar {}
extension UInt8: OptionsScalar {}
extension Int16: OptionsScalar {}
extension UInt16: OptionsScalar {}
extension Int32: OptionsScalar {}
extension UInt32: OptionsScalar {}
extension Int64: OptionsScalar {}
extension UInt64: OptionsScalar {}

/// A scalar field of an options table, as the generated `BuiltinOptionsFields` declares it
/// from the TFLite schema: e.g. `Conv2DOptions.stride_w` is field 1, an `int` whose default is 0.
public struct OptionsField<Value: OptionsScalar>: Sendable {
    /// The field's id (its vtable slot).
    public let id: Int
    /// The schema's name, e.g. `stride_w`, for messages.
    public let name: StaticString
    /// The value an absent field (or an absent table) stands for.
    public let defaultValue: Value

    init(_ id: Int, _ name: StaticString, default defaultValue: Value) {
        self.id = id
        self.name = name
        self.defaultValue = defaultValue
    }

    /// The verifier's view of the field: `Value.byteCount` inline bytes.
    var schema: FieldSchema { FieldSchema(id, name, .scalar(size: Value.byteCount)) }
}

/// A vector-of-scalars field of an options table (e.g. `ReshapeOptions.new_shape`, `[int]`);
/// absent means no vector.
public struct OptionsVectorField<Element: OptionsScalar>: Sendable {
    /// The field's id (its vtable slot).
    public let id: Int
    /// The schema's name, e.g. `new_shape`, for messages.
    public let name: StaticString

    init(_ id: Int, _ name: StaticString) {
        self.id = id
        self.name = name
    }

    /// The verifier's view of the field: an offset to a vector that a reader copies, so its
    /// length counts toward the verifier's limits.
    var schema: FieldSchema {
        FieldSchema(id, name, .scalarVector(elementSize: Element.byteCount, decoded: true))
    }
}

/// A string field of an options table (e.g. `VarHandleOptions.container`).
public struct OptionsStringField: Sendable {
    /// The field's id (its vtable slot).
    public let id: Int
    /// The schema's name, for messages.
    public let name: StaticString

    init(_ id: Int, _ name: StaticString) {
        self.id = id
        self.name = name
    }

    /// The verifier's view of the field: an offset to a zero-terminated string.
    var schema: FieldSchema { FieldSchema(id, name, .string) }
}
