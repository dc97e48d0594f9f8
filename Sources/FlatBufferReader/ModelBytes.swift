#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemInterface
import Tensor

/// The immutable bytes of one model file, owned either as a read-only memory map of the
/// file or as a Swift byte array, or borrowed from memory that another owner keeps valid
/// (`init(borrowing:)`). Weights are read in place through `withUnsafeBytes`; nothing here
/// copies them.
///
/// Thread safety: the bytes never change after `init`, so concurrent reads are safe.
/// A mapped file must not be truncated by another process while it is mapped (the
/// kernel would deliver `SIGBUS` on access), the usual contract of `mmap`.
public final class ModelBytes: ImmutableBytes, @unchecked Sendable {
    /// The largest model accepted, in bytes (2 GiB). Every offset inside a model then fits
    /// in 31 bits, which the reader's overflow reasoning relies on.
    public static let maximumSize = 1 << 31

    private enum Storage {
        case mapped(ReadOnlyFileMapping)
        case owned([UInt8])
        case borrowed(UnsafeRawBufferPointer)
    }

    private let storage: Storage

    /// Number of bytes.
    public let count: Int

    /// The file the bytes were mapped from, or nil for bytes in memory.
    public let path: String?

    /// What identifies these bytes' source without reading them, for a cache keyed by model
    /// (`Inference`'s weight cache): a mapped file's device, inode, size, modification and
    /// status-change times, as `fstat` gave them when it was opened (a file rewritten or
    /// replaced since has other ones), plus whatever a borrower adds (`init(borrowing:
    /// sourceIdentity:)`); nil when only the bytes themselves can tell.
    package let sourceIdentity: [UInt64]?

    /// Maps `path` read-only, its pages mapped in at once unless `populatesPages` is
    /// false (then they fault in as they are read, and `populatePages()` can map them
    /// later). Throws `ModelError` naming the path when the file cannot be opened,
    /// is not a regular file, is empty, is larger than `maximumSize`, or cannot be mapped.
    public convenience init(contentsOfFile path: String) throws {
        try self.init(contentsOfFile: path, populatesPages: true)
    }

    /// `init(contentsOfFile:)`, populating the pages or not.
    package init(contentsOfFile path: String, populatesPages: Bool) throws {
        let mapping: ReadOnlyFileMapping
        do {
            mapping = try ReadOnlyFileMapping(path: path, maximumSize: Self.maximumSize)
        } catch {
            switch error {
            case let .cannotOpen(code): throw ModelError.cannotOpen(path: path, errno: code)
            case let .cannotStat(code): throw ModelError.cannotStat(path: path, errno: code)
            case .notARegularFile: throw ModelError.notARegularFile(path: path)
            case let .tooLarge(size): throw ModelError.tooLarge(path: path, size: size, limit: Self.maximumSize)
            case let .cannotMap(code): throw ModelError.cannotMap(path: path, errno: code)
            }
        }
        // An empty file is not mapped; it is no larger than the limit either, so this check
        // coming after the size check changes no error.
        guard mapping.count > 0 else { throw ModelError.emptyFile(path: path) }
        if populatesPages { mapInPages(of: mapping.bytes) }

        storage = .mapped(mapping)
        count = mapping.count
        self.path = path
        sourceIdentity = Self.identity(of: mapping.status)
    }

    /// A file's device, inode, size, modification and status-change times (seconds and
    /// nanoseconds each).
    package static func identity(of info: stat) -> [UInt64] {
        #if os(Linux)
        let (modified, changed) = (info.st_mtim, info.st_ctim)
        #else
        let (modified, changed) = (info.st_mtimespec, info.st_ctimespec)
        #endif
        return [UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size)]
            + [modified, changed].flatMap { [UInt64(bitPattern: Int64($0.tv_sec)), UInt64(bitPattern: Int64($0.tv_nsec))] }
    }

    /// Maps all the pages of these bytes into the process at once (`mapInPages`), for bytes
    /// about to be read in full after a mapping that did not map them (a model file's, or
    /// the mapped `.task` bundle's that borrowed bytes lie in; bytes in memory are resident
    /// already).
    package func populatePages() {
        withUnsafeBytes { mapInPages(of: $0) }
    }

    /// Takes ownership of `bytes` without copying them. Size limits are checked when a
    /// model is loaded from these bytes.
    public init(bytes: [UInt8]) {
        storage = .owned(bytes)
        count = bytes.count
        path = nil
        sourceIdentity = nil
    }

    /// Reads `bytes` in place, without copying or owning them: for a loader that lets go of
    /// every object made from these bytes before it returns, such as one reading a model out
    /// of a `.task` bundle that is mapped into memory.
    ///
    /// - Precondition: the caller keeps `bytes` valid and unchanged for as long as this
    ///   object, and anything holding it, lives.
    /// `sourceIdentity` identifies the bytes as `sourceIdentity` says (for a model read
    /// out of a mapped bundle: the bundle file's identity and the model's place in it), or
    /// nil when only the bytes themselves can.
    package init(borrowing bytes: UnsafeRawBufferPointer, sourceIdentity: [UInt64]? = nil) {
        storage = .borrowed(bytes)
        count = bytes.count
        path = nil
        self.sourceIdentity = sourceIdentity
    }

    /// Calls `body` with all the bytes. The pointer is valid only inside `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case let .mapped(mapping):
            return try body(mapping.bytes)
        case let .owned(array):
            return try array.withUnsafeBytes(body)
        case let .borrowed(bytes):
            return try body(bytes)
        }
    }
}
