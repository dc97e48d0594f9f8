import FuzzSupport

/// Parses the bytes of a manifest file as `landmarker extract` does (`DatasetManifest`, compiled
/// into this fuzzer from the CLI's own source file), with a stand-in SHA-256 for long names.
/// Each execution must end in a manifest or a `DatasetManifest.Refusal`, and a manifest must
/// hold what `extract` counts on: its entries numbered in order, each with an output name that
/// every file `extract` makes from it fits in 255 bytes (`NAME_MAX`), no two output names
/// alike, and shards that split the entries between them. The same text with CRLF line ends or
/// a byte-order mark in front must give the same entries (or the same refusal).
enum ManifestDriver {
    /// The folder relative entries are resolved against.
    static let folder = "/data/videos"

    static func parse(_ bytes: [UInt8]) -> Outcome {
        let manifest: DatasetManifest
        do {
            manifest = try DatasetManifest(bytes: bytes, folder: folder, describing: "fuzz.txt", sha256: standInSHA256)
        } catch let refusal as DatasetManifest.Refusal {
            FuzzCheck.require(refusal.description.hasPrefix("fuzz.txt"), "refusal without the manifest's name: \(refusal)")
            checkVariants(of: bytes, give: .failure(RefusalText(refusal.description)))
            return FuzzCheck.refused(refusal)
        } catch {
            FuzzCheck.require(false, "manifest failed with something other than a refusal: \(error)")
            fatalError()
        }
        check(manifest)
        checkVariants(of: bytes, give: .success(manifest.entries))
        return .parsed("\(manifest.entries.count) entries")
    }

    /// A stand-in for the SHA-256 of `text` in hex (64 digits): four FNV-1a hashes of its bytes.
    static func standInSHA256(_ text: String) -> String {
        (0..<4).map { round -> String in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 &+ UInt64(round)
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let hex = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// The longest name of a file `extract` makes from an output name, past the name: a
    /// temporary file `.<name>.frames.partial.<host>.<pid>` with a 64-byte host name and a
    /// 7-digit process id.
    static let longestAddition = ".".utf8.count + ".frames.partial.".utf8.count + 64 + ".".utf8.count + 7

    private static func check(_ manifest: DatasetManifest) {
        let entries = manifest.entries
        FuzzCheck.require(!entries.isEmpty, "a manifest without entries")
        for (position, entry) in entries.enumerated() {
            FuzzCheck.require(entry.index == position, "entry \(position) numbered \(entry.index)")
            FuzzCheck.require(!entry.path.isEmpty && !entry.path.hasPrefix("#"), "entry '\(entry.path)'")
            FuzzCheck.require(
                !entry.path.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\t" },
                "a control character in '\(entry.path)'")
            let blank: Set<Character> = [" ", "\t"]
            FuzzCheck.require(!blank.contains(entry.path.first!) && !blank.contains(entry.path.last!),
                              "blanks around '\(entry.path)'")
            FuzzCheck.require(
                entry.resolvedPath == (entry.path.hasPrefix("/") ? entry.path : folder + "/" + entry.path),
                "'\(entry.path)' resolved to '\(entry.resolvedPath)'")
            FuzzCheck.require(!entry.name.isEmpty && entry.name != "." && entry.name != ".." && !entry.name.contains("/"),
                              "'\(entry.path)' named '\(entry.name)'")
            checkOutputName(of: entry)
        }
        FuzzCheck.require(Set(entries.map(\.outputName)).count == entries.count, "two entries share an output name")
        for count in 1...3 {
            let shards = (0..<count).map { manifest.shard($0, of: count) }
            FuzzCheck.require(shards.joined().map(\.index).sorted() == Array(entries.indices),
                              "\(count) shards do not split the entries")
        }
    }

    private static func checkOutputName(of entry: DatasetManifest.Entry) {
        let limit = DatasetManifest.maxOutputNameBytes
        let output = entry.outputName
        FuzzCheck.require(output.utf8.count <= limit, "output name of \(output.utf8.count) bytes")
        FuzzCheck.require(output.utf8.count + longestAddition <= 255, "a file name longer than 255 bytes")
        FuzzCheck.require(!output.isEmpty && !output.contains("/"), "output name '\(output)'")
        if entry.name.utf8.count <= limit {
            FuzzCheck.require(output == entry.name, "'\(entry.name)' written as '\(output)'")
            return
        }
        let digits = DatasetManifest.outputNameHashDigits
        let hash = String(standInSHA256(entry.name).prefix(digits))
        FuzzCheck.require(output.hasSuffix("-" + hash), "'\(output)' does not end with its name's hash")
        let prefix = output.utf8.dropLast(digits + 1)
        FuzzCheck.require(entry.name.utf8.starts(with: prefix), "'\(output)' does not start with its name")
        // The prefix stops short of the room by less than one scalar (at most 4 bytes).
        FuzzCheck.require(prefix.count > limit - 1 - digits - 4, "a prefix of \(prefix.count) bytes")
    }

    /// Checks that `bytes` with CRLF line ends (when it has no CR) and with a byte-order mark in
    /// front (when it has none) give `expected`: the same entries, or a refusal with the same
    /// message.
    private static func checkVariants(of bytes: [UInt8], give expected: Result<[DatasetManifest.Entry], RefusalText>) {
        var variants: [(String, [UInt8])] = []
        if !bytes.contains(0x0D) {
            // Built in one array: a `flatMap` to an array per byte made an allocation per byte,
            // which under the address sanitizer cost more than the parses.
            var crlf: [UInt8] = []
            crlf.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                if byte == 0x0A { crlf.append(0x0D) }
                crlf.append(byte)
            }
            variants.append(("CRLF", crlf))
        }
        if !bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            variants.append(("byte-order mark", [0xEF, 0xBB, 0xBF] + bytes))
        }
        for (variant, variantBytes) in variants {
            let outcome: Result<[DatasetManifest.Entry], RefusalText>
            do {
                outcome = .success(try DatasetManifest(
                    bytes: variantBytes, folder: folder, describing: "fuzz.txt", sha256: standInSHA256).entries)
            } catch {
                outcome = .failure(RefusalText("\(error)"))
            }
            FuzzCheck.require(outcome == expected, "with \(variant): \(outcome), without: \(expected)")
        }
    }
}

/// A refusal's message, as an `Error` that compares equal by text.
struct RefusalText: Error, Equatable {
    let text: String
    init(_ text: String) { self.text = text }
}
