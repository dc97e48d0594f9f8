import SystemInterface

/// Why a `.tflite` file could not be opened, verified or accepted.
///
/// Every case says *what* is wrong and *where*: file errors name the path,
/// structural errors name the flatbuffer path (e.g. `Model.subgraphs[0].tensors[12].shape`),
/// semantic errors name the subgraph, operator and tensor involved.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: File access

    /// `open(2)` failed.
    case cannotOpen(path: String, errno: Int32)
    /// `fstat(2)` failed.
    case cannotStat(path: String, errno: Int32)
    /// `mmap(2)` failed.
    case cannotMap(path: String, errno: Int32)
    /// The path names a directory, device or other non-regular file.
    case notARegularFile(path: String)
    /// The file has zero bytes.
    case emptyFile(path: String)
    /// The file or byte array is larger than the limit (bytes).
    case tooLarge(path: String?, size: Int, limit: Int)

    // MARK: Flatbuffer structure

    /// Fewer bytes than the smallest possible model (root offset + file identifier).
    case truncated(size: Int, minimum: Int)
    /// Bytes 4..<8 are not the TFLite file identifier `TFL3`.
    case badIdentifier(found: [UInt8])
    /// An offset or length points outside the buffer; `what` says which one.
    case outOfBounds(what: String)
    /// An offset is not aligned as the flatbuffer format requires.
    case misaligned(what: String)
    /// A structural rule of the flatbuffer format is broken (vtable size, union type/value, string terminator).
    case malformed(what: String)
    /// A verifier limit (depth, table count, decoded elements, file size) was exceeded.
    case limitExceeded(what: String)
    /// An enum field holds a value outside the schema's range.
    case invalidEnum(what: String, value: Int64)
    /// The model's schema `version` is not the supported one (3).
    case unsupportedVersion(found: UInt32, supported: UInt32)

    // MARK: Semantics

    /// The model has no subgraph.
    case noSubgraphs
    /// An index (tensor, buffer, operator code) is outside its table: `what` refers to
    /// `noun` number `index`, but `container` has only `count` of them.
    case invalidIndex(what: String, noun: String, index: Int, count: Int, container: String)
    /// A shape or shape signature is invalid (negative dimension, element count too large, rank mismatch).
    case invalidShape(what: String)
    /// A buffer's byte range or size does not fit the file or the tensor that uses it.
    case invalidBuffer(what: String)
    /// A tensor's sparsity description is inconsistent.
    case invalidSparsity(what: String)
    /// The dataflow graph is invalid (tensor written twice, read before produced, cycle...).
    case graph(what: String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, code):
            return "cannot open '\(path)': \(systemErrorText(code)) (errno \(code))"
        case let .cannotStat(path, code):
            return "cannot stat '\(path)': \(systemErrorText(code)) (errno \(code))"
        case let .cannotMap(path, code):
            return "cannot mmap '\(path)': \(systemErrorText(code)) (errno \(code))"
        case let .notARegularFile(path):
            return "'\(path)' is not a regular file"
        case let .emptyFile(path):
            return "'\(path)' is empty"
        case let .tooLarge(path, size, limit):
            let subject = path.map { "'\($0)'" } ?? "the model"
            return "\(subject) is \(size) bytes, more than the limit of \(limit) bytes"
        case let .truncated(size, minimum):
            return "model is truncated: \(size) bytes, at least \(minimum) needed"
        case let .badIdentifier(found):
            let text = found.map { (32...126).contains($0) ? String(UnicodeScalar($0)) : "\\x\(String($0, radix: 16))" }
                .joined()
            return "file identifier at bytes 4..<8 is '\(text)', expected 'TFL3' (not a TFLite model)"
        case let .outOfBounds(what):
            return "out of bounds: \(what)"
        case let .misaligned(what):
            return "misaligned: \(what)"
        case let .malformed(what):
            return "malformed flatbuffer: \(what)"
        case let .limitExceeded(what):
            return "limit exceeded: \(what)"
        case let .invalidEnum(what, value):
            return "invalid enum value \(value) for \(what)"
        case let .unsupportedVersion(found, supported):
            return "model schema version is \(found), only version \(supported) is supported"
        case .noSubgraphs:
            return "model has no subgraph"
        case let .invalidIndex(what, noun, index, count, container):
            return "\(what) refers to \(noun) \(index) but \(container) has \(count) \(noun)s"
        case let .invalidShape(what):
            return "invalid shape: \(what)"
        case let .invalidBuffer(what):
            return "invalid buffer: \(what)"
        case let .invalidSparsity(what):
            return "invalid sparsity: \(what)"
        case let .graph(what):
            return "invalid graph: \(what)"
        }
    }
}
