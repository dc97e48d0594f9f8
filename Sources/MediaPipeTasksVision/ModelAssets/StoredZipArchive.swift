/// A read-only view of a zip archive whose entries are all *stored* (uncompressed), such as a
/// `.task` model bundle. Entries are read from memory — a byte array, or a file mapped into
/// memory — nothing is unpacked to disk.
///
/// `init` validates the whole archive: the end-of-central-directory record, every
/// central-directory record and every local header, with each offset and size bounds-checked.
/// It rejects compressed, encrypted and zip64 entries, multi-disk archives, duplicate names
/// and data that overlaps the central directory. `contents(of:)` also verifies the CRC-32.
///
/// Thread safety: a `Sendable` value holding immutable archive bytes; read it from any number of
/// threads at once.
package struct StoredZipArchive: Sendable {
    /// Where the archive's bytes are.
    private enum Storage: Sendable {
        case array([UInt8])
        case mapped(MappedFile)
    }

    /// One stored member of the archive.
    ///
    /// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
    package struct Entry: Sendable, Equatable {
        /// The entry's path inside the archive, for example `pose_detector.tflite`.
        package let name: String
        /// Size of the data in bytes.
        package let size: Int
        /// CRC-32 of the data, from the central directory.
        package let crc32: UInt32
        /// Offset of the first data byte in the archive.
        let dataOffset: Int
    }

    /// The entries in central-directory order.
    package let entries: [Entry]
    private let storage: Storage

    /// What identifies `entry`'s data without reading it: the mapped file's identity
    /// (`MappedFile.identity`) and where the data lies in it; nil for an archive in memory.
    package func sourceIdentity(of entry: Entry) -> [UInt64]? {
        guard case .mapped(let file) = storage else { return nil }
        return file.identity + [UInt64(entry.dataOffset), UInt64(entry.size)]
    }

    /// Parses and validates `bytes` as a stored-entry zip archive.
    package init(bytes: [UInt8]) throws(ZipArchiveError) {
        try self.init(storage: .array(bytes))
    }

    /// Parses and validates the mapped `file` as a stored-entry zip archive, reading only its
    /// directory and local headers (entry data is read by `withContents(of:_:)`).
    init(mappedFile file: MappedFile) throws(ZipArchiveError) {
        try self.init(storage: .mapped(file))
    }

    private init(storage: Storage) throws(ZipArchiveError) {
        entries = try Self.withBytes(of: storage) { bytes throws(ZipArchiveError) in try Self.readEntries(of: bytes) }
        self.storage = storage
    }

    /// The entries of the archive in `bytes`, every record checked.
    private static func readEntries(of bytes: UnsafeRawBufferPointer) throws(ZipArchiveError) -> [Entry] {
        let end = try Self.findEndOfCentralDirectory(in: bytes)
        var entries: [Entry] = []
        entries.reserveCapacity(end.entryCount)
        var names: Set<String> = []
        var cursor = end.centralDirectoryOffset
        let centralDirectoryEnd = end.centralDirectoryOffset + end.centralDirectorySize
        for _ in 0..<end.entryCount {
            let record = try Self.readCentralRecord(
                in: bytes, at: cursor, regionEnd: centralDirectoryEnd)
            guard names.insert(record.name).inserted else {
                throw .duplicateEntry(name: record.name)
            }
            let dataOffset = try Self.validateLocalHeader(
                of: record, in: bytes, dataLimit: end.centralDirectoryOffset)
            entries.append(Entry(
                name: record.name, size: record.size, crc32: record.crc32, dataOffset: dataOffset))
            cursor = record.nextRecordOffset
        }
        guard cursor == centralDirectoryEnd else {
            throw .centralDirectorySizeMismatch(
                declared: end.centralDirectorySize, actual: cursor - end.centralDirectoryOffset)
        }
        return entries
    }

    /// The entry named `name`, if any.
    package func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// The data of `entry` (one of `entries`), after checking its CRC-32.
    package func contents(of entry: Entry) throws(ZipArchiveError) -> [UInt8] {
        try withContents(of: [entry]) { Array($0[0]) }
    }

    /// Calls `body` with the data of `entries` (some of `self.entries`), in that order, in
    /// place, without copying them, after checking the CRC-32 of each. The pointers are valid
    /// only inside `body`.
    /// - Throws: `ZipArchiveError.checksumMismatch` for the first entry that fails its check.
    func withContents<R>(
        of entries: [Entry], _ body: ([UnsafeRawBufferPointer]) -> R
    ) throws(ZipArchiveError) -> R {
        try Self.withBytes(of: storage) { bytes throws(ZipArchiveError) in
            var contents: [UnsafeRawBufferPointer] = []
            for entry in entries {
                // In bounds: `init` checked dataOffset + size <= the central directory's offset.
                let data = UnsafeRawBufferPointer(rebasing: bytes[entry.dataOffset..<(entry.dataOffset + entry.size)])
                let actual = CRC32.checksum(data)
                guard actual == entry.crc32 else {
                    throw .checksumMismatch(name: entry.name, expected: entry.crc32, actual: actual)
                }
                contents.append(data)
            }
            return body(contents)
        }
    }

    /// Calls `body` with all the bytes of `storage`.
    private static func withBytes<R>(
        of storage: Storage, _ body: (UnsafeRawBufferPointer) throws(ZipArchiveError) -> R
    ) throws(ZipArchiveError) -> R {
        switch storage {
        case .array(let bytes):
            // Array.withUnsafeBytes only rethrows untyped errors, so the typed error travels in a Result.
            return try bytes.withUnsafeBytes { raw in
                Result { () throws(ZipArchiveError) -> R in try body(raw) }
            }.get()
        case .mapped(let file):
            return try file.withUnsafeBytes(body)
        }
    }

    /// The data of the entry named `name`, after checking its CRC-32.
    ///
    /// - Throws: `ZipArchiveError.entryNotFound` listing the names present, or
    ///   `ZipArchiveError.checksumMismatch`.
    package func contents(ofEntryNamed name: String) throws(ZipArchiveError) -> [UInt8] {
        guard let entry = entry(named: name) else {
            throw .entryNotFound(name: name, available: entries.map(\.name))
        }
        return try contents(of: entry)
    }
}

// MARK: - Parsing

extension StoredZipArchive {
    private struct EndOfCentralDirectory {
        let entryCount: Int
        let centralDirectoryOffset: Int
        let centralDirectorySize: Int
    }

    private struct CentralRecord {
        let name: String
        /// Where the name's bytes are in the archive.
        let nameRange: Range<Int>
        let flags: UInt16
        let crc32: UInt32
        let size: Int
        let localHeaderOffset: Int
        let nextRecordOffset: Int
    }

    /// Finds the end-of-central-directory record: the last one whose comment ends exactly at the
    /// end of the data, searching the final 22 + 65 535 bytes.
    private static func findEndOfCentralDirectory(
        in bytes: UnsafeRawBufferPointer
    ) throws(ZipArchiveError) -> EndOfCentralDirectory {
        let recordSize = ZipFormat.endOfCentralDirectorySize
        guard bytes.count >= recordSize else { throw .endOfCentralDirectoryNotFound }
        let lastStart = bytes.count - recordSize
        let firstStart = max(0, lastStart - ZipFormat.maximumCommentLength)
        var found: Int?
        for start in stride(from: lastStart, through: firstStart, by: -1)
        where bytes.zipUInt32(at: start) == ZipFormat.endOfCentralDirectorySignature {
            // In bounds: start <= count - 22, and the comment length is at start + 20.
            let commentLength = Int(bytes.zipUInt16(at: start + 20)!)
            if start + recordSize + commentLength == bytes.count {
                found = start
                break
            }
        }
        guard let start = found else { throw .endOfCentralDirectoryNotFound }

        // All fields lie within the 22 bytes checked above.
        let diskNumber = bytes.zipUInt16(at: start + 4)!
        let centralDirectoryDisk = bytes.zipUInt16(at: start + 6)!
        let entriesOnDisk = bytes.zipUInt16(at: start + 8)!
        let totalEntries = bytes.zipUInt16(at: start + 10)!
        let centralDirectorySize = bytes.zipUInt32(at: start + 12)!
        let centralDirectoryOffset = bytes.zipUInt32(at: start + 16)!

        if start >= ZipFormat.zip64LocatorSize,
            bytes.zipUInt32(at: start - ZipFormat.zip64LocatorSize)
                == ZipFormat.zip64EndOfCentralDirectoryLocatorSignature
        {
            throw .zip64NotSupported
        }
        if [diskNumber, centralDirectoryDisk, entriesOnDisk, totalEntries].contains(ZipFormat.zip64Marker16)
            || centralDirectorySize == ZipFormat.zip64Marker32
            || centralDirectoryOffset == ZipFormat.zip64Marker32
        {
            throw .zip64NotSupported
        }
        guard diskNumber == 0, centralDirectoryDisk == 0, entriesOnDisk == totalEntries else {
            throw .multiDiskArchive
        }

        let offset = Int(centralDirectoryOffset)
        let size = Int(centralDirectorySize)
        // Cannot overflow: both are below 2^32 and Int has 64 bits.
        guard offset + size <= start else {
            throw .centralDirectoryOutOfBounds(offset: offset, size: size, endRecordOffset: start)
        }
        let entryCount = Int(totalEntries)
        // Cannot overflow: entryCount < 2^16.
        guard entryCount * ZipFormat.centralHeaderSize <= size else {
            throw .implausibleEntryCount(declared: entryCount, centralDirectorySize: size)
        }
        return EndOfCentralDirectory(
            entryCount: entryCount, centralDirectoryOffset: offset, centralDirectorySize: size)
    }

    /// Reads and checks the central-directory record at `offset`, which must end by `regionEnd`.
    private static func readCentralRecord(
        in bytes: UnsafeRawBufferPointer, at offset: Int, regionEnd: Int
    ) throws(ZipArchiveError) -> CentralRecord {
        let record = "central directory record"
        let fixedSize = ZipFormat.centralHeaderSize
        // Cannot overflow: offset <= regionEnd <= bytes.count.
        guard offset + fixedSize <= regionEnd else {
            throw .truncatedRecord(record: record, offset: offset)
        }
        // All fixed fields lie within the 46 bytes checked above.
        guard bytes.zipUInt32(at: offset) == ZipFormat.centralHeaderSignature else {
            throw .badSignature(record: record, offset: offset)
        }
        let flags = bytes.zipUInt16(at: offset + 8)!
        let method = bytes.zipUInt16(at: offset + 10)!
        let crc32 = bytes.zipUInt32(at: offset + 16)!
        let compressedSize = bytes.zipUInt32(at: offset + 20)!
        let uncompressedSize = bytes.zipUInt32(at: offset + 24)!
        let nameLength = Int(bytes.zipUInt16(at: offset + 28)!)
        let extraLength = Int(bytes.zipUInt16(at: offset + 30)!)
        let commentLength = Int(bytes.zipUInt16(at: offset + 32)!)
        let startDisk = bytes.zipUInt16(at: offset + 34)!
        let localHeaderOffset = bytes.zipUInt32(at: offset + 42)!

        // Cannot overflow: offset <= bytes.count and the three lengths are below 2^16.
        let nameStart = offset + fixedSize
        let nextRecordOffset = nameStart + nameLength + extraLength + commentLength
        guard nextRecordOffset <= regionEnd else {
            throw .truncatedRecord(record: record, offset: offset)
        }
        let nameRange = nameStart..<(nameStart + nameLength)
        guard nameLength > 0, let name = String(validating: bytes[nameRange], as: UTF8.self) else {
            throw .invalidEntryName(offset: offset)
        }

        if compressedSize == ZipFormat.zip64Marker32 || uncompressedSize == ZipFormat.zip64Marker32
            || localHeaderOffset == ZipFormat.zip64Marker32 || startDisk == ZipFormat.zip64Marker16
        {
            throw .zip64NotSupported
        }
        guard startDisk == 0 else { throw .multiDiskArchive }
        guard flags & (ZipFormat.flagEncrypted | ZipFormat.flagStrongEncryption) == 0 else {
            throw .encryptedEntry(name: name)
        }
        guard method == ZipFormat.methodStored else {
            throw .compressedEntry(name: name, method: Int(method))
        }
        guard compressedSize == uncompressedSize else {
            throw .inconsistentHeaders(name: name, field: "compressed size (a stored entry's sizes must agree)")
        }
        return CentralRecord(
            name: name, nameRange: nameRange, flags: flags, crc32: crc32,
            size: Int(uncompressedSize), localHeaderOffset: Int(localHeaderOffset),
            nextRecordOffset: nextRecordOffset)
    }

    /// Checks the local header of `record` against it and returns the offset of the entry's
    /// data, which must end by `dataLimit` (the start of the central directory).
    private static func validateLocalHeader(
        of record: CentralRecord, in bytes: UnsafeRawBufferPointer, dataLimit: Int
    ) throws(ZipArchiveError) -> Int {
        let offset = record.localHeaderOffset
        let name = record.name
        let fixedSize = ZipFormat.localHeaderSize
        // Cannot overflow: offset < 2^32 and Int has 64 bits.
        guard offset + fixedSize <= dataLimit else {
            throw .truncatedRecord(record: "local header of \"\(name)\"", offset: offset)
        }
        // All fixed fields lie within the 30 bytes checked above.
        guard bytes.zipUInt32(at: offset) == ZipFormat.localHeaderSignature else {
            throw .badSignature(record: "local header of \"\(name)\"", offset: offset)
        }
        let flags = bytes.zipUInt16(at: offset + 6)!
        let method = bytes.zipUInt16(at: offset + 8)!
        let crc32 = bytes.zipUInt32(at: offset + 14)!
        let compressedSize = bytes.zipUInt32(at: offset + 18)!
        let uncompressedSize = bytes.zipUInt32(at: offset + 22)!
        let nameLength = Int(bytes.zipUInt16(at: offset + 26)!)
        let extraLength = Int(bytes.zipUInt16(at: offset + 28)!)

        guard flags & (ZipFormat.flagEncrypted | ZipFormat.flagStrongEncryption) == 0 else {
            throw .encryptedEntry(name: name)
        }
        guard method == ZipFormat.methodStored else {
            throw .inconsistentHeaders(name: name, field: "compression method")
        }
        // Cannot overflow: offset < 2^32, the lengths are below 2^16 and size below 2^32.
        let nameStart = offset + fixedSize
        let dataOffset = nameStart + nameLength + extraLength
        guard dataOffset + record.size <= dataLimit else {
            throw .entryDataOutOfBounds(name: name)
        }
        guard bytes[nameStart..<(nameStart + nameLength)].elementsEqual(bytes[record.nameRange]) else {
            throw .inconsistentHeaders(name: name, field: "name")
        }
        // With a data descriptor (flag bit 3) the local CRC and sizes may be zero; the central
        // directory's values are authoritative either way.
        if record.flags & ZipFormat.flagDataDescriptor == 0 {
            guard crc32 == record.crc32 else {
                throw .inconsistentHeaders(name: name, field: "CRC-32")
            }
            guard Int(compressedSize) == record.size, Int(uncompressedSize) == record.size else {
                throw .inconsistentHeaders(name: name, field: "size")
            }
        }
        return dataOffset
    }
}
