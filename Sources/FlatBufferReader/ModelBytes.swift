#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The immutable bytes of one model file, owned either as a read-only memory map of the
/// file or as a Swift byte array, or borrowed from memory that another owner keeps valid
/// (`init(borrowing:)`). Weights are read in place through `withUnsafeBytes`; nothing here
/// copies them.
///
/// Thread safety: the bytes never change after `init`, so concurrent reads are safe.
/// A mapped file must not be truncated by another process while it is mapped (the
/// kernel would deliver `SIGBUS` on access), the usual contract of `mmap`.
public final class ModelBytes: @unchecked Sendable {
    /// The largest model accepted, in bytes (2 GiB). Every offset inside a model then fits
    /// in 31 bits, which the reader's overflow reasoning relies on.
    public static let maximumSize = 1 << 31

    private enum Storage {
        case mapped(UnsafeRawPointer)
        case owned([UInt8])
        case borrowed(UnsafeRawBufferPointer)
    }

    private let storage: Storage

    /// Number of bytes.
    public let count: Int

    /// The file the bytes were mapped from, or nil for bytes in memory.
    public let path: String?

    /// Maps `path` read-only. Throws `ModelError` naming the path when the file cannot be
    /// opened, is not a regular file, is empty, is larger than `maximumSize`, or cannot be mapped.
    public init(contentsOfFile path: String) throws {
        let descriptor = Self.openReadOnly(path)
        guard descriptor >= 0 else { throw ModelError.cannotOpen(path: path, errno: errno) }
        defer { _ = close(descriptor) }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw ModelError.cannotStat(path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw ModelError.notARegularFile(path: path) }
        let size = Int(info.st_size)
        guard size > 0 else { throw ModelError.emptyFile(path: path) }
        guard size <= Self.maximumSize else {
            throw ModelError.tooLarge(path: path, size: size, limit: Self.maximumSize)
        }

        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE | Self.populateFlag, descriptor, 0),
              address != UnsafeMutableRawPointer(bitPattern: -1)
        else { throw ModelError.cannotMap(path: path, errno: errno) }

        storage = .mapped(UnsafeRawPointer(address))
        count = size
        self.path = path
    }

    /// `mmap`'s flag that maps all of a model file's pages at once, in one system call,
    /// rather than one fault at a time as they are first read (Linux's `MAP_POPULATE`;
    /// elsewhere none): loading a model for inference reads every byte of it, verifying
    /// the tables and packing the weights. Also used for the `.task` bundles that hold
    /// models.
    package static var populateFlag: Int32 {
        #if os(Linux)
        return MAP_POPULATE
        #else
        return 0
        #endif
    }

    /// Takes ownership of `bytes` without copying them. Size limits are checked when a
    /// model is loaded from these bytes.
    public init(bytes: [UInt8]) {
        storage = .owned(bytes)
        count = bytes.count
        path = nil
    }

    /// Reads `bytes` in place, without copying or owning them: for a loader that lets go of
    /// every object made from these bytes before it returns, such as one reading a model out
    /// of a `.task` bundle that is mapped into memory.
    ///
    /// - Precondition: the caller keeps `bytes` valid and unchanged for as long as this
    ///   object, and anything holding it, lives.
    package init(borrowing bytes: UnsafeRawBufferPointer) {
        storage = .borrowed(bytes)
        count = bytes.count
        path = nil
    }

    deinit {
        if case let .mapped(address) = storage {
            _ = munmap(UnsafeMutableRawPointer(mutating: address), count)
        }
    }

    /// Calls `body` with all the bytes. The pointer is valid only inside `body`.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case let .mapped(address):
            return try body(UnsafeRawBufferPointer(start: address, count: count))
        case let .owned(array):
            return try array.withUnsafeBytes(body)
        case let .borrowed(bytes):
            return try body(bytes)
        }
    }

    private static func openReadOnly(_ path: String) -> Int32 {
        while true {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 || errno != EINTR { return descriptor }
        }
    }
}
