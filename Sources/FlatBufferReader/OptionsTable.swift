/// One operator's options as the model holds them: its `builtin_options` table, read field by
/// field by the operator that owns it (its kernel file's `OperatorDescriptor`) through the
/// table's generated fields (`BuiltinOptionsFields`), which carry the field ids and schema
/// defaults; and, for a CUSTOM operator, its `custom_options` FlexBuffer (`customOptions()`).
///
/// The verifier checked the table against the same fields, but the reads here do not rely on
/// it (a caller may name a field of another table): every read checks that the field lies
/// inside the table's inline bytes and the model, and throws `ModelError` otherwise; nothing
/// traps on bad input. An absent field, or an absent table, reads as the field's schema
/// default, as TFLite applies it.
public struct OptionsTable: Sendable {
    /// The `BuiltinOptions` union type the operator carries (`BuiltinOptionsType`), 0 for none.
    public let type: UInt8
    /// Names the operator in errors, e.g. `operator 3 (MUL) options`.
    public var location: String {
        switch place {
        case .named(let location): location
        case .operator(let index, let name): "operator \(index) (\(name)) options"
        }
    }
    /// What `location` is made from, kept apart so that a load that reads no bad field never
    /// builds the words.
    private let place: Place
    /// The model's bytes and the table's position, nil when the operator carries no table.
    private let table: (bytes: ModelBytes, position: Int)?
    /// The table's vtable and sizes, found and checked once when the table is made; nil when
    /// there is no table or it is malformed (each read then finds it again and throws).
    private let resolved: TableView?
    /// A copy of the operator's `custom_options` bytes, nil when it carries none.
    private let customOptionBytes: [UInt8]?

    /// How `location` names the table.
    fileprivate enum Place: Sendable {
        case named(String)
        /// `operator <index> (<name>) options`.
        case `operator`(index: Int, name: String)
    }

    /// An absent table: every field reads as its default.
    public static func absent(location: String) -> OptionsTable {
        OptionsTable(type: 0, place: .named(location), table: nil, customOptionBytes: nil)
    }

    /// The options of a CUSTOM operator that carries `customOptions` as its `custom_options`
    /// bytes and no options table.
    public static func custom(_ customOptions: [UInt8], location: String) -> OptionsTable {
        OptionsTable(type: 0, place: .named(location), table: nil, customOptionBytes: customOptions)
    }

    private init(type: UInt8, place: Place, table: (bytes: ModelBytes, position: Int)?, customOptionBytes: [UInt8]?) {
        self.type = type
        self.place = place
        self.table = table
        self.customOptionBytes = customOptionBytes
        self.resolved = table.flatMap { table in
            table.bytes.withUnsafeBytes { raw in
                try? FlatBufferView(raw).table(at: table.position, what: "")
            }
        }
    }

    /// The options of `op`, an operator of `model`, named as `place` says in errors.
    fileprivate init(of op: OperatorInfo, in bytes: ModelBytes, place: Place) {
        // The decoder checked that the custom options lie inside the bytes.
        let custom = op.customOptions.map { range in bytes.withUnsafeBytes { Array($0[range]) } }
        self.init(
            type: op.optionsType, place: place, table: op.optionsPosition.map { (bytes, $0) },
            customOptionBytes: custom)
    }

    /// The operator's `custom_options` as a FlexBuffer map, nil when it carries none (absent
    /// or empty). `ModelError` when the bytes are not a FlexBuffer whose root is a map.
    public func customOptions() throws -> FlexBufferMap? {
        guard let customOptionBytes, !customOptionBytes.isEmpty else { return nil }
        return try FlexBufferView(customOptionBytes, location: "\(location) custom_options").rootMap()
    }

    /// The scalar field `field`, or its schema default when absent.
    public func value<T: OptionsScalar>(_ field: OptionsField<T>) throws -> T {
        try withTable { view, table in
            guard let table,
                  let position = try inlinePosition(of: field.id, field.name, size: T.byteCount, in: table, view)
            else { return field.defaultValue }
            let bits: UInt64?
            switch T.byteCount {
            case 1: bits = view.load(UInt8.self, at: position).map(UInt64.init)
            case 2: bits = view.load(UInt16.self, at: position).map(UInt64.init)
            case 4: bits = view.load(UInt32.self, at: position).map(UInt64.init)
            default: bits = view.load(UInt64.self, at: position)
            }
            guard let bits else {
                throw ModelError.outOfBounds(what: "\(location): \(field.name) (field \(field.id)) cannot be read")
            }
            return T(optionsBits: bits)
        }
    }

    /// The `byte` field `field` as the enum `E`, whose raw values are the schema enum
    /// `schemaEnum`'s (e.g. `Padding`); `ModelError.invalidEnum` for a value outside it.
    public func enumeration<E: RawRepresentable>(
        _ field: OptionsField<Int8>, as _: E.Type, schemaEnum: StaticString
    ) throws -> E where E.RawValue == Int8 {
        let raw = try value(field)
        guard let value = E(rawValue: raw) else {
            throw ModelError.invalidEnum(what: "\(location): \(field.name) (\(schemaEnum))", value: Int64(raw))
        }
        return value
    }

    /// The `[int]` field `field`, or nil when absent.
    public func values(_ field: OptionsVectorField<Int32>) throws -> [Int32]? {
        try withTable { view, table in
            guard let table,
                  try inlinePosition(of: field.id, field.name, size: 4, in: table, view) != nil
            else { return nil }
            return try view.int32s(table, field.id, "\(location): \(field.name)")
        }
    }

    /// The position of field `id` (named `name`) of `size` bytes, checked to lie inside the
    /// table's inline bytes; nil when the field is absent.
    private func inlinePosition(
        of id: Int, _ name: StaticString, size: Int, in table: TableView, _ view: FlatBufferView
    ) throws -> Int? {
        guard let offset = table.fieldOffset(id, in: view) else { return nil }
        // offset < 2^16 and size <= 8: no overflow.
        guard offset >= 4, offset &+ size <= table.inlineSize else {
            throw ModelError.malformed(
                what: "\(location): \(name) (field \(id)) at offset \(offset) (\(size) bytes) lies outside the "
                    + "table's \(table.inlineSize) inline bytes")
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
            return try body(view, try resolved ?? view.table(at: table.position, what: location))
        }
    }
}

extension TFLiteModel {
    /// The options table of `op`, an operator of this model's subgraphs; `location` names the
    /// operator in errors.
    public func optionsTable(of op: OperatorInfo, location: String) -> OptionsTable {
        OptionsTable(of: op, in: bytes, place: .named(location))
    }

    /// The options table of `op`, operator `index` of one of this model's subgraphs, named
    /// `operator <index> (<name>) options` in errors (e.g. `operator 3 (MUL) options`).
    public func optionsTable(of op: OperatorInfo, index: Int) -> OptionsTable {
        OptionsTable(of: op, in: bytes, place: .operator(index: index, name: operatorCodes[op.opcodeIndex].name))
    }
}
