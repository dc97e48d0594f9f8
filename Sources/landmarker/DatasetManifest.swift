#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The list of videos `landmarker extract` works through: one video file or folder of frames
/// per line; empty lines and lines starting with `#` are skipped. Lines may end in LF or CRLF,
/// and a byte-order mark may open the file (as editors on Windows save text). A relative path is
/// taken from the manifest's own folder, so a manifest and its videos can move together.
///
/// Entry `k` (counting entries only) belongs to shard `k mod N`: every shard of a run sees the
/// same numbering, whatever order the shards run in.
///
/// Each entry's outputs are named after it (`Entry.outputName`); a manifest in which two
/// entries would write the same output is refused. This file needs Foundation only: the
/// manifest fuzzer (`Fuzz/Sources/ManifestFuzzer`) compiles it as it is.
struct DatasetManifest {
    struct Entry: Equatable {
        /// 0-based position among the manifest's entries.
        let index: Int
        /// The path as the manifest writes it (what output headers record).
        let path: String
        /// The path to open.
        let resolvedPath: String
        /// The entry's name: the last path component without its extension.
        let name: String
        /// The base name of the entry's output files: `name`, or for a name longer than
        /// `maxOutputNameBytes`, its hashed form (`outputName(for:sha256:)`).
        let outputName: String
    }

    /// Why a manifest is refused, with the message; `landmarker extract` refuses it before any
    /// work, as a usage error.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The longest manifest accepted, in bytes (64 MiB: about a million entries).
    static let maxByteCount = 64 << 20

    /// The longest output name kept as it is, in UTF-8 bytes: what the longest file name made
    /// from it, a temporary file `.<name>.frames.partial.<host>.<pid>`, leaves of the file
    /// systems' 255 bytes (`NAME_MAX`) with a host name of 64 bytes (Linux's `HOST_NAME_MAX`)
    /// and a process id of 7 digits (Linux's largest, 4194304): 255 − 89.
    static let maxOutputNameBytes = 166

    /// Hex digits of the SHA-256 in a hashed output name.
    static let outputNameHashDigits = 16

    let entries: [Entry]

    /// Parses the bytes of a manifest file (`describing` names it in messages), resolving
    /// relative entries against `folder`; `sha256` gives the SHA-256 of a string's UTF-8 bytes
    /// in hex, for the names too long to keep (`outputName(for:sha256:)`).
    /// - Throws: `Refusal` for bytes that are not UTF-8 and for `init(text:folder:describing:sha256:)`'s
    ///   refusals; what `sha256` throws.
    init(bytes: [UInt8], folder: String, describing source: String, sha256: (String) throws -> String) throws {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Refusal("\(source): the manifest is not UTF-8 text")
        }
        try self.init(text: text, folder: folder, describing: source, sha256: sha256)
    }

    /// Parses `text`, resolving relative entries against `folder`; `describing` names the
    /// manifest in messages, and `sha256` is as in `init(bytes:folder:describing:sha256:)`.
    /// - Throws: `Refusal` for a line with a control character, a line that gives no output
    ///   name, no entries, or two entries whose outputs would share a name; what `sha256` throws.
    init(text: String, folder: String, describing source: String, sha256: (String) throws -> String) throws {
        var entries: [Entry] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        let body = text.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            var trimmed = rawLine
            while let first = trimmed.first, first == " " || first == "\t" { trimmed.removeFirst() }
            while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
            let line = String(trimmed)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard !line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) else {
                throw Refusal("\(source):\(lineNumber): the entry holds a control character")
            }
            let resolved = line.hasPrefix("/") ? line : folder + "/" + line
            // Not a directory, whatever the path names: no file system look-up per entry.
            let name = URL(fileURLWithPath: line, isDirectory: false).deletingPathExtension().lastPathComponent
            guard !name.isEmpty, name != ".", name != "..", !name.contains("/") else {
                throw Refusal("\(source):\(lineNumber): '\(line)' gives no output name")
            }
            entries.append(Entry(
                index: entries.count, path: line, resolvedPath: resolved, name: name,
                outputName: try Self.outputName(for: name, sha256: sha256)))
        }
        guard !entries.isEmpty else { throw Refusal("\(source): the manifest lists no video") }
        var firstByOutputName: [String: String] = [:]
        for entry in entries {
            if let other = firstByOutputName[entry.outputName] {
                throw Refusal(
                    "\(source): '\(other)' and '\(entry.path)' would both write \(entry.outputName).ndjson; rename one")
            }
            firstByOutputName[entry.outputName] = entry.path
        }
        self.entries = entries
    }

    /// The base name of the outputs of an entry named `name`: `name` itself when it has at most
    /// `maxOutputNameBytes` UTF-8 bytes; otherwise its longest prefix (whole Unicode scalars)
    /// that leaves room for `-` and the first `outputNameHashDigits` hex digits of the SHA-256
    /// of `name`'s UTF-8 bytes (which `sha256` gives), then those. One name always gives one
    /// output name, so entries of one name still collide.
    static func outputName(for name: String, sha256: (String) throws -> String) rethrows -> String {
        guard name.utf8.count > maxOutputNameBytes else { return name }
        let room = maxOutputNameBytes - 1 - outputNameHashDigits
        var prefix = ""
        var bytes = 0
        for scalar in name.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= room else { break }
            prefix.unicodeScalars.append(scalar)
        }
        return prefix + "-" + String(try sha256(name).prefix(outputNameHashDigits))
    }

    /// The entries of shard `index` of `count`.
    func shard(_ index: Int, of count: Int) -> [Entry] {
        entries.filter { $0.index % count == index }
    }
}
