// A small description language for flatbuffer tables, read by `Verifier`.

/// How one field of a table is stored.
enum FieldKind: Sendable {
    /// An inline scalar of `size` bytes (bool, integers, floats).
    case scalar(size: Int)
    /// An inline `byte` enum whose value must lie in `valid`.
    case enumeration(name: StaticString, valid: ClosedRange<Int8>)
    /// An offset to a zero-terminated string (decoded, so its bytes count toward the budget).
    case string
    /// An offset to a vector of scalars. `decoded` vectors are copied into Swift arrays and
    /// count toward the decoded-element budget; others (weights, custom options) stay views
    /// and are exempt from the vector length limit.
    case scalarVector(elementSize: Int, decoded: Bool)
    /// An offset to a table.
    case table(TableSchema)
    /// An offset to a vector of offsets to tables.
    case tableVector(TableSchema)
    /// The value half of a union: an offset to a table whose schema is chosen by the
    /// `UInt8` type code stored in field `typeField` (see `UnionMembers`).
    case unionValue(typeField: Int, members: UnionMembers)

    /// A union's value field whose members are `members` by type code; codes missing
    /// from it but within `knownTypeCount` are verified as opaque tables (header only),
    /// codes above it are invalid.
    static func unionValue(typeField: Int, members: [UInt8: TableSchema], knownTypeCount: UInt8) -> FieldKind {
        .unionValue(typeField: typeField, members: UnionMembers(members, knownTypeCount: knownTypeCount))
    }

    /// Bytes the field occupies inside the table.
    var inlineSize: Int {
        switch self {
        case let .scalar(size): return size
        case .enumeration: return 1
        case .string, .scalarVector, .table, .tableVector, .unionValue: return 4
        }
    }
}

/// The schemas of a union's members, looked up by type code without hashing.
struct UnionMembers: Sendable {
    /// Index `code − 1` for type codes `1...knownTypeCount`: the member's schema, or
    /// `TableSchema.opaque` for a code the schema knows but does not describe.
    private let schemas: [TableSchema]

    init(_ members: [UInt8: TableSchema], knownTypeCount: UInt8) {
        precondition(members.keys.allSatisfy { (1...knownTypeCount).contains($0) }, "union member code out of range")
        schemas = (0..<Int(knownTypeCount)).map { members[UInt8($0 + 1)] ?? .opaque }
    }

    /// Type codes above this are invalid (0 is NONE).
    var knownTypeCount: UInt8 { UInt8(schemas.count) }

    /// The schema of member `code` (`1...knownTypeCount`).
    subscript(code: UInt8) -> TableSchema { schemas[Int(code) - 1] }
}

/// One field of a table: its id (vtable slot), its schema name and its layout.
struct FieldSchema: Sendable {
    let id: Int
    let name: StaticString
    let kind: FieldKind

    init(_ id: Int, _ name: StaticString, _ kind: FieldKind) {
        self.id = id
        self.name = name
        self.kind = kind
    }
}

/// The fields of one table type that the verifier checks. Fields not listed are ignored
/// (a newer schema may add them).
final class TableSchema: Sendable {
    let name: StaticString
    let fields: [FieldSchema]

    init(_ name: StaticString, _ fields: [FieldSchema]) {
        self.name = name
        self.fields = fields
    }

    /// A table whose fields are not inspected: only its header and vtable are checked.
    static let opaque = TableSchema("(unverified union member)", [])
}
