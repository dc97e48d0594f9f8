#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
import SystemInterface

/// A fresh temporary folder (`mkdtemp`), removed with what it holds by `cleanup`.
private func temporaryFolder() throws -> (path: String, cleanup: () -> Void) {
    let folder = FileManager.default.temporaryDirectory.path
    var template = Array((folder + "/system-interface-tests-XXXXXX").utf8CString)
    let made: UnsafeMutablePointer<CChar>? = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    let path = String(cString: try #require(made))
    return (path, {
        for name in ["file", "empty", "large"] { unlink(path + "/" + name) }
        rmdir(path)
    })
}

/// Writes `bytes` as the file at `path`.
private func writeFile(_ bytes: [UInt8], at path: String) throws {
    let descriptor = try SystemCalls.createFile(path)
    defer { close(descriptor) }
    try bytes.withUnsafeBytes { try SystemCalls.writeAll($0, to: descriptor) }
}

@Suite("SystemInterface: errno text, EINTR-retrying calls, file mapping, locks")
struct SystemInterfaceTests {
    @Test("errno text is the C library's")
    func errorText() {
        #expect(systemErrorText(ENOENT) == "No such file or directory")
        #expect(SystemError(code: EACCES).text == "Permission denied")
        #expect("\(SystemError(code: ENOENT))" == "No such file or directory")
    }

    @Test("files are written, read back whole and in pieces; a missing one is ENOENT")
    func readsAndWrites() throws {
        let (folder, cleanup) = try temporaryFolder()
        defer { cleanup() }
        let path = folder + "/file"
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try writeFile(bytes, at: path)

        let descriptor = try SystemCalls.openForReading(path)
        defer { close(descriptor) }
        var first = [UInt8](repeating: 0, count: 10)
        let some = try first.withUnsafeMutableBytes { try SystemCalls.readSome(descriptor, into: $0) }
        #expect(some == 10 && first == Array(bytes[..<10]))
        var rest = [UInt8](repeating: 0, count: bytes.count)
        let count = try rest.withUnsafeMutableBytes { try SystemCalls.readFully(descriptor, into: $0) }
        #expect(count == bytes.count - 10)
        #expect(rest[..<count] == bytes[10...])

        #expect(throws: SystemError(code: ENOENT)) { try SystemCalls.openForReading(folder + "/absent") }
        #expect(throws: SystemError(code: EEXIST)) { try SystemCalls.createFile(path, exclusive: true) }
    }

    @Test("a mapped file holds its bytes; empty files are not mapped; limits and kinds are checked")
    func mapsFiles() throws {
        let (folder, cleanup) = try temporaryFolder()
        defer { cleanup() }
        try writeFile([1, 2, 3, 4, 5], at: folder + "/file")
        try writeFile([], at: folder + "/empty")

        let mapping = try ReadOnlyFileMapping(path: folder + "/file", maximumSize: 5)
        #expect(Array(mapping.bytes) == [1, 2, 3, 4, 5])
        #expect(mapping.count == 5 && mapping.status.st_size == 5)
        let empty = try ReadOnlyFileMapping(path: folder + "/empty", maximumSize: 0)
        #expect(empty.count == 0 && empty.bytes.baseAddress == nil)

        #expect(throws: ReadOnlyFileMapping.Failure.tooLarge(size: 5)) {
            try ReadOnlyFileMapping(path: folder + "/file", maximumSize: 4)
        }
        #expect(throws: ReadOnlyFileMapping.Failure.notARegularFile) {
            try ReadOnlyFileMapping(path: folder, maximumSize: .max)
        }
        #expect(throws: ReadOnlyFileMapping.Failure.cannotOpen(errno: ENOENT)) {
            try ReadOnlyFileMapping(path: folder + "/absent", maximumSize: .max)
        }
    }

    @Test("a child's exit status is reported as a shell does")
    func waitsForChildren() throws {
        var child: pid_t = 0
        let words: [String] = ["/bin/sh", "-c", "exit 3"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&child, "/bin/sh", nil, nil, argv, environ) == 0)
        SystemCalls.waitUntilEnded(child)
        #expect(SystemCalls.waitForExit(of: child) == 3)
        #expect(SystemCalls.waitForExit(of: child) == nil)
    }

    @Test("a running child runs; one that ended runs no more, reaped or not (a zombie)")
    func processesThatRun() throws {
        #expect(SystemCalls.processRuns(getpid()))
        #expect(!SystemCalls.processRuns(0))
        // Above the kernel's largest process id (4194304): no process.
        #expect(!SystemCalls.processRuns(9_999_999))
        var child: pid_t = 0
        let words: [String] = ["/bin/sleep", "60"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&child, "/bin/sleep", nil, nil, argv, environ) == 0)
        #expect(SystemCalls.processRuns(child), "the child sleeps")
        kill(child, SIGKILL)
        SystemCalls.waitUntilEnded(child)
        #expect(!SystemCalls.processRuns(child), "the child ended and is not reaped: a zombie")
        #expect(SystemCalls.waitForExit(of: child) != nil)
        #expect(!SystemCalls.processRuns(child), "the child is reaped")
    }

    @Test("a condition lock hands a value from one thread to another")
    func conditionLock() async {
        final class Box: @unchecked Sendable {
            let lock = ConditionLock()
            var value = 0
        }
        let box = Box()
        let waiter = Task.detached {
            box.lock.lock()
            while box.value == 0 { box.lock.wait() }
            let seen = box.value
            box.lock.unlock()
            return seen
        }
        box.lock.lock()
        box.value = 42
        box.lock.broadcast()
        box.lock.unlock()
        #expect(await waiter.value == 42)

        let threadLock = ThreadLock()
        threadLock.lock()
        threadLock.unlock()
    }
}
