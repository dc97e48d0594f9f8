/// Bounds on the work and memory a model may demand of the verifier and decoder.
/// The defaults admit any real TFLite model many times over.
public struct VerifierLimits: Sendable, Equatable {
    /// Deepest nesting of tables below the root (the root is depth 1).
    public var maxDepth: Int
    /// Table visits in total (a table reachable along several paths counts once per path).
    public var maxTables: Int
    /// Elements in any one decoded vector (tensors, operators, buffers, shapes, indices...).
    /// Byte vectors that stay views into the file (buffer data, custom options) are exempt.
    public var maxVectorLength: Int
    /// Decoded vector elements plus decoded string bytes, summed over the whole model.
    public var maxDecodedElements: Int
    /// Largest model in bytes; at most `ModelBytes.maximumSize`.
    public var maxModelSize: Int

    public init(
        maxDepth: Int = 64,
        maxTables: Int = 1 << 24,
        maxVectorLength: Int = 1 << 24,
        maxDecodedElements: Int = 1 << 26,
        maxModelSize: Int = ModelBytes.maximumSize
    ) {
        self.maxDepth = maxDepth
        self.maxTables = maxTables
        self.maxVectorLength = maxVectorLength
        self.maxDecodedElements = maxDecodedElements
        self.maxModelSize = min(maxModelSize, ModelBytes.maximumSize)
    }

    public static let `default` = VerifierLimits()
}

/// Walks every table, vector and string reachable from a flatbuffer's root as `TableSchema`
/// describes them, checking offsets, lengths, alignment, vtables, enum ranges and union
/// type/value consistency, within `VerifierLimits`. Nothing is decoded.
struct Verifier {
    /// Root offset (4 bytes) + file identifier (4) + smallest table (4) + smallest vtable (4).
    static let minimumSize = 16

    private let view: FlatBufferView
    private let limits: VerifierLimits
    private var tableCount = 0
    private var decodedElements = 0
    private var path: [PathComponent] = []

    /// Where the walk is, for messages: trivially copyable, so that keeping the path
    /// costs no reference counting.
    private enum PathComponent {
        case field(StaticString)
        case index(Int)
    }

    init(view: FlatBufferView, limits: VerifierLimits) {
        self.view = view
        self.limits = limits
    }

    /// Checks the size and file identifier, then verifies the root table against `schema`.
    /// Returns the root table's position.
    mutating func verifyRoot(_ schema: TableSchema, identifier: [UInt8]) throws -> Int {
        guard view.count <= limits.maxModelSize else {
            throw ModelError.tooLarge(path: nil, size: view.count, limit: limits.maxModelSize)
        }
        guard view.count >= Self.minimumSize else {
            throw ModelError.truncated(size: view.count, minimum: Self.minimumSize)
        }
        let found = (4..<8).map { view.bytes[$0] }
        guard found == identifier else { throw ModelError.badIdentifier(found: found) }
        guard let root = view.followOffset(at: 0), view.contains(root, length: 4) else {
            throw ModelError.outOfBounds(what: "root table offset points past the end (\(view.count) bytes)")
        }
        path = [.field(schema.name)]
        path.reserveCapacity(2 * min(limits.maxDepth, 128) + 1)  // a field and an index per level
        try verifyTable(at: root, schema, depth: 1)
        return root
    }

    private var location: String {
        var text = ""
        for component in path {
            switch component {
            case let .field(name): text += text.isEmpty ? "\(name)" : ".\(name)"
            case let .index(index): text += "[\(index)]"
            }
        }
        return text
    }

    private mutating func verifyTable(at position: Int, _ schema: TableSchema, depth: Int) throws {
        guard depth <= limits.maxDepth else {
            throw ModelError.limitExceeded(what: "\(location): tables nested \(depth) deep, more than \(limits.maxDepth)")
        }
        // tableCount <= maxTables before the increment, and maxTables is an Int: at most Int.max.
        guard tableCount < limits.maxTables else {
            throw ModelError.limitExceeded(what: "\(location): more than \(limits.maxTables) tables")
        }
        tableCount += 1
        guard position % 4 == 0 else {
            throw ModelError.misaligned(what: "\(location): table at byte \(position) is not 4-byte aligned")
        }
        let table = try view.table(at: position, what: location)
        guard table.vtable % 2 == 0 else {
            throw ModelError.misaligned(what: "\(location): vtable at byte \(table.vtable) is not 2-byte aligned")
        }
        // Through a pointer: copying each `FieldSchema` out of the array was a fifth of the
        // verifier's time.
        try schema.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                path.append(.field(fields[index].name))
                try verifyField(fields.baseAddress.unsafelyUnwrapped + index, of: table, depth: depth)
                path.removeLast()
            }
        }
    }

    private mutating func verifyField(_ field: UnsafePointer<FieldSchema>, of table: TableView, depth: Int) throws {
        guard let offset = table.fieldOffset(field.pointee.id, in: view) else {
            if case let .unionValue(typeField, _) = field.pointee.kind, try unionType(typeField, of: table) != 0 {
                throw ModelError.malformed(what: "\(location): union type is set but the value is absent")
            }
            return
        }
        let size = field.pointee.kind.inlineSize
        // offset < 2^16 and size <= 8.
        guard offset >= 4, offset &+ size <= table.inlineSize else {
            throw ModelError.malformed(
                what: "\(location): field at offset \(offset) (\(size) bytes) lies outside the table's \(table.inlineSize) inline bytes")
        }
        // table.position <= 2^31 and offset < 2^16.
        let position = table.position &+ offset
        guard position % size == 0 else {
            throw ModelError.misaligned(what: "\(location): \(size)-byte field at byte \(position) is not aligned")
        }

        switch field.pointee.kind {
        case .scalar:
            return
        case let .enumeration(name, valid):
            // The field lies inside the table's inline bytes, checked above to be in the buffer.
            let value = view.load(Int8.self, at: position) ?? 0
            guard valid.contains(value) else {
                throw ModelError.invalidEnum(what: "\(location) (\(name))", value: Int64(value))
            }
        case .string:
            let target = try offsetTarget(at: position)
            let text = try view.vector(at: target, elementSize: 1, what: location)
            // text.start + text.count <= view.count <= 2^31.
            guard view.load(UInt8.self, at: text.start &+ text.count) == 0 else {
                throw ModelError.malformed(what: "\(location): string at byte \(target) is not zero-terminated")
            }
            try chargeDecoded(text.count)
        case let .scalarVector(elementSize, decoded):
            let target = try offsetTarget(at: position)
            let vector = try view.vector(at: target, elementSize: elementSize, what: location)
            if decoded {
                try checkLength(vector.count)
                try chargeDecoded(vector.count)
            }
        case let .table(schema):
            try verifyTable(at: try offsetTarget(at: position), schema, depth: depth + 1)
        case let .tableVector(schema):
            let vector = try view.vector(at: try offsetTarget(at: position), elementSize: 4, what: location)
            try checkLength(vector.count)
            for index in 0..<vector.count {
                path.append(.index(index))
                try verifyTable(at: try offsetTarget(at: vector.elementPosition(index)), schema, depth: depth + 1)
                path.removeLast()
            }
        case let .unionValue(typeField, members):
            let type = try unionType(typeField, of: table)
            guard type != 0 else {
                throw ModelError.malformed(what: "\(location): union value is present but its type is NONE")
            }
            guard type <= members.knownTypeCount else {
                throw ModelError.invalidEnum(what: "\(location) (union type)", value: Int64(type))
            }
            try verifyTable(at: try offsetTarget(at: position), members[type], depth: depth + 1)
        }
    }

    /// The union type code stored in field `typeField`, 0 (NONE) when absent.
    private func unionType(_ typeField: Int, of table: TableView) throws -> UInt8 {
        guard let offset = table.fieldOffset(typeField, in: view) else { return 0 }
        // offset < 2^16, so offset + 1 cannot overflow; table.position <= 2^31.
        guard offset >= 4, offset &+ 1 <= table.inlineSize, let type = view.load(UInt8.self, at: table.position &+ offset) else {
            throw ModelError.malformed(what: "\(location): union type field lies outside its table")
        }
        return type
    }

    /// Follows the `uoffset` at `position`, requiring a non-zero offset to a 4-byte aligned
    /// position inside the buffer.
    private func offsetTarget(at position: Int) throws -> Int {
        guard let target = view.followOffset(at: position) else {
            throw ModelError.outOfBounds(what: "\(location): offset at byte \(position) is past the end")
        }
        guard target != position else {
            throw ModelError.malformed(what: "\(location): offset at byte \(position) is zero")
        }
        guard view.contains(target, length: 4) else {
            throw ModelError.outOfBounds(
                what: "\(location): offset at byte \(position) points to byte \(target), past the end (\(view.count) bytes)")
        }
        guard target % 4 == 0 else {
            throw ModelError.misaligned(what: "\(location): offset at byte \(position) points to byte \(target), not 4-byte aligned")
        }
        return target
    }

    private func checkLength(_ count: Int) throws {
        guard count <= limits.maxVectorLength else {
            throw ModelError.limitExceeded(what: "\(location): vector of \(count) elements, more than \(limits.maxVectorLength)")
        }
    }

    private mutating func chargeDecoded(_ count: Int) throws {
        // Both terms are non-negative; decodedElements <= maxDecodedElements and count < 2^32.
        let total = decodedElements + count
        guard total <= limits.maxDecodedElements else {
            throw ModelError.limitExceeded(
                what: "\(location): more than \(limits.maxDecodedElements) decoded vector elements and string bytes in total")
        }
        decodedElements = total
    }
}
