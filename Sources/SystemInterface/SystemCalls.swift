#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// POSIX calls on file descriptors and child processes, each retried when a signal interrupts it
/// (`EINTR`), so that callers see only real failures, thrown as ``SystemError`` with the `errno`
/// value the failing call left.
///
/// Thread safety: each function is as thread-safe as the system call it wraps; `errno` is per
/// thread, so concurrent calls on different descriptors do not disturb each other's errors.
/// Opening sets `O_CLOEXEC`, so that a child process started later does not inherit the
/// descriptor.
package enum SystemCalls {
    /// Opens the file at `path` for reading (`O_RDONLY | O_CLOEXEC`) and returns its descriptor,
    /// which the caller closes.
    package static func openForReading(_ path: String) throws(SystemError) -> Int32 {
        while true {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw SystemError() }
        }
    }

    /// Creates the file at `path` for writing (`O_WRONLY | O_CREAT | O_CLOEXEC`) with the
    /// permission bits `permissions` (before the umask; by default readable by everyone,
    /// writable by the owner), and returns its descriptor, which the caller closes. An existing
    /// file is truncated, or, when `exclusive`, refused (`EEXIST`, `O_EXCL`).
    package static func createFile(
        _ path: String, exclusive: Bool = false, permissions: mode_t = 0o644
    ) throws(SystemError) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC)
        while true {
            let descriptor = open(path, flags, permissions)
            if descriptor >= 0 { return descriptor }
            if errno != EINTR { throw SystemError() }
        }
    }

    /// One `read(2)` of at most `buffer.count` bytes into `buffer`, which waits for at least one
    /// byte (unless the descriptor is non-blocking); returns the number of bytes read, 0 at the
    /// end of the stream (or for an empty buffer).
    package static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = read(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw SystemError() }
        }
    }

    /// Reads from `descriptor` until `buffer` is full or the stream ends, going on after
    /// short reads; returns the number of bytes read, less than `buffer.count` only at the end
    /// of the stream. Bytes read before a failure are in `buffer`, but their count is lost.
    package static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try readSome(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Writes all of `bytes` to `descriptor`, going on after short writes. A `write(2)` that
    /// writes nothing without an error (which a regular file or pipe does not do) is reported
    /// as `EIO` rather than retried forever. Bytes written before a failure stay written.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw SystemError()
            }
            guard written > 0 else { throw SystemError(code: EIO) }
            offset += written
        }
    }

    /// Waits for the child process `pid` to end and reaps it (`waitpid`); returns its exit
    /// status as a shell reports it: the status it exited with (0–255), or 128 + the signal's
    /// number when a signal ended it. Nil when `pid` is no child of this process waiting to be
    /// reaped (`ECHILD`).
    package static func waitForExit(of pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Whether process `pid` runs: it exists and has not ended. A process that ended but was not
    /// yet reaped by its parent (a zombie, which a parent that was itself killed leaves to
    /// whichever process adopts it, perhaps for a long while) holds no file open and writes
    /// nothing more, so it counts as ended. A process of another user counts as running.
    package static func processRuns(_ pid: pid_t) -> Bool {
        guard pid > 0 else { return false }
        if kill(pid, 0) != 0 && errno == ESRCH { return false }
        #if os(Linux)
        // `/proc/PID/stat` is "PID (NAME) STATE …", NAME possibly holding spaces and
        // parentheses: the state is the letter after the last ')' and its space.
        let descriptor: Int32
        do {
            descriptor = try openForReading("/proc/\(pid)/stat")
        } catch {
            return error.code != ENOENT  // gone since `kill`
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = (try? bytes.withUnsafeMutableBytes { buffer throws(SystemError) in try readFully(descriptor, into: buffer) }) ?? 0
        guard let nameEnd = bytes[..<count].lastIndex(of: UInt8(ascii: ")")), nameEnd + 2 < count else { return true }
        let state = bytes[nameEnd + 2]
        return state != UInt8(ascii: "Z") && state != UInt8(ascii: "X")
        #else
        return true
        #endif
    }

    /// Waits until the child process `pid` has ended without reaping it (`waitid` with
    /// `WNOWAIT`), so that its owner can still wait for it; returns at once if it is no child
    /// of this process.
    package static func waitUntilEnded(_ pid: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    }
}
