// Bounds-checked reading of a FlexBuffer, the schemaless format of an operator's
// `custom_options` (MediaPipe's custom operators keep their options in one FlexBuffer map).
//
// Every position is checked against the byte count before it is read, every size and offset
// read from the bytes is compared with the byte count before it becomes an `Int`, and every
// failure is a typed `ModelError`: nothing here traps or allocates more than the bytes could
// hold, whatever the bytes. Positions stay in 0...count and sizes at most count, and count is
// at most `ModelBytes.maximumSize` (2^31), so the sums and products below (a position plus a
// size of at most count times a width of at most 8) stay far below `Int.max`.

/// A FlexBuffer's bytes, read only through checked accessors. Only what operator options need
/// is read: the root map, its keys, and numbers and vectors of integers as its values.
///
/// The layout (FlatBuffers' `flexbuffers.h`): the last byte is the root's width in bytes, the
/// one before it the root's packed type (type `<< 2 |` log2 of the width of what it points
/// to), and the root value sits just before them. A map's offset points (backwards) at its
/// values; before them lie its size, the width of its keys vector and the offset of that
/// vector; after them one packed type per value. Scalars are stored inline at their
/// container's width, or behind an offset ("indirect").
public struct FlexBufferView: Sendable {
    /// The FlexBuffer's bytes.
    public let bytes: [UInt8]
    /// Names the bytes in errors, e.g. `operator 195 (TransformTensorBilinear) custom_options`.
    public let location: String

    public init(_ bytes: [UInt8], location: String) {
        self.bytes = bytes
        self.location = location
    }

    /// The root value, which must be a map.
    public func rootMap() throws -> FlexBufferMap {
        let count = bytes.count
        guard count >= 3 else {
            throw ModelError.outOfBounds(what: "\(location): \(count) bytes, a FlexBuffer has at least 3")
        }
        let width = Int(bytes[count - 1])
        guard [1, 2, 4, 8].contains(width) else {
            throw ModelError.malformed(what: "\(location): root width \(width), expected 1, 2, 4 or 8")
        }
        guard count - 2 >= width else {
            throw ModelError.outOfBounds(what: "\(location): the \(width)-byte root does not fit in \(count) bytes")
        }
        let root = reference(at: count - 2 - width, parentWidth: width, packedType: bytes[count - 2])
        guard root.type == .map else {
            throw ModelError.malformed(what: "\(location): the root is \(root.type), expected a map")
        }
        return try map(root)
    }

    // MARK: References

    /// The FlexBuffer value types this reader names (`flexbuffers::Type`).
    enum ValueType: Equatable, CustomStringConvertible {
        case null, int, uint, float, key, string, indirectInt, indirectUInt, indirectFloat, map, vector
        case vectorInt, vectorUInt, vectorFloat, vectorKey, fixedVectorInt(length: Int), bool
        case other(UInt8)

        init(rawValue: UInt8) {
            switch rawValue {
            case 0: self = .null
            case 1: self = .int
            case 2: self = .uint
            case 3: self = .float
            case 4: self = .key
            case 5: self = .string
            case 6: self = .indirectInt
            case 7: self = .indirectUInt
            case 8: self = .indirectFloat
            case 9: self = .map
            case 10: self = .vector
            case 11: self = .vectorInt
            case 12: self = .vectorUInt
            case 13: self = .vectorFloat
            case 14: self = .vectorKey
            case 16: self = .fixedVectorInt(length: 2)
            case 19: self = .fixedVectorInt(length: 3)
            case 22: self = .fixedVectorInt(length: 4)
            case 26: self = .bool
            default: self = .other(rawValue)
            }
        }

        var description: String {
            switch self {
            case .null: return "null"
            case .int: return "an int"
            case .uint: return "a uint"
            case .float: return "a float"
            case .key: return "a key"
            case .string: return "a string"
            case .indirectInt: return "an indirect int"
            case .indirectUInt: return "an indirect uint"
            case .indirectFloat: return "an indirect float"
            case .map: return "a map"
            case .vector: return "an untyped vector"
            case .vectorInt: return "a vector of ints"
            case .vectorUInt: return "a vector of uints"
            case .vectorFloat: return "a vector of floats"
            case .vectorKey: return "a vector of keys"
            case .fixedVectorInt(let length): return "a vector of \(length) ints"
            case .bool: return "a bool"
            case .other(let raw): return "type \(raw)"
            }
        }
    }

    /// A value: where it is stored, the width of the slot holding it (its container's), and
    /// its type with the width of what it points to (for offsets) or holds (indirect scalars).
    struct Reference {
        let position: Int
        let parentWidth: Int
        let byteWidth: Int
        let type: ValueType
    }

    func reference(at position: Int, parentWidth: Int, packedType: UInt8) -> Reference {
        Reference(
            position: position, parentWidth: parentWidth, byteWidth: 1 << Int(packedType & 3),
            type: ValueType(rawValue: packedType >> 2))
    }

    /// The unsigned integer of `width` bytes (1, 2, 4 or 8) at `position`.
    func unsigned(at position: Int, width: Int, _ what: @autoclosure () -> String) throws -> UInt64 {
        guard position >= 0, width <= bytes.count, position <= bytes.count - width else {
            throw ModelError.outOfBounds(
                what: "\(location): \(what()) (\(width) bytes at byte \(position)) lies past the end (\(bytes.count) bytes)")
        }
        var value: UInt64 = 0
        for k in (0..<width).reversed() { value = value << 8 | UInt64(bytes[position + k]) }
        return value
    }

    /// The signed integer of `width` bytes at `position`.
    func signed(at position: Int, width: Int, _ what: @autoclosure () -> String) throws -> Int64 {
        let raw = try unsigned(at: position, width: width, what())
        let unused = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << unused) >> Int64(unused)
    }

    /// An unsigned size or count of `width` bytes at `position`, checked to be at most the
    /// byte count (anything larger could not be stored).
    func size(at position: Int, width: Int, _ what: @autoclosure () -> String) throws -> Int {
        let value = try unsigned(at: position, width: width, what())
        guard value <= UInt64(bytes.count) else {
            throw ModelError.outOfBounds(what: "\(location): \(what()) is \(value), more than the \(bytes.count) bytes hold")
        }
        return Int(value)
    }

    /// The position the offset of `width` bytes at `position` points back to.
    func target(ofOffsetAt position: Int, width: Int, _ what: @autoclosure () -> String) throws -> Int {
        let offset = try size(at: position, width: width, what())
        guard offset <= position else {
            throw ModelError.outOfBounds(
                what: "\(location): \(what()) at byte \(position) points \(offset) bytes back, before the start")
        }
        return position - offset
    }

    /// Checks that `count` elements of `width` bytes, then `trailing` more bytes, fit from `start`.
    func checkFits(_ start: Int, count: Int, width: Int, trailing: Int = 0, _ what: @autoclosure () -> String) throws {
        // start, count and trailing are at most bytes.count <= 2^31 and width <= 8.
        guard start >= 0, start + count * width + trailing <= bytes.count else {
            throw ModelError.outOfBounds(
                what: "\(location): \(what()) (\(count) elements of \(width) bytes at byte \(start)) lies past the end "
                    + "(\(bytes.count) bytes)")
        }
    }

    func map(_ reference: Reference) throws -> FlexBufferMap {
        let width = reference.byteWidth
        let values = try target(ofOffsetAt: reference.position, width: reference.parentWidth, "the map offset")
        guard values >= 3 * width else {
            throw ModelError.outOfBounds(what: "\(location): the map at byte \(values) has no room for its header")
        }
        let count = try size(at: values - width, width: width, "the map size")
        try checkFits(values, count: count, width: width, trailing: count, "the map's values and types")
        let keysWidth = try size(at: values - 2 * width, width: width, "the map's key width")
        guard [1, 2, 4, 8].contains(keysWidth) else {
            throw ModelError.malformed(what: "\(location): the map's keys have width \(keysWidth), expected 1, 2, 4 or 8")
        }
        let keys = try target(ofOffsetAt: values - 3 * width, width: width, "the map's keys offset")
        guard keys >= keysWidth else {
            throw ModelError.outOfBounds(what: "\(location): the keys vector at byte \(keys) has no room for its size")
        }
        let keyCount = try size(at: keys - keysWidth, width: keysWidth, "the keys vector size")
        guard keyCount == count else {
            throw ModelError.malformed(what: "\(location): the map has \(count) values but \(keyCount) keys")
        }
        try checkFits(keys, count: count, width: keysWidth, "the map's keys")
        return FlexBufferMap(view: self, values: values, width: width, keys: keys, keysWidth: keysWidth, count: count)
    }
}

/// A FlexBuffer map (the root of an operator's `custom_options`), its values looked up by key.
///
/// A key that is absent, or whose value is null, reads as nil; callers apply the default the
/// operator's reference implementation gives (FlatBuffers' C++ reader reads a missing key as
/// 0). A value of another type than asked for is a `ModelError` (the C++ reader would convert
/// strings and vectors silently), as is an integer outside the asked type's range.
public struct FlexBufferMap: Sendable {
    let view: FlexBufferView
    let values: Int
    let width: Int
    let keys: Int
    let keysWidth: Int
    /// The number of entries.
    public let count: Int

    /// The keys, in stored order.
    public func keyNames() throws -> [String] {
        try (0..<count).map { String(decoding: try keyBytes($0), as: UTF8.self) }
    }

    /// The 32-bit integer at `key`: an int or uint, inline or indirect.
    public func int32(_ key: String) throws -> Int32? {
        guard let (reference, name) = try value(key) else { return nil }
        let value: Int64
        switch reference.type {
        case .int:
            value = try view.signed(at: reference.position, width: reference.parentWidth, name)
        case .uint:
            value = try unsigned(at: reference.position, width: reference.parentWidth, name)
        case .indirectInt:
            let at = try view.target(ofOffsetAt: reference.position, width: reference.parentWidth, name)
            value = try view.signed(at: at, width: reference.byteWidth, name)
        case .indirectUInt:
            let at = try view.target(ofOffsetAt: reference.position, width: reference.parentWidth, name)
            value = try unsigned(at: at, width: reference.byteWidth, name)
        default:
            throw wrongType(name, reference.type, expected: "an integer")
        }
        guard let result = Int32(exactly: value) else {
            throw ModelError.malformed(what: "\(view.location): \(name) is \(value), outside the 32-bit range")
        }
        return result
    }

    /// The float at `key`: a 32- or 64-bit float (inline or indirect), rounded to `Float`, or an
    /// integer converted as FlatBuffers' C++ reader converts it (to `Double`, then `Float`).
    public func float(_ key: String) throws -> Float? {
        guard let (reference, name) = try value(key) else { return nil }
        switch reference.type {
        case .float:
            return try float(at: reference.position, width: reference.parentWidth, name)
        case .indirectFloat:
            let at = try view.target(ofOffsetAt: reference.position, width: reference.parentWidth, name)
            return try float(at: at, width: reference.byteWidth, name)
        case .int, .uint, .indirectInt, .indirectUInt:
            // Every int32 converts exactly; int32(key) reads these four types.
            guard let integer = try int32(key) else { return nil }
            return Float(Double(integer))
        default:
            throw wrongType(name, reference.type, expected: "a number")
        }
    }

    /// The 32-bit integers at `key`: a typed vector of ints or uints (sized, or of 2, 3 or 4).
    public func int32s(_ key: String) throws -> [Int32]? {
        guard let (reference, name) = try value(key) else { return nil }
        let isSigned: Bool
        var fixedLength: Int?
        switch reference.type {
        case .vectorInt: isSigned = true
        case .vectorUInt: isSigned = false
        case .fixedVectorInt(let length): (isSigned, fixedLength) = (true, length)
        default: throw wrongType(name, reference.type, expected: "a vector of integers")
        }
        let width = reference.byteWidth
        let start = try view.target(ofOffsetAt: reference.position, width: reference.parentWidth, name)
        let count: Int
        if let fixedLength {
            count = fixedLength
        } else {
            guard start >= width else {
                throw ModelError.outOfBounds(what: "\(view.location): \(name) at byte \(start) has no room for its size")
            }
            count = try view.size(at: start - width, width: width, "\(name) size")
        }
        try view.checkFits(start, count: count, width: width, name)
        return try (0..<count).map { index in
            let at = start + index * width
            let value = isSigned
                ? try view.signed(at: at, width: width, name) : try unsigned(at: at, width: width, name)
            guard let element = Int32(exactly: value) else {
                throw ModelError.malformed(
                    what: "\(view.location): \(name)[\(index)] is \(value), outside the 32-bit range")
            }
            return element
        }
    }

    // MARK: Lookup

    /// The bytes of key `index` (without its terminating zero).
    private func keyBytes(_ index: Int) throws -> ArraySlice<UInt8> {
        let start = try view.target(ofOffsetAt: keys + index * keysWidth, width: keysWidth, "key \(index)")
        guard let end = view.bytes[start...].firstIndex(of: 0) else {
            throw ModelError.malformed(what: "\(view.location): key \(index) at byte \(start) has no terminating zero")
        }
        return view.bytes[start..<end]
    }

    /// The value of the first entry whose key is `key`, and its name for errors; nil when
    /// absent or null.
    private func value(_ key: String) throws -> (FlexBufferView.Reference, String)? {
        let wanted = Array(key.utf8)
        for index in 0..<count where try keyBytes(index).elementsEqual(wanted) {
            let reference = view.reference(
                at: values + index * width, parentWidth: width, packedType: view.bytes[values + count * width + index])
            return reference.type == .null ? nil : (reference, "'\(key)'")
        }
        return nil
    }

    private func unsigned(at position: Int, width: Int, _ name: String) throws -> Int64 {
        let raw = try view.unsigned(at: position, width: width, name)
        guard let value = Int64(exactly: raw) else {
            throw ModelError.malformed(what: "\(view.location): \(name) is \(raw), outside the 32-bit range")
        }
        return value
    }

    private func float(at position: Int, width: Int, _ name: String) throws -> Float {
        switch width {
        case 4: return Float(bitPattern: UInt32(try view.unsigned(at: position, width: 4, name)))
        case 8: return Float(Double(bitPattern: try view.unsigned(at: position, width: 8, name)))
        default:
            throw ModelError.malformed(what: "\(view.location): \(name) is a \(width)-byte float, expected 4 or 8 bytes")
        }
    }

    private func wrongType(_ name: String, _ type: FlexBufferView.ValueType, expected: String) -> ModelError {
        .malformed(what: "\(view.location): \(name) is \(type), expected \(expected)")
    }
}
