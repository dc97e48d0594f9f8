#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and writes with POSIX calls, reporting failures with the system's message.
enum FileBytes {
    /// Reads the whole regular file at `path`, refusing files larger than `limit` bytes
    /// before reading them.
    static func readAll(path: String, limit: Int) throws(ImageIOError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw .fileUnreadable(path: path, reason: systemMessage())
        }
        defer { close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .fileUnreadable(path: path, reason: systemMessage())
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "not a regular file")
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            throw .encodedDataTooLarge(byteCount: size, limit: limit)
        }

        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let result = bytes.withUnsafeMutableBytes { buffer in
                // filled < size == buffer.count, so the pointer stays inside the buffer.
                read(descriptor, buffer.baseAddress! + filled, size - filled)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(path: path, reason: systemMessage())
            }
            if result == 0 {
                throw .fileUnreadable(path: path, reason: "file shrank while being read")
            }
            filled += result
        }
        return bytes
    }

    /// Writes `bytes` as the file at `path` (replacing it), through a temporary name.
    static func writeAll(_ bytes: [UInt8], path: String) throws(ImageIOError) {
        // A temporary name in the same folder, renamed once whole: a file under `path` is
        // never half-written, even when the process stops midway.
        let temporary = path + ".partial.\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw .fileUnwritable(path: path, reason: systemMessage())
        }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                // written < bytes.count, so the pointer stays inside the buffer.
                write(descriptor, buffer.baseAddress! + written, bytes.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = systemMessage()
                close(descriptor)
                unlink(temporary)
                throw .fileUnwritable(path: path, reason: reason)
            }
            written += result
        }
        guard close(descriptor) == 0, rename(temporary, path) == 0 else {
            let reason = systemMessage()
            unlink(temporary)
            throw .fileUnwritable(path: path, reason: reason)
        }
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
