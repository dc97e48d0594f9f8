/// A minimal flatbuffer builder for tests. It writes back to front, as the format expects:
/// children are created first and referenced by `Offset`, their distance from the end of the
/// finished buffer, so every `uoffset` points forward.
struct FlatBufferBuilder {
    /// An object's distance from the end of the buffer (stable while building).
    struct Offset: Hashable, Sendable {
        let fromEnd: Int
    }

    /// Data occupies `storage[head...]`.
    private var storage: [UInt8]
    private var head: Int
    private var maxAlignment = 4
    private var tableStart = 0
    private var fields: [(id: Int, fromEnd: Int)] = []
    private var inTable = false

    init(capacity: Int = 1024) {
        storage = [UInt8](repeating: 0, count: capacity)
        head = capacity
    }

    /// Bytes written so far.
    var size: Int { storage.count - head }

    // MARK: Raw writing

    private mutating func reserve(_ count: Int) {
        guard head < count else { return }
        let newCapacity = max(storage.count * 2, size + count + 64)
        var grown = [UInt8](repeating: 0, count: newCapacity)
        grown.replaceSubrange((newCapacity - size)..<newCapacity, with: storage[head...])
        head = newCapacity - size
        storage = grown
    }

    private mutating func pad(_ count: Int) {
        reserve(count)
        head -= count
        for index in head..<(head + count) { storage[index] = 0 }
    }

    /// Pads so that, once `additional` more bytes are written, the size is a multiple of `alignment`.
    mutating func align(_ alignment: Int, additional: Int = 0) {
        maxAlignment = max(maxAlignment, alignment)
        pad((alignment - (size + additional) % alignment) % alignment)
    }

    private mutating func push<T: FixedWidthInteger>(_ value: T) {
        let count = MemoryLayout<T>.size
        reserve(count)
        head -= count
        withUnsafeBytes(of: value.littleEndian) { storage.replaceSubrange(head..<(head + count), with: $0) }
    }

    private mutating func pushBytes(_ bytes: [UInt8]) {
        reserve(bytes.count)
        head -= bytes.count
        storage.replaceSubrange(head..<(head + bytes.count), with: bytes)
    }

    /// Writes a `uoffset` to `target` at the current (4-aligned) position.
    private mutating func pushOffset(_ target: Offset) {
        align(4)
        // The offset will sit at fromEnd = size + 4; the target at target.fromEnd.
        push(UInt32(size + 4 - target.fromEnd))
    }

    // MARK: Objects

    mutating func createString(_ text: String) -> Offset {
        let bytes = Array(text.utf8)
        align(4, additional: bytes.count + 1)
        push(UInt8(0))
        pushBytes(bytes)
        push(UInt32(bytes.count))
        return Offset(fromEnd: size)
    }

    /// A vector of scalars; `declaredCount` overrides the stored length (to forge lengths).
    mutating func createVector<T: FixedWidthInteger>(_ values: [T], declaredCount: UInt32? = nil) -> Offset {
        let elementSize = MemoryLayout<T>.size
        align(4, additional: values.count * elementSize)
        align(elementSize, additional: values.count * elementSize)
        for value in values.reversed() { push(value) }
        push(declaredCount ?? UInt32(values.count))
        return Offset(fromEnd: size)
    }

    mutating func createOffsetVector(_ offsets: [Offset]) -> Offset {
        align(4, additional: 4 * offsets.count)
        for offset in offsets.reversed() { pushOffset(offset) }
        push(UInt32(offsets.count))
        return Offset(fromEnd: size)
    }

    // MARK: Tables

    mutating func startTable() {
        precondition(!inTable, "tables cannot nest while being built")
        inTable = true
        fields = []
        tableStart = size
    }

    mutating func add<T: FixedWidthInteger>(_ id: Int, _ value: T) {
        precondition(inTable)
        align(MemoryLayout<T>.size)
        push(value)
        fields.append((id, size))
    }

    mutating func add(_ id: Int, offset target: Offset) {
        precondition(inTable)
        pushOffset(target)
        fields.append((id, size))
    }

    /// Adds a raw `uoffset` value (to forge offsets pointing anywhere).
    mutating func add(_ id: Int, rawOffset value: UInt32) {
        add(id, value)
    }

    /// Finishes the table: writes its `soffset` and a vtable just before it.
    mutating func endTable() -> Offset {
        precondition(inTable)
        align(4)
        push(Int32(0))
        let tableFromEnd = size
        let slotCount = (fields.map(\.id).max() ?? -1) + 1
        var slots = [UInt16](repeating: 0, count: slotCount)
        for field in fields { slots[field.id] = UInt16(tableFromEnd - field.fromEnd) }
        for slot in slots.reversed() { push(slot) }
        push(UInt16(tableFromEnd - tableStart))
        push(UInt16(4 + 2 * slotCount))
        let vtableFromEnd = size
        // soffset = table position - vtable position = vtableFromEnd - tableFromEnd.
        let soffsetIndex = storage.count - tableFromEnd
        withUnsafeBytes(of: Int32(vtableFromEnd - tableFromEnd).littleEndian) {
            storage.replaceSubrange(soffsetIndex..<(soffsetIndex + 4), with: $0)
        }
        inTable = false
        return Offset(fromEnd: tableFromEnd)
    }

    /// Writes the root offset and file identifier and returns the finished bytes.
    mutating func finish(root: Offset, identifier: String) -> [UInt8] {
        let identifierBytes = Array(identifier.utf8)
        precondition(identifierBytes.count == 4)
        align(maxAlignment, additional: 8)
        pushBytes(identifierBytes)
        pushOffset(root)
        return Array(storage[head...])
    }
}

extension FlatBufferBuilder.Offset {
    /// The object's position from the start of a finished buffer of `total` bytes.
    func position(in total: Int) -> Int { total - fromEnd }
}
