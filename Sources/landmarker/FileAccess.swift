#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import SystemInterface

/// What a path names, by `stat` (following symbolic links).
enum PathKind {
    case missing, file, folder

    init(atPath path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            self = .missing
            return
        }
        self = (status.st_mode & S_IFMT) == S_IFDIR ? .folder : .file
    }
}

/// A file opened with `open(2)`, read or written in pieces; closed by `closeFile()` or when
/// released. Errors name the path and the system's reason.
final class PosixFile {
    let path: String
    private var descriptor: Int32

    /// Opens `path` for reading.
    init(readingAtPath path: String) throws {
        self.path = path
        do {
            descriptor = try SystemCalls.openForReading(path)
        } catch {
            throw CommandFailure("\(path): cannot be read: \(error.text)")
        }
    }

    /// Creates (or truncates) `path` for writing, readable by everyone, writable by the owner.
    init(creatingAtPath path: String) throws {
        self.path = path
        do {
            descriptor = try SystemCalls.createFile(path)
        } catch {
            throw CommandFailure("\(path): cannot be created: \(error.text)")
        }
    }

    deinit { closeFile() }

    /// The next piece of at most `count` bytes; empty at the end of the file.
    func readPiece(upTo count: Int) throws -> [UInt8] {
        var failure: SystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(SystemError) {
                initialized = try SystemCalls.readSome(descriptor, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw CommandFailure("\(path): cannot be read: \(failure.text)") }
        return bytes
    }

    /// Writes all of `bytes`.
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try SystemCalls.writeAll(bytes, to: descriptor)
        } catch {
            throw CommandFailure("\(path): cannot be written: \(error.text)")
        }
    }

    /// Writes the UTF-8 bytes of `text`.
    func writeAll(_ text: String) throws {
        var text = text
        try text.withUTF8 { try writeAll(UnsafeRawBufferPointer($0)) }
    }

    /// Flushes the file to the disk (`fsync`), then closes it.
    func synchronizeAndClose() throws {
        defer { closeFile() }
        guard fsync(descriptor) == 0 else { throw CommandFailure("\(path): cannot be written: \(systemErrorText())") }
    }

    /// Closes the file; later calls do nothing.
    func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
