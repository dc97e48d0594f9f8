#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a zip archive could not be read or written by the stored-entry zip reader and writer.
///
/// Offsets are byte offsets from the start of the archive.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum ZipArchiveError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// No end-of-central-directory record ends the data: not a zip archive, or truncated.
    case endOfCentralDirectoryNotFound
    /// The archive spans several disks (or claims to).
    case multiDiskArchive
    /// The archive needs zip64 extensions (over 65 534 entries or 4 GiB), which are not supported.
    case zip64NotSupported
    /// The central directory (`offset`, `size`) does not lie between the start of the archive
    /// and the end-of-central-directory record at `endRecordOffset`.
    case centralDirectoryOutOfBounds(offset: Int, size: Int, endRecordOffset: Int)
    /// More entries are declared than a central directory of `centralDirectorySize` bytes can hold.
    case implausibleEntryCount(declared: Int, centralDirectorySize: Int)
    /// The central directory's records do not fill exactly its declared size.
    case centralDirectorySizeMismatch(declared: Int, actual: Int)
    /// A record (named by `record`) at `offset` runs past the end of its region.
    case truncatedRecord(record: String, offset: Int)
    /// The record at `offset` does not start with the signature of a `record`.
    case badSignature(record: String, offset: Int)
    /// The entry name in the central-directory record at `offset` is empty or not UTF-8.
    case invalidEntryName(offset: Int)
    /// Two entries have the same name.
    case duplicateEntry(name: String)
    /// The entry is compressed (zip compression method `method`); only stored entries are supported.
    case compressedEntry(name: String, method: Int)
    /// The entry is encrypted.
    case encryptedEntry(name: String)
    /// The entry's local header contradicts its central-directory record in `field`.
    case inconsistentHeaders(name: String, field: String)
    /// The entry's stored data lies outside the archive or overlaps the central directory.
    case entryDataOutOfBounds(name: String)
    /// The entry's data does not match its CRC-32.
    case checksumMismatch(name: String, expected: UInt32, actual: UInt32)
    /// No entry has this name.
    case entryNotFound(name: String, available: [String])
    /// The writer cannot encode this entry name (empty, or longer than 65 535 UTF-8 bytes).
    case unwritableEntryName(name: String)
    /// The archive being written would need zip64 extensions.
    case archiveTooLarge

    public var description: String {
        switch self {
        case .endOfCentralDirectoryNotFound:
            return "Not a zip archive: no end-of-central-directory record at the end of the data."
        case .multiDiskArchive:
            return "Multi-disk zip archives are not supported."
        case .zip64NotSupported:
            return "Zip64 archives (over 65534 entries or 4 GiB) are not supported."
        case .centralDirectoryOutOfBounds(let offset, let size, let endRecordOffset):
            return "The zip central directory (offset \(offset), \(size) bytes) does not lie before "
                + "its end record at offset \(endRecordOffset)."
        case .implausibleEntryCount(let declared, let centralDirectorySize):
            return "The zip archive declares \(declared) entries, more than its "
                + "\(centralDirectorySize)-byte central directory can hold."
        case .centralDirectorySizeMismatch(let declared, let actual):
            return "The zip central directory is declared as \(declared) bytes but its records "
                + "take \(actual)."
        case .truncatedRecord(let record, let offset):
            return "The zip \(record) at offset \(offset) is truncated."
        case .badSignature(let record, let offset):
            return "Expected a zip \(record) at offset \(offset); the signature does not match."
        case .invalidEntryName(let offset):
            return "The zip entry name in the central directory record at offset \(offset) "
                + "is empty or not UTF-8."
        case .duplicateEntry(let name):
            return "The zip archive has two entries named \"\(name)\"."
        case .compressedEntry(let name, let method):
            return "The zip entry \"\(name)\" is compressed (method \(method)); only stored "
                + "(uncompressed) entries are supported."
        case .encryptedEntry(let name):
            return "The zip entry \"\(name)\" is encrypted."
        case .inconsistentHeaders(let name, let field):
            return "The zip entry \"\(name)\" has a local header whose \(field) contradicts "
                + "the central directory."
        case .entryDataOutOfBounds(let name):
            return "The data of zip entry \"\(name)\" lies outside the archive or overlaps "
                + "its central directory."
        case .checksumMismatch(let name, let expected, let actual):
            return "The zip entry \"\(name)\" is corrupt: CRC-32 "
                + "\(Self.hex(actual)) instead of \(Self.hex(expected))."
        case .entryNotFound(let name, let available):
            return "The zip archive has no entry \"\(name)\"; it has: "
                + (available.isEmpty ? "none" : available.joined(separator: ", ")) + "."
        case .unwritableEntryName(let name):
            return "Cannot write a zip entry named \"\(name)\": names must be 1 to 65535 UTF-8 bytes."
        case .archiveTooLarge:
            return "The zip archive would need zip64 extensions (over 65534 entries or 4 GiB)."
        }
    }

    public var errorDescription: String? { description }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}
