#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file mapped read-only into memory (`mmap` with `PROT_READ`, `MAP_PRIVATE`), unmapped
/// when the object goes. An empty file is not mapped: its `bytes` are empty, with no address.
///
/// The pages are not read in by the mapping: they fault in as they are first read (Tensor's
/// `mapInPages` maps them all in at once).
///
/// Thread safety: `Sendable`; the bytes never change after `init`, so concurrent reads are safe.
/// The file must not be truncated by another process while it is mapped (reading past its new
/// end would raise `SIGBUS`), the usual contract of `mmap`.
package final class ReadOnlyFileMapping: @unchecked Sendable {
    /// Why a file could not be mapped.
    package enum Failure: Error, Equatable, Sendable {
        /// `open(2)` failed with this `errno` value.
        case cannotOpen(errno: Int32)
        /// `fstat(2)` failed with this `errno` value.
        case cannotStat(errno: Int32)
        /// The path names a directory, device or other non-regular file.
        case notARegularFile
        /// The file has `size` bytes, more than the caller's limit.
        case tooLarge(size: Int)
        /// `mmap(2)` failed with this `errno` value.
        case cannotMap(errno: Int32)
    }

    /// The file's bytes; empty (with a nil base address) for an empty file.
    package let bytes: UnsafeRawBufferPointer

    /// The file's status as `fstat` gave it on the open descriptor (device, inode, size, times).
    package let status: stat

    /// Opens the regular file at `path` (retrying on `EINTR`; the descriptor is closed before
    /// `init` returns) and maps it read-only.
    /// - Parameter maximumSize: the largest size accepted, in bytes; a larger file is refused
    ///   before it is mapped.
    /// - Throws: ``Failure``, in the order the checks run: open, stat, regular file, size, map.
    package init(path: String, maximumSize: Int) throws(Failure) {
        let descriptor: Int32
        do {
            descriptor = try SystemCalls.openForReading(path)
        } catch {
            throw .cannotOpen(errno: error.code)
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .cannotStat(errno: errno) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile }
        let size = Int(status.st_size)
        guard size <= maximumSize else { throw .tooLarge(size: size) }
        self.status = status
        guard size > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED
        else { throw .cannotMap(errno: errno) }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
    }

    /// The file's size in bytes.
    package var count: Int { bytes.count }

    deinit {
        if let address = bytes.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: address), bytes.count)
        }
    }
}
