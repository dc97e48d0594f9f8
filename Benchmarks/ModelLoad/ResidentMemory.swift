#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size as Linux reports it.
enum ResidentMemory {
    /// A `/proc` file could not be read or written, or has an unexpected form
    /// (the memory metrics are Linux only).
    struct Unavailable: Error, CustomStringConvertible {
        let what: String
        var description: String { "cannot measure resident memory: \(what)" }
    }

    /// Resident bytes now (`VmRSS` in `/proc/self/status`).
    static func current() throws -> Int { try statusField("VmRSS") }

    /// The most bytes resident since the last `resetPeak()` (`VmHWM`).
    static func peak() throws -> Int { try statusField("VmHWM") }

    /// Sets the resident high-water mark to the resident size now, by writing
    /// 5 to `/proc/self/clear_refs` (Linux 4.0 and later).
    static func resetPeak() throws {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { throw Unavailable(what: "cannot open /proc/self/clear_refs") }
        defer { close(descriptor) }
        let written = write(descriptor, "5", 1)
        guard written == 1 else { throw Unavailable(what: "cannot write /proc/self/clear_refs") }
    }

    /// Hands the heap's free pages back to the system (glibc's `malloc_trim`),
    /// so that a later allocation shows up as resident growth instead of
    /// reusing them. The Glibc module does not import `<malloc.h>`, so the
    /// function is looked up by name; without it, this does nothing.
    static func releaseFreeHeap() {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        // RTLD_DEFAULT: the symbol as the process resolves it.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        }
        #endif
    }

    /// The value in bytes of a `kB` field of `/proc/self/status`.
    private static func statusField(_ name: String) throws -> Int {
        let descriptor = open("/proc/self/status", O_RDONLY)
        guard descriptor >= 0 else { throw Unavailable(what: "cannot open /proc/self/status") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { throw Unavailable(what: "cannot read /proc/self/status") }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            // "VmRSS:     12345 kB"
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kibibytes = Int(fields[1]) { return kibibytes * 1024 }
        }
        throw Unavailable(what: "no \(name) in /proc/self/status")
    }
}
