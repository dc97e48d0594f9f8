#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemInterface

/// The process's resident set size, from `/proc/self/statm` (Linux).
enum ResidentMemory {
    /// Resident bytes now: the second field of `/proc/self/statm` (pages) times the page size.
    /// Reads into a fixed buffer, so that measuring allocates nothing that could itself show
    /// up as growth.
    static func currentBytes() throws -> Int {
        guard let descriptor = try? SystemCalls.openForReading("/proc/self/statm") else {
            throw CommandFailure("cannot open /proc/self/statm: resident memory is measured on Linux only")
        }
        defer { close(descriptor) }
        var buffer = (0..<128).map { _ in UInt8(0) }
        let count = buffer.withUnsafeMutableBytes { (try? SystemCalls.readSome(descriptor, into: $0)) ?? 0 }
        guard count > 0 else { throw CommandFailure("cannot read /proc/self/statm") }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else {
            throw CommandFailure("unexpected /proc/self/statm: \(String(decoding: buffer[..<count], as: UTF8.self))")
        }
        let (bytes, overflow) = pages.multipliedReportingOverflow(by: sysconf(Int32(_SC_PAGESIZE)))
        guard !overflow else { throw CommandFailure("resident page count \(pages) overflows") }
        return bytes
    }
}
