#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Makes the whole pages inside `buffer` resident and writable at once, in
/// one system call, before a loop writes all of it: about half the cost of
/// taking a page fault on each 4 KiB as the loop first touches it, for the
/// large arrays a model load fills (the sparse kernels' weight lists).
/// Contents are unchanged. A hint only: it does nothing for buffers under
/// `AlignedBuffer.mappingThreshold` (heap memory, mostly resident already),
/// off Linux, or on a kernel older than 5.14 (no `MADV_POPULATE_WRITE`).
public func populatePages(of buffer: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
    guard buffer.count >= AlignedBuffer.mappingThreshold, let pages = wholePages(in: buffer) else { return }
    _ = madvise(pages.first, pages.byteCount, populateWrite)
    #endif
}

/// Maps every page of `bytes`, part of a read-only mapping of a file, into
/// the process before it is read, by reading one byte of each page: the
/// kernel maps the neighbours of a page it faults in from the page cache
/// with it (fault-around), which took about 0.3 ms for a 7 to 9 MB file
/// where `MAP_POPULATE` and `MADV_POPULATE_READ`, which walk page by page,
/// took 0.5 ms (a Zen 3, Linux 6.18). Contents are unchanged.
public func mapInPages(of bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    let pageSize = systemPageSize
    guard pageSize > 0 else { return }
    var sum: UInt8 = 0
    var offset = 0
    while offset < bytes.count {
        sum &+= base.load(fromByteOffset: offset, as: UInt8.self)
        offset += pageSize
    }
    sum &+= base.load(fromByteOffset: bytes.count - 1, as: UInt8.self)
    mappedPagesChecksum.store(sum, ordering: .relaxed)
}

/// The system's page size in bytes, asked once.
private let systemPageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

/// The sum of the bytes the last `mapInPages` read: a public global, which another module
/// may read, so that the optimiser keeps the reads that make it. (Stored to a private
/// global, or passed to an empty function, the sum and the reads were dropped.)
public let mappedPagesChecksum = Atomic<UInt8>(0)

/// Takes the whole pages inside `buffer` out of the process's resident
/// memory (`MADV_DONTNEED`), for memory that nothing will read again but
/// that stays mapped (a region of a mapped file whose other regions are still
/// used): a page of a private file mapping reads as the file's bytes again if
/// it is touched later, a page of anonymous memory as zeros. Nothing off Linux.
public func releasePages(of buffer: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
    guard let pages = wholePages(in: buffer) else { return }
    _ = madvise(pages.first, pages.byteCount, MADV_DONTNEED)
    #endif
}

#if os(Linux)
/// Linux's `MADV_POPULATE_WRITE` (since 5.14), which older C headers lack.
private let populateWrite: Int32 = 23

/// The pages wholly inside `buffer`, the page-aligned range `madvise` takes; nil when there
/// are none.
private func wholePages(in buffer: UnsafeMutableRawBufferPointer) -> (first: UnsafeMutableRawPointer, byteCount: Int)? {
    guard let base = buffer.baseAddress else { return nil }
    let pageSize = systemPageSize
    guard pageSize > 0 else { return nil }
    let start = (Int(bitPattern: base) + pageSize - 1) / pageSize * pageSize
    let end = (Int(bitPattern: base) + buffer.count) / pageSize * pageSize
    guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return nil }
    return (first, end - start)
}
#endif
