#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlatBufferReader
import Tensor

/// A regular file mapped read-only into memory, for reading a `.task` bundle in place: its
/// pages are mapped in when the file is (`mapInPages`) and given back when the mapping goes.
///
/// Thread safety: the bytes never change after `init`, so concurrent reads are safe. The file
/// must not be truncated by another process while it is mapped (reading past its new end
/// would raise `SIGBUS`), the usual contract of `mmap`.
final class MappedFile: @unchecked Sendable {
    /// The start of the mapping; nil for an empty file, which is not mapped.
    private let address: UnsafeRawPointer?
    /// The file's size in bytes.
    let count: Int
    /// The file as `fstat` saw it when it was opened (`ModelBytes.identity(of:)`).
    let identity: [UInt64]

    /// Maps the regular file at `path`.
    /// - Throws: `ModelAssetError.unreadableFile` with the system's reason when the file
    ///   cannot be opened, is not a regular file, or cannot be mapped.
    init(path: String) throws(ModelAssetError) {
        var descriptor: Int32
        repeat {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: Self.systemMessage()) }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unreadableFile(path: path, reason: Self.systemMessage())
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw .unreadableFile(path: path, reason: "not a regular file")
        }
        count = Int(status.st_size)
        identity = ModelBytes.identity(of: status)
        guard count > 0 else {
            address = nil
            return
        }
        // All pages mapped in at once: loading the landmarker reads every byte of the models
        // in the bundle (their CRC-32 is checked).
        guard let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED
        else { throw .unreadableFile(path: path, reason: Self.systemMessage()) }
        address = UnsafeRawPointer(mapped)
        mapInPages(of: UnsafeRawBufferPointer(start: mapped, count: count))
    }

    deinit {
        if let address { munmap(UnsafeMutableRawPointer(mutating: address), count) }
    }

    /// Calls `body` with the file's bytes. The pointer is valid only inside `body`.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: address, count: count))
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
