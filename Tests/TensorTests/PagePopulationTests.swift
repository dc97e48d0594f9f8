#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Tensor
import Testing

/// Populating a buffer's pages leaves what it holds as it was, whatever its
/// size and alignment, and makes a fresh mapping's pages resident.
@Suite struct PagePopulationTests {
    @Test(arguments: [0, 1, 4095, 65_536, 300_001])
    func contentsAreUnchanged(byteCount: Int) {
        // One byte in from an aligned start: the range's ends fall inside pages.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: byteCount + 1, alignment: 4096)
        defer { raw.deallocate() }
        let buffer = UnsafeMutableRawBufferPointer(start: raw + 1, count: byteCount)
        for i in 0..<byteCount { buffer[i] = UInt8(truncatingIfNeeded: i &* 31 &+ 7) }
        populatePages(of: buffer)
        #expect((0..<byteCount).allSatisfy { buffer[$0] == UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    #if os(Linux)
    /// A fresh anonymous mapping has no resident pages until it is written;
    /// populated, all of them (on a kernel with `MADV_POPULATE_WRITE`, 5.14
    /// and later) and still zeros.
    @Test func aFreshMappingBecomesResident() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = 64
        let mapped = try #require(mmap(nil, pages * pageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, pages * pageSize) }
        func residentPages() -> Int {
            var flags = [UInt8](repeating: 0, count: pages)
            _ = mincore(mapped, pages * pageSize, &flags)
            return flags.filter { $0 & 1 != 0 }.count
        }
        #expect(residentPages() == 0)
        populatePages(of: UnsafeMutableRawBufferPointer(start: mapped, count: pages * pageSize))
        var kernel = utsname()
        uname(&kernel)
        let release = withUnsafeBytes(of: &kernel.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let version = release.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) }
        if version.count == 2, (version[0], version[1]) >= (5, 14) {
            #expect(residentPages() == pages, "kernel \(release)")
        }
        #expect(UnsafeRawBufferPointer(start: mapped, count: pages * pageSize).allSatisfy { $0 == 0 })
    }

    /// A file mapped without `MAP_POPULATE` has none of its pages in the process
    /// until they are read; `mapInPages` maps them all in, the bytes unchanged.
    @Test func aFileMappingsPagesAreMappedIn() throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = 40, count = pages * pageSize - 100
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("landmarker-page-population-\(getpid()).bin").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor); unlink(path) }
        let contents = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        try #require(contents.withUnsafeBytes { write(descriptor, $0.baseAddress, count) } == count)
        let mapped = try #require(mmap(nil, count, PROT_READ, MAP_PRIVATE, descriptor, 0))
        try #require(mapped != MAP_FAILED)
        defer { munmap(mapped, count) }
        let bytes = UnsafeRawBufferPointer(start: mapped, count: count)
        #expect(try Self.residentKiB(of: mapped) == 0, "pages mapped before they were read")
        mapInPages(of: bytes)
        #expect(try Self.residentKiB(of: mapped) == pages * pageSize / 1024)
        #expect(bytes.elementsEqual(contents))
    }

    /// The `Rss` of the mapping that starts at `address`, from `/proc/self/smaps`.
    static func residentKiB(of address: UnsafeMutableRawPointer) throws -> Int {
        let start = String(UInt(bitPattern: address), radix: 16)
        let smaps = try #require(fopen("/proc/self/smaps", "r"))
        defer { fclose(smaps) }
        var line = [CChar](repeating: 0, count: 512)
        var inMapping = false
        while fgets(&line, Int32(line.count), smaps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(start + "-") {
                inMapping = true
            } else if inMapping, text.hasPrefix("Rss:") {
                return try #require(Int(text.dropFirst(4).split(separator: " ").first ?? ""))
            }
        }
        Issue.record("no mapping at \(start) in /proc/self/smaps")
        return -1
    }
    #endif
}
