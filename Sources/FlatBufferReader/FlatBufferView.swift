// Bounds-checked, little-endian reading of flatbuffer tables, vectors and strings.
//
// Every read returns nil or throws when an offset or length points outside the bytes; nothing
// here traps on bad input. Overflow reasoning: a buffer holds at most `ModelBytes.maximumSize`
// (2^31) bytes, so every position inside it is in 0...2^31, and every value read from it is at
// most 32 bits wide (< 2^32). `Int` is 64 bits wide (checked below), so a sum of a position and
// a 32-bit value, or of a few such terms, stays far below `Int.max` (2^63 - 1). Each wrapping
// operator below names the bound it relies on.

#if _pointerBitWidth(_32)
#error("FlatBufferReader's overflow reasoning requires a 64-bit Int")
#endif

/// A read-only view of one flatbuffer's bytes with bounds-checked accessors.
struct FlatBufferView {
    let bytes: UnsafeRawBufferPointer

    /// Number of bytes, at most `ModelBytes.maximumSize`.
    var count: Int { bytes.count }

    /// Wraps `bytes`, refusing buffers larger than `ModelBytes.maximumSize`.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count <= ModelBytes.maximumSize else {
            throw ModelError.tooLarge(path: nil, size: bytes.count, limit: ModelBytes.maximumSize)
        }
        self.bytes = bytes
    }

    /// True when `length` bytes starting at `position` lie inside the buffer.
    func contains(_ position: Int, length: Int) -> Bool {
        guard position >= 0, length >= 0, position <= count else { return false }
        // count - position: both in 0...2^31 and position <= count, so the result is in 0...2^31.
        return length <= count &- position
    }

    /// The little-endian integer of type `T` at `position`, or nil if it does not fit.
    func load<T: FixedWidthInteger>(_: T.Type, at position: Int) -> T? {
        guard contains(position, length: MemoryLayout<T>.size) else { return nil }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: T.self))
    }

    /// The position a `uoffset` stored at `position` points to (`position + value`), or nil
    /// if the offset itself cannot be read. The target is not checked here.
    func followOffset(at position: Int) -> Int? {
        guard let value = load(UInt32.self, at: position) else { return nil }
        // position <= 2^31 (it was readable) and value < 2^32: the sum is < 2^33.
        return position &+ Int(value)
    }

    /// The table whose `soffset` is at `position`, with its vtable checked to lie inside the
    /// buffer (vtable header readable, vtable size even and >= 4, the table's inline bytes inside
    /// the buffer). Throws `ModelError` naming `what` otherwise.
    func table(at position: Int, what: @autoclosure () -> String) throws -> TableView {
        guard let relative = load(Int32.self, at: position) else {
            throw ModelError.outOfBounds(what: "\(what()): table at byte \(position) is past the end (\(count) bytes)")
        }
        // position in 0...2^31 and relative in -2^31..<2^31: the difference is in -2^31...2^32.
        let vtable = position &- Int(relative)
        guard let vtableSize = load(UInt16.self, at: vtable),
              let inlineSize = load(UInt16.self, at: vtable &+ 2)  // vtable <= 2^32, + 2 cannot overflow.
        else {
            throw ModelError.outOfBounds(
                what: "\(what()): vtable of the table at byte \(position) is at byte \(vtable), outside 0..<\(count)")
        }
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw ModelError.malformed(what: "\(what()): vtable at byte \(vtable) has size \(vtableSize), not an even number >= 4")
        }
        guard contains(vtable, length: Int(vtableSize)) else {
            throw ModelError.outOfBounds(
                what: "\(what()): vtable at byte \(vtable) with \(vtableSize) bytes extends past the end (\(count) bytes)")
        }
        guard inlineSize >= 4 else {
            throw ModelError.malformed(what: "\(what()): table at byte \(position) declares inline size \(inlineSize) < 4")
        }
        guard contains(position, length: Int(inlineSize)) else {
            throw ModelError.outOfBounds(
                what: "\(what()): table at byte \(position) with \(inlineSize) inline bytes extends past the end (\(count) bytes)")
        }
        return TableView(position: position, vtable: vtable, vtableSize: Int(vtableSize), inlineSize: Int(inlineSize))
    }

    /// The vector (or string) whose 32-bit length prefix is at `position`, with its
    /// `length * elementSize` bytes checked to lie inside the buffer.
    func vector(at position: Int, elementSize: Int, what: @autoclosure () -> String) throws -> VectorView {
        guard let length = load(UInt32.self, at: position) else {
            throw ModelError.outOfBounds(what: "\(what()): vector at byte \(position) is past the end (\(count) bytes)")
        }
        precondition((1...16).contains(elementSize), "element size \(elementSize) is not a flatbuffer scalar size")
        // length < 2^32 and elementSize <= 16: the product is < 2^36.
        let byteCount = Int(length) &* elementSize
        // position <= 2^31 (its length prefix was readable): position + 4 < 2^32.
        let start = position &+ 4
        guard contains(start, length: byteCount) else {
            throw ModelError.outOfBounds(
                what: "\(what()): vector at byte \(position) declares \(length) elements of \(elementSize) bytes, past the end (\(count) bytes)")
        }
        return VectorView(start: start, count: Int(length), elementSize: elementSize)
    }

    /// The UTF-8 string whose length prefix is at `position`; invalid UTF-8 is repaired.
    /// Checks the bytes and the terminating zero lie inside the buffer.
    func string(at position: Int, what: @autoclosure () -> String) throws -> String {
        let view = try vector(at: position, elementSize: 1, what: what())
        // view.start + view.count <= count <= 2^31 (checked by `vector`).
        let terminator = view.start &+ view.count
        guard load(UInt8.self, at: terminator) == 0 else {
            throw ModelError.malformed(what: "\(what()): string at byte \(position) is not zero-terminated")
        }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[view.start..<terminator])
        return String(decoding: slice, as: UTF8.self)
    }

    /// Reads `vector`'s elements as little-endian `T`; nil when the element size differs from
    /// `T`'s or the vector does not fit.
    func elements<T: FixedWidthInteger>(of vector: VectorView, as _: T.Type) -> [T]? {
        guard vector.elementSize == MemoryLayout<T>.size,
              contains(vector.start, length: vector.byteCount) else { return nil }
        // Written in place, not appended: the loop has no capacity check and vectorises.
        // An empty buffer holds only an empty vector (`contains` above).
        guard let base = bytes.baseAddress else { return [] }
        let first = base + vector.start
        return [T](unsafeUninitializedCapacity: vector.count) { result, initialized in
            for i in 0..<vector.count {
                // i·size < vector.byteCount, inside the buffer (checked above).
                let value = first.loadUnaligned(fromByteOffset: i &* MemoryLayout<T>.size, as: T.self)
                (result.baseAddress! + i).initialize(to: T(littleEndian: value))
            }
            initialized = vector.count
        }
    }
}

/// A flatbuffer table: the position of its `soffset` and its vtable, checked to lie inside
/// the buffer by `FlatBufferView.table(at:what:)`.
struct TableView {
    /// Position of the table (its `soffset` field); fields are relative to it.
    let position: Int
    /// Position of the vtable.
    let vtable: Int
    /// Size of the vtable in bytes (4-byte header + 2 bytes per field entry).
    let vtableSize: Int
    /// Size of the table's inline data in bytes, including the 4-byte `soffset`.
    let inlineSize: Int

    /// The offset of field `id` from the table start as the vtable records it, or nil when
    /// the field is absent (beyond the vtable or recorded as 0).
    func fieldOffset(_ id: Int, in view: FlatBufferView) -> Int? {
        precondition(id >= 0 && id < 0x7FFC, "field id \(id) out of the flatbuffer range")
        // id < 2^15: 4 + 2 * id < 2^16.
        let entry = 4 &+ 2 &* id
        // entry + 2 < 2^16 + 2.
        guard entry &+ 2 <= vtableSize,
              let offset = view.load(UInt16.self, at: vtable &+ entry),  // vtable <= 2^32, entry < 2^16.
              offset != 0
        else { return nil }
        return Int(offset)
    }

    /// The absolute position of field `id`, or nil when absent.
    func fieldPosition(_ id: Int, in view: FlatBufferView) -> Int? {
        // position <= 2^31 and the offset < 2^16.
        fieldOffset(id, in: view).map { position &+ $0 }
    }
}

/// A flatbuffer vector: where its elements start, how many there are and their size.
struct VectorView {
    /// Position of the first element (just after the 32-bit length).
    let start: Int
    /// Number of elements.
    let count: Int
    /// Size of one element in bytes (4 for offsets to tables or strings).
    let elementSize: Int

    /// Total size of the elements in bytes; the vector was checked to lie inside the buffer,
    /// so this is at most 2^31.
    var byteCount: Int {
        // count < 2^32 and elementSize <= 16 (checked at construction): product < 2^36.
        count &* elementSize
    }

    /// Position of element `index` (0..<count).
    func elementPosition(_ index: Int) -> Int {
        precondition(index >= 0 && index < count, "vector index \(index) outside 0..<\(count)")
        // index < count and start + count * elementSize <= buffer count <= 2^31.
        return start &+ index &* elementSize
    }
}
