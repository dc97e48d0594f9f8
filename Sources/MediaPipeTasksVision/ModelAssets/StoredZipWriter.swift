/// Builds a zip archive of *stored* (uncompressed) entries in memory, for example a `.task`
/// model bundle from `.tflite` files.
///
/// The output is reproducible: every entry carries the same fixed date (1980-01-01 00:00), no
/// extra fields and no comments, so equal inputs give equal bytes. Zip64 is not written, so an
/// archive is limited to 65 534 entries and 4 GiB.
///
/// ```swift
/// var writer = StoredZipWriter()
/// try writer.addEntry(named: "pose_detector.tflite", contents: detectorBytes)
/// try writer.addEntry(named: "pose_landmarks_detector.tflite", contents: landmarksBytes)
/// let bundle = try writer.finish()
/// ```
///
/// Thread safety: a `Sendable` value; each copy builds its own archive. Call its mutating methods
/// on one copy from one thread at a time.
package struct StoredZipWriter: Sendable {
    private var output: [UInt8] = []
    private var centralDirectory: [UInt8] = []
    private var names: Set<String> = []
    private var entryCount = 0

    package init() {}

    /// Appends an entry.
    ///
    /// - Throws: `ZipArchiveError.unwritableEntryName` for an empty name or one over 65 535
    ///   UTF-8 bytes, `ZipArchiveError.duplicateEntry` for a name already added, and
    ///   `ZipArchiveError.archiveTooLarge` when the archive would need zip64.
    package mutating func addEntry(named name: String, contents: [UInt8]) throws(ZipArchiveError) {
        let nameBytes = Array(name.utf8)
        guard !nameBytes.isEmpty, nameBytes.count <= Int(UInt16.max) else {
            throw .unwritableEntryName(name: name)
        }
        guard !names.contains(name) else { throw .duplicateEntry(name: name) }
        // Values equal to the zip64 markers (0xFFFF, 0xFFFFFFFF) are reserved, hence `<`.
        guard entryCount < Int(ZipFormat.zip64Marker16) - 1,
            contents.count < Int(ZipFormat.zip64Marker32),
            output.count < Int(ZipFormat.zip64Marker32)
        else {
            throw .archiveTooLarge
        }
        let localHeaderOffset = UInt32(output.count)
        let size = UInt32(contents.count)
        let crc32 = CRC32.checksum(contents)
        let isASCII = nameBytes.allSatisfy { $0 < 0x80 }
        let flags: UInt16 = isASCII ? 0 : ZipFormat.flagUTF8Name

        output.appendZipUInt32(ZipFormat.localHeaderSignature)
        output.appendZipUInt16(ZipFormat.versionNeededStored)
        Self.appendCommonFields(to: &output, flags: flags, crc32: crc32, size: size, nameLength: nameBytes.count)
        output.appendZipUInt16(0)  // extra field length
        output.append(contentsOf: nameBytes)
        output.append(contentsOf: contents)

        centralDirectory.appendZipUInt32(ZipFormat.centralHeaderSignature)
        centralDirectory.appendZipUInt16(ZipFormat.versionMadeBy)
        centralDirectory.appendZipUInt16(ZipFormat.versionNeededStored)
        Self.appendCommonFields(
            to: &centralDirectory, flags: flags, crc32: crc32, size: size, nameLength: nameBytes.count)
        centralDirectory.appendZipUInt16(0)  // extra field length
        centralDirectory.appendZipUInt16(0)  // comment length
        centralDirectory.appendZipUInt16(0)  // disk number start
        centralDirectory.appendZipUInt16(0)  // internal attributes
        centralDirectory.appendZipUInt32(ZipFormat.regularFileAttributes)
        centralDirectory.appendZipUInt32(localHeaderOffset)
        centralDirectory.append(contentsOf: nameBytes)

        names.insert(name)
        entryCount += 1
    }

    /// The complete archive: the entries, the central directory and its end record.
    ///
    /// - Throws: `ZipArchiveError.archiveTooLarge` when the central directory's offset or size
    ///   does not fit in 32 bits.
    package func finish() throws(ZipArchiveError) -> [UInt8] {
        guard output.count < Int(ZipFormat.zip64Marker32),
            centralDirectory.count < Int(ZipFormat.zip64Marker32)
        else {
            throw .archiveTooLarge
        }
        var archive = output
        archive.reserveCapacity(
            output.count + centralDirectory.count + ZipFormat.endOfCentralDirectorySize)
        archive.append(contentsOf: centralDirectory)
        archive.appendZipUInt32(ZipFormat.endOfCentralDirectorySignature)
        archive.appendZipUInt16(0)  // this disk
        archive.appendZipUInt16(0)  // disk holding the central directory
        archive.appendZipUInt16(UInt16(entryCount))  // entries on this disk
        archive.appendZipUInt16(UInt16(entryCount))  // entries in total
        archive.appendZipUInt32(UInt32(centralDirectory.count))
        archive.appendZipUInt32(UInt32(output.count))
        archive.appendZipUInt16(0)  // comment length
        return archive
    }

    /// The fields from "flags" to "name length" that local and central headers share.
    /// Static on purpose: an instance method would also hold `self`, and with it a second
    /// reference to the array passed `inout`, so every append would copy that whole array.
    private static func appendCommonFields(
        to bytes: inout [UInt8], flags: UInt16, crc32: UInt32, size: UInt32, nameLength: Int
    ) {
        bytes.appendZipUInt16(flags)
        bytes.appendZipUInt16(ZipFormat.methodStored)
        bytes.appendZipUInt16(ZipFormat.fixedDOSTime)
        bytes.appendZipUInt16(ZipFormat.fixedDOSDate)
        bytes.appendZipUInt32(crc32)
        bytes.appendZipUInt32(size)  // compressed size
        bytes.appendZipUInt32(size)  // uncompressed size
        bytes.appendZipUInt16(UInt16(nameLength))
    }
}
