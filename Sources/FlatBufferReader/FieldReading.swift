// Typed field accessors used by the decoder. They run after the verifier, so their failure
// paths are unreachable for a verified buffer; they still check every read and throw rather
// than trap, so decoding never depends on the verifier being right.

extension FlatBufferView {
    /// The scalar field `id` of `table`, or `defaultValue` when absent.
    func scalar<T: FixedWidthInteger>(_ table: TableView, _ id: Int, default defaultValue: T, _ what: @autoclosure () -> String) throws -> T {
        guard let position = table.fieldPosition(id, in: self) else { return defaultValue }
        guard let value = load(T.self, at: position) else { throw unreadable(what()) }
        return value
    }

    /// The bool field `id` of `table` (any non-zero byte is true), or `defaultValue` when absent.
    func bool(_ table: TableView, _ id: Int, default defaultValue: Bool, _ what: @autoclosure () -> String) throws -> Bool {
        try scalar(table, id, default: defaultValue ? 1 : 0 as UInt8, what()) != 0
    }

    /// The position an offset field `id` of `table` points to, or nil when absent.
    func target(_ table: TableView, _ id: Int, _ what: @autoclosure () -> String) throws -> Int? {
        guard let position = table.fieldPosition(id, in: self) else { return nil }
        guard let target = followOffset(at: position) else { throw unreadable(what()) }
        return target
    }

    /// The sub-table in field `id` of `table`, or nil when absent.
    func table(_ table: TableView, _ id: Int, _ what: @autoclosure () -> String) throws -> TableView? {
        guard let position = try target(table, id, what()) else { return nil }
        return try self.table(at: position, what: what())
    }

    /// The tables of the table-vector field `id`, empty when absent.
    func tables(_ table: TableView, _ id: Int, _ what: @autoclosure () -> String) throws -> [TableView] {
        guard let position = try target(table, id, what()) else { return [] }
        let vector = try vector(at: position, elementSize: 4, what: what())
        return try (0..<vector.count).map { index in
            guard let child = followOffset(at: vector.elementPosition(index)) else { throw unreadable(what()) }
            return try self.table(at: child, what: what())
        }
    }

    /// The vector field `id` of `table` with elements of `elementSize` bytes, or nil when absent.
    func vector(_ table: TableView, _ id: Int, elementSize: Int, _ what: @autoclosure () -> String) throws -> VectorView? {
        guard let position = try target(table, id, what()) else { return nil }
        return try vector(at: position, elementSize: elementSize, what: what())
    }

    /// The `[int]` field `id` of `table`, or nil when absent.
    func int32s(_ table: TableView, _ id: Int, _ what: @autoclosure () -> String) throws -> [Int32]? {
        guard let vector = try vector(table, id, elementSize: 4, what()) else { return nil }
        guard let values = elements(of: vector, as: Int32.self) else { throw unreadable(what()) }
        return values
    }

    /// The string field `id` of `table`, or nil when absent.
    func string(_ table: TableView, _ id: Int, _ what: @autoclosure () -> String) throws -> String? {
        guard let position = try target(table, id, what()) else { return nil }
        return try string(at: position, what: what())
    }

    private func unreadable(_ what: String) -> ModelError {
        .outOfBounds(what: "\(what) cannot be read")
    }
}
