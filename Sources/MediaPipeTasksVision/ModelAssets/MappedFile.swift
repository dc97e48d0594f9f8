#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlatBufferReader
import SystemInterface
import Tensor

/// A regular file mapped read-only into memory (`ReadOnlyFileMapping`), for reading a `.task`
/// bundle in place: its pages are mapped in when the file is (`mapInPages`) and given back when
/// the mapping goes.
///
/// Thread safety: the bytes never change after `init`, so concurrent reads are safe. The file
/// must not be truncated by another process while it is mapped (reading past its new end
/// would raise `SIGBUS`), the usual contract of `mmap`.
final class MappedFile: Sendable {
    private let mapping: ReadOnlyFileMapping
    /// The file's size in bytes.
    var count: Int { mapping.count }
    /// The file as `fstat` saw it when it was opened (`ModelBytes.identity(of:)`).
    let identity: [UInt64]

    /// Maps the regular file at `path` (an empty file is not mapped).
    /// - Throws: `ModelAssetError.unreadableFile` with the system's reason when the file
    ///   cannot be opened, is not a regular file, or cannot be mapped.
    init(path: String) throws(ModelAssetError) {
        do {
            mapping = try ReadOnlyFileMapping(path: path, maximumSize: .max)
        } catch {
            switch error {
            case let .cannotOpen(code), let .cannotStat(code), let .cannotMap(code):
                throw .unreadableFile(path: path, reason: systemErrorText(code))
            case .notARegularFile:
                throw .unreadableFile(path: path, reason: "not a regular file")
            case .tooLarge:
                // No file is larger than `Int.max` bytes.
                throw .unreadableFile(path: path, reason: systemErrorText(EFBIG))
            }
        }
        identity = ModelBytes.identity(of: mapping.status)
        // All pages mapped in at once: loading the landmarker reads every byte of the models
        // in the bundle (their CRC-32 is checked).
        mapInPages(of: mapping.bytes)
    }

    /// Calls `body` with the file's bytes. The pointer is valid only inside `body`.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(mapping.bytes)
    }
}
