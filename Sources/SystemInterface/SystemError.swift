#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The text the C library gives for the `errno` value `code` (`strerror`), e.g. "No such file or
/// directory" for `ENOENT`; "unknown error" if it gives none. The default is the calling
/// thread's `errno` as it is when the call is made, so call it before anything else can change
/// `errno`.
///
/// Thread safety: safe from any thread for the C library's own codes (`strerror` returns its
/// static text for them); an unknown code is formatted in a buffer that glibc keeps per thread.
package func systemErrorText(_ code: Int32 = errno) -> String {
    guard let message = strerror(code) else { return "unknown error" }
    return String(cString: message)
}

/// A failed system call's `errno` value, as the wrappers of this module throw it.
///
/// `Sendable` and `Equatable`; its description is the system's text for the code.
package struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The `errno` value, e.g. `ENOENT`.
    package let code: Int32

    /// The error with `errno` value `code`; by default the calling thread's `errno` now.
    package init(code: Int32 = errno) {
        self.code = code
    }

    /// The system's text for `code` (`systemErrorText(_:)`).
    package var text: String { systemErrorText(code) }

    package var description: String { text }
}
