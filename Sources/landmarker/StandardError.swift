#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Writes a line to standard error.
func printError(_ message: String) {
    writeStandardError(message + "\n")
}

/// Writes `text` to standard error as it is (no line feed added), unbuffered.
func writeStandardError(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
