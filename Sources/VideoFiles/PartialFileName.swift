#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The name a file has while it is written, before it is renamed to its own:
/// `FOLDER/.STEM.landmarker-partial.PID.EXT` for `FOLDER/STEM.EXT`. Hidden, in the output's
/// folder (so that the rename stays on one file system), with the output's extension (which
/// selects ffmpeg's format), and naming the process that writes it, so that a later run can
/// tell a dead process's leftover from a file still being written.
public enum PartialFileName {
    /// The partial name of `output` for the process `processID` (this one by default).
    public static func path(for output: String, processID: pid_t = getpid()) -> String {
        let (folder, stem, ext) = parts(of: output)
        return "\(folder).\(stem)\(marker)\(processID)\(ext)"
    }

    /// The process whose partial file of `output` is named `name` (a file name in `output`'s
    /// folder), or nil when `name` is not a partial file of `output`.
    public static func writer(ofName name: String, partialOf output: String) -> pid_t? {
        let (_, stem, ext) = parts(of: output)
        let prefix = ".\(stem)\(marker)"
        guard name.hasPrefix(prefix), name.hasSuffix(ext), name.count > prefix.count + ext.count else { return nil }
        let digits = name.dropFirst(prefix.count).dropLast(ext.count)
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return pid_t(digits)
    }

    private static let marker = ".landmarker-partial."

    /// The folder (with its trailing slash, or empty), the name without its extension, and the
    /// extension with its dot (or empty).
    private static func parts(of path: String) -> (folder: String, stem: String, ext: String) {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let dot = name.lastIndex(of: ".")
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        return (folder, stem, ext)
    }
}
