#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import SystemInterface

/// Writes a line to standard error.
func printError(_ message: String) {
    writeStandardError(message + "\n")
}

/// Writes `text` to standard error as it is (no line feed added), unbuffered; a refused write is
/// dropped, as there is nowhere left to report it.
func writeStandardError(_ text: String) {
    var text = text
    _ = text.withUTF8 { try? SystemCalls.writeAll(UnsafeRawBufferPointer($0), to: STDERR_FILENO) }
}
