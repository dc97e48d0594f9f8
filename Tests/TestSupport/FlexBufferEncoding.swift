/// Encodes small FlexBuffer maps, for operators' `custom_options` in tests: every slot 4 bytes
/// wide (ints as int32, floats as float32, vectors of int32), keys sorted, the root a 4-byte
/// offset. Plain and unoptimised; the real models' options (other widths) are tested as bytes.
public enum FlexBufferEncoding {
    /// One map value.
    public enum Value: Sendable {
        case int(Int32)
        case float(Float)
        case ints([Int32])
        case string(String)
    }

    /// The FlexBuffer of the map `entries`.
    public static func map(_ entries: [String: Value]) -> [UInt8] {
        var bytes: [UInt8] = []
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func align4() { while bytes.count % 4 != 0 { bytes.append(0) } }

        let sorted = entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        let keyPositions = sorted.map { key, _ -> Int in
            let at = bytes.count
            bytes.append(contentsOf: Array(key.utf8) + [0])
            return at
        }
        // Values stored out of line: vectors and strings, each after its 4-byte size.
        var targets: [Int?] = []
        for (_, value) in sorted {
            switch value {
            case .ints(let values):
                align4()
                append32(UInt32(values.count))
                targets.append(bytes.count)
                for v in values { append32(UInt32(bitPattern: v)) }
            case .string(let text):
                align4()
                append32(UInt32(text.utf8.count))
                targets.append(bytes.count)
                bytes.append(contentsOf: Array(text.utf8) + [0])
            case .int, .float:
                targets.append(nil)
            }
        }
        align4()
        append32(UInt32(sorted.count))
        let keysVector = bytes.count
        for position in keyPositions { append32(UInt32(bytes.count - position)) }
        // The map: keys offset, keys width, size, then the values and their packed types.
        append32(UInt32(bytes.count - keysVector))
        append32(4)
        append32(UInt32(sorted.count))
        let values = bytes.count
        var types: [UInt8] = []
        for ((_, value), target) in zip(sorted, targets) {
            switch value {
            case .int(let v):
                append32(UInt32(bitPattern: v))
                types.append(1 << 2 | 2)
            case .float(let v):
                append32(v.bitPattern)
                types.append(3 << 2 | 2)
            case .ints:
                append32(UInt32(bytes.count - target!))
                types.append(11 << 2 | 2)
            case .string:
                append32(UInt32(bytes.count - target!))
                types.append(5 << 2 | 2)
            }
        }
        bytes.append(contentsOf: types)
        align4()
        append32(UInt32(bytes.count - values))
        bytes.append(9 << 2 | 2)
        bytes.append(4)
        return bytes
    }
}
