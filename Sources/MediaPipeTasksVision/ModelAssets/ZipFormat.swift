/// Record layouts of the zip format (PKWARE APPNOTE) that the stored-entry reader and writer
/// use. All multi-byte fields are little-endian.
enum ZipFormat {
    static let localHeaderSignature: UInt32 = 0x0403_4B50
    static let centralHeaderSignature: UInt32 = 0x0201_4B50
    static let endOfCentralDirectorySignature: UInt32 = 0x0605_4B50
    static let zip64EndOfCentralDirectoryLocatorSignature: UInt32 = 0x0706_4B50

    /// Fixed sizes, before the variable-length name, extra field and comment.
    static let localHeaderSize = 30
    static let centralHeaderSize = 46
    static let endOfCentralDirectorySize = 22
    static let zip64LocatorSize = 20
    static let maximumCommentLength = 0xFFFF

    /// Compression method 0: the data is stored as is.
    static let methodStored: UInt16 = 0

    /// General-purpose flag bits.
    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
    static let flagStrongEncryption: UInt16 = 1 << 6
    static let flagUTF8Name: UInt16 = 1 << 11

    /// Field values that mean "see the zip64 extra field".
    static let zip64Marker16: UInt16 = 0xFFFF
    static let zip64Marker32: UInt32 = 0xFFFF_FFFF

    /// "Version needed to extract" for stored entries: 1.0.
    static let versionNeededStored: UInt16 = 10
    /// "Version made by": Unix attribute compatibility (high byte 3), spec 2.0.
    static let versionMadeBy: UInt16 = 3 << 8 | 20
    /// External attributes of written entries: a Unix regular file (0o100000) with mode
    /// rw-r--r-- (0o644), in the high 16 bits.
    static let regularFileAttributes: UInt32 = 0o100644 << 16
    /// MS-DOS date of 1980-01-01 (day 1, month 1, year 1980 + 0) and time 00:00:00: the
    /// earliest a zip can hold, used by the writer so that its output is reproducible.
    static let fixedDOSDate: UInt16 = (0 << 9) | (1 << 5) | 1
    static let fixedDOSTime: UInt16 = 0
}

extension RandomAccessCollection where Element == UInt8, Index == Int {
    /// The little-endian `UInt16` `offset` bytes from the start, or nil when it does not fit.
    func zipUInt16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        let i = startIndex + offset
        return UInt16(self[i]) | UInt16(self[i + 1]) << 8
    }

    /// The little-endian `UInt32` `offset` bytes from the start, or nil when it does not fit.
    func zipUInt32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        let i = startIndex + offset
        return UInt32(self[i]) | UInt32(self[i + 1]) << 8
            | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as two little-endian bytes.
    mutating func appendZipUInt16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends `value` as four little-endian bytes.
    mutating func appendZipUInt32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) {
            append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }
}
