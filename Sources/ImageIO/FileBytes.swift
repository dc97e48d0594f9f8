#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SystemInterface

/// Whole-file reads and writes with POSIX calls, reporting failures with the system's message.
enum FileBytes {
    /// Reads the whole regular file at `path`, refusing files larger than `limit` bytes
    /// before reading them.
    static func readAll(path: String, limit: Int) throws(ImageIOError) -> [UInt8] {
        let descriptor: Int32
        do {
            descriptor = try SystemCalls.openForReading(path)
        } catch {
            throw .fileUnreadable(path: path, reason: error.text)
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .fileUnreadable(path: path, reason: systemErrorText())
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "not a regular file")
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            throw .encodedDataTooLarge(byteCount: size, limit: limit)
        }

        var bytes = [UInt8](repeating: 0, count: size)
        let filled = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemError) in try SystemCalls.readFully(descriptor, into: buffer) }
        }
        switch filled {
        case let .failure(error):
            throw .fileUnreadable(path: path, reason: error.text)
        case let .success(count) where count < size:
            throw .fileUnreadable(path: path, reason: "file shrank while being read")
        case .success:
            return bytes
        }
    }

    /// Writes `bytes` as the file at `path` (replacing it), through a temporary name.
    static func writeAll(_ bytes: [UInt8], path: String) throws(ImageIOError) {
        // A temporary name in the same folder, renamed once whole: a file under `path` is
        // never half-written, even when the process stops midway.
        let temporary = path + ".partial.\(getpid())"
        let descriptor: Int32
        do {
            descriptor = try SystemCalls.createFile(temporary)
        } catch {
            throw .fileUnwritable(path: path, reason: error.text)
        }
        let written = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try SystemCalls.writeAll(buffer, to: descriptor) }
        }
        if case let .failure(error) = written {
            close(descriptor)
            unlink(temporary)
            throw .fileUnwritable(path: path, reason: error.text)
        }
        guard close(descriptor) == 0, rename(temporary, path) == 0 else {
            let reason = systemErrorText()
            unlink(temporary)
            throw .fileUnwritable(path: path, reason: reason)
        }
    }
}
