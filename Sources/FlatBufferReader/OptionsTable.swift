/// One operator's `builtin_options` table, read field by field by the operator that owns it
/// (its kernel file's `OperatorDescriptor`), which knows the table's field ids and defaults.
///
/// The verifier checked that the table and its vtable lie inside the model, but not its fields
/// (it does not know their types), so every read here checks that the field lies inside the
/// table's inline bytes and the model, and throws `ModelError` otherwise; nothing traps on bad
/// input. An absent field, or an absent table, reads as the default the caller gives (the
/// schema's default, as TFLite applies it).
public struct OptionsTable: Sendable {
    /// The `BuiltinOptions` union type the operator carries (`BuiltinOptionsType`), 0 for none.
    public let type: UInt8
    /// Names the operator in errors, e.g. `operator 3 (MUL) options`.
    public let location: String
    /// The model's bytes and the table's position, nil when the operator carries no table.
    private let table: (bytes: ModelBytes, position: Int)?

    /// An absent table: every field reads as its default.
    public static func absent(location: String) -> OptionsTable {
        OptionsTable(type: 0, location: location, table: nil)
    }

    private init(type: UInt8, location: String, table: (bytes: ModelBytes, position: Int)?) {
        self.type = type
        self.location = location
        self.table = table
    }

    /// The options table of `op`, an operator of `model`, named `location` in errors.
    init(of op: OperatorInfo, in bytes: ModelBytes, location: String) {
        self.init(type: op.optionsType, location: location, table: op.optionsPosition.map { (bytes, $0) })
    }

    /// The `int` field `id` (4 bytes), or `defaultValue` when absent.
    public func int32(_ id: Int, default defaultValue: Int32) throws -> Int32 {
        try scalar(id, default: defaultValue)
    }

    /// The `bool` field `id` (1 byte, any non-zero value is true), or `defaultValue` when absent.
    public func bool(_ id: Int, default defaultValue: Bool) throws -> Bool {
        try scalar(id, default: defaultValue ? 1 : 0 as UInt8) != 0
    }

    /// The `byte` enum field `id` named `name` (e.g. `fused_activation_function`), or the
    /// enum's case 0 when absent; `ModelError.invalidEnum` for a value outside the enum.
    public func enumeration<E: RawRepresentable>(_ id: Int, _: E.Type, _ name: String) throws -> E
    where E.RawValue == Int8 {
        let raw = try scalar(id, default: 0 as Int8)
        guard let value = E(rawValue: raw) else {
            throw ModelError.invalidEnum(what: "\(location): \(name)", value: Int64(raw))
        }
        return value
    }

    /// The `fused_activation_function` field `id` (`ActivationFunctionType`, default NONE).
    public func activation(_ id: Int) throws -> ActivationFunction {
        try enumeration(id, ActivationFunction.self, "fused_activation_function")
    }

    /// The `[int]` field `id`, or nil when absent.
    public func int32s(_ id: Int) throws -> [Int32]? {
        try withTable { view, table in
            guard let table else { return nil }
            let position = try inlinePosition(of: id, size: 4, in: table, view)
            guard position != nil else { return nil }
            return try view.int32s(table, id, location)
        }
    }

    /// The scalar field `id`, or `defaultValue` when absent.
    private func scalar<T: FixedWidthInteger>(_ id: Int, default defaultValue: T) throws -> T {
        try withTable { view, table in
            guard let table,
                  let position = try inlinePosition(of: id, size: MemoryLayout<T>.size, in: table, view)
            else { return defaultValue }
            guard let value = view.load(T.self, at: position) else {
                throw ModelError.outOfBounds(what: "\(location): field \(id) cannot be read")
            }
            return value
        }
    }

    /// The position of field `id` of `size` bytes, checked to lie inside the table's inline
    /// bytes; nil when the field is absent.
    private func inlinePosition(of id: Int, size: Int, in table: TableView, _ view: FlatBufferView) throws -> Int? {
        guard let offset = table.fieldOffset(id, in: view) else { return nil }
        // offset < 2^16 and size <= 8: no overflow.
        guard offset >= 4, offset &+ size <= table.inlineSize else {
            throw ModelError.malformed(
                what: "\(location): field \(id) at offset \(offset) (\(size) bytes) lies outside the table's "
                    + "\(table.inlineSize) inline bytes")
        }
        // table.position <= 2^31 and offset < 2^16.
        return table.position &+ offset
    }

    /// Calls `body` with a view of the model and the table, or nil when there is none.
    private func withTable<R>(_ body: (FlatBufferView, TableView?) throws -> R) throws -> R {
        guard let table else {
            return try body(try FlatBufferView(UnsafeRawBufferPointer(start: nil, count: 0)), nil)
        }
        return try table.bytes.withUnsafeBytes { raw in
            let view = try FlatBufferView(raw)
            return try body(view, try view.table(at: table.position, what: location))
        }
    }
}

extension TFLiteModel {
    /// The options table of `op`, an operator of this model's subgraphs; `location` names the
    /// operator in errors.
    public func optionsTable(of op: OperatorInfo, location: String) -> OptionsTable {
        OptionsTable(of: op, in: bytes, location: location)
    }
}
