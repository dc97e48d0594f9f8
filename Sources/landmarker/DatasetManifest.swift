import ArgumentParser
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
struct DatasetManifest {
    struct Entry: Equatable {
        /// 0-based position among the manifest's entries.
        let index: Int
        /// The path as the manifest writes it (what output headers record).
        let path: String
        /// The path to open.
        let resolvedPath: String
        /// The output's base name: the last path component without its extension.
        let name: String
    }

    /// The longest manifest accepted, in bytes (64 MiB: about a million entries).
    static let maxByteCount = 64 << 20

    let entries: [Entry]

    /// Reads and checks the manifest at `path`.
    /// - Throws: `CommandFailure` for an unreadable, oversized or non-UTF-8 file, a line with a
    ///   control character, no entries, or two entries whose outputs would share a name.
    init(contentsOf path: String) throws {
        guard PathKind(atPath: path) == .file, let file = try? PosixFile(readingAtPath: path) else {
            throw CommandFailure("\(path): the manifest cannot be read")
        }
        var bytes: [UInt8] = []
        while true {
            let piece = try file.readPiece(upTo: 1 << 20)
            if piece.isEmpty { break }
            bytes += piece
            guard bytes.count <= Self.maxByteCount else {
                throw CommandFailure("\(path): the manifest is more than \(Self.maxByteCount) bytes")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CommandFailure("\(path): the manifest is not UTF-8 text")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try self.init(text: text, folder: folder, describing: path)
    }

    /// Parses `text`, resolving relative entries against `folder`; `describing` names the
    /// manifest in errors.
    init(text: String, folder: String, describing source: String) throws {
        var entries: [Entry] = []
        var lineNumber = 0
        // "\r\n" is one Character in Swift, so it is a separator of its own.
        let body = text.first == "\u{FEFF}" ? text.dropFirst() : Substring(text)
        for rawLine in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let line = String(rawLine.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard !line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\t" }) else {
                throw CommandFailure("\(source):\(lineNumber): the entry holds a control character")
            }
            let resolved = line.hasPrefix("/") ? line : folder + "/" + line
            let url = URL(fileURLWithPath: line)
            let name = url.deletingPathExtension().lastPathComponent
            guard !name.isEmpty, name != ".", name != ".." else {
                throw CommandFailure("\(source):\(lineNumber): '\(line)' gives no output name")
            }
            entries.append(Entry(index: entries.count, path: line, resolvedPath: resolved, name: name))
        }
        guard !entries.isEmpty else { throw CommandFailure("\(source): the manifest lists no video") }
        var firstByName: [String: String] = [:]
        for entry in entries {
            if let other = firstByName[entry.name] {
                throw CommandFailure(
                    "\(source): '\(other)' and '\(entry.path)' would both write \(entry.name).ndjson; rename one")
            }
            firstByName[entry.name] = entry.path
        }
        self.entries = entries
    }

    /// The entries of shard `index` of `count`.
    func shard(_ index: Int, of count: Int) -> [Entry] {
        entries.filter { $0.index % count == index }
    }
}

/// `--shard I/N`: shard `I` (0-based) of `N`.
struct Shard: ExpressibleByArgument, Equatable, CustomStringConvertible {
    let index: Int
    let count: Int

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              count >= 1, count <= 1_000_000, index >= 0, index < count else { return nil }
        self.init(index: index, count: count)
    }

    var description: String { "\(index)/\(count)" }
}
