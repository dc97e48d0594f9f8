#if canImport(Glibc)
import Glibc
#endif

/// Bytes that end where an inaccessible page begins, so that a read one byte past their end
/// faults even in code built without the address sanitizer (libyuv is the system's library).
final class GuardedBytes {
    private let region: UnsafeMutableRawPointer
    private let regionSize: Int
    let buffer: UnsafeRawBufferPointer

    init(_ bytes: [UInt8]) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let dataPages = (bytes.count + page - 1) / page
        regionSize = (dataPages + 1) * page
        guard let mapped = mmap(nil, regionSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapped != MAP_FAILED else {
            fatalError("GuardedBytes: mmap of \(regionSize) bytes failed")
        }
        region = mapped
        guard mprotect(region + dataPages * page, page, PROT_NONE) == 0 else {
            fatalError("GuardedBytes: mprotect failed")
        }
        let start = region + dataPages * page - bytes.count
        if !bytes.isEmpty {
            bytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        }
        buffer = UnsafeRawBufferPointer(start: start, count: bytes.count)
    }

    deinit { munmap(region, regionSize) }
}
