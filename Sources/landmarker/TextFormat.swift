#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import SystemInterface

/// `printf`-style formatting through the C library's `vsnprintf`: the tool links
/// FoundationEssentials, which has no `String(format:)`. Pass `Int` with `%ld`, `Double` with
/// `%f`/`%e`/`%g`, C strings only through `%s` (Swift strings: interpolate them instead).
func formatted(_ format: String, _ arguments: any CVarArg...) -> String {
    var capacity = 256
    while true {
        var buffer = [CChar](repeating: 0, count: capacity)
        let length = withVaList(arguments) { list in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, capacity, format, list) }
        }
        guard length >= 0 else { return format }
        guard Int(length) >= capacity else {
            return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        capacity = Int(length) + 1
    }
}

/// `text` followed by spaces up to `width` characters (as it is when longer).
func padded(_ text: String, to width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

/// A short description of an error: for one thrown by FoundationEssentials' file operations,
/// the text of the underlying POSIX error where there is one, else what its code says (never the
/// error value itself); the error's own description otherwise.
func errorText(_ error: any Error) -> String {
    if let cocoa = error as? CocoaError {
        if let posix = cocoa.userInfo["NSUnderlyingError"] as? POSIXError { return systemErrorText(posix.code.rawValue) }
        switch cocoa.code {
        case .fileNoSuchFile, .fileReadNoSuchFile: return systemErrorText(ENOENT)
        case .fileReadNoPermission, .fileWriteNoPermission: return systemErrorText(EACCES)
        case .fileWriteOutOfSpace: return systemErrorText(ENOSPC)
        case .fileWriteVolumeReadOnly: return systemErrorText(EROFS)
        case .fileWriteFileExists: return systemErrorText(EEXIST)
        default: return "file operation failed (Foundation error \(cocoa.code.rawValue))"
        }
    }
    if let posix = error as? POSIXError { return systemErrorText(posix.code.rawValue) }
    return "\(error)"
}
