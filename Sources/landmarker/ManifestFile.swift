#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DatasetManifest {
    /// Reads and checks the manifest file at `path`; long entry names are hashed with
    /// `FileDigest` (libcrypto).
    /// - Throws: `Refusal` for a folder, a file that cannot be read (the system's reason), one
    ///   over `maxByteCount` bytes, and the refusals of `init(bytes:folder:describing:sha256:)`;
    ///   `CommandFailure` when libcrypto is needed and cannot be loaded.
    init(contentsOf path: String) throws {
        guard PathKind(atPath: path) != .folder else {
            throw Refusal("\(path): the manifest is a folder, not a text file")
        }
        let bytes: [UInt8]
        do {
            bytes = try Self.readBytes(path)
        } catch let failure as CommandFailure {
            // PosixFile's message: "PATH: cannot be read: REASON".
            throw Refusal("the manifest \(failure.message)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try self.init(bytes: bytes, folder: folder, describing: path, sha256: FileDigest.sha256(ofText:))
    }

    /// The bytes of the file at `path`.
    /// - Throws: `Refusal` past `maxByteCount` bytes, `CommandFailure` when it cannot be read.
    private static func readBytes(_ path: String) throws -> [UInt8] {
        let file = try PosixFile(readingAtPath: path)
        var bytes: [UInt8] = []
        while true {
            let piece = try file.readPiece(upTo: 1 << 20)
            if piece.isEmpty { return bytes }
            bytes += piece
            guard bytes.count <= maxByteCount else {
                throw Refusal("\(path): the manifest is more than \(maxByteCount) bytes")
            }
        }
    }
}
