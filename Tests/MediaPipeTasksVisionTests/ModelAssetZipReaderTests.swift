import TestSupport
import Testing

@testable import MediaPipeTasksVision

/// A stored-entry zip archive assembled field by field in the test (independently of
/// `StoredZipWriter`), with the offset of every record, so that tests can corrupt chosen fields.
struct HandBuiltZip {
    var bytes: [UInt8] = []
    var localHeaderOffsets: [Int] = []
    var centralRecordOffsets: [Int] = []
    var centralDirectoryOffset = 0
    var endRecordOffset = 0

    /// Entries `(name, data)` in order, followed by an optional archive comment.
    init(_ entries: [(String, [UInt8])], comment: [UInt8] = []) {
        var central: [UInt8] = []
        var centralRelativeOffsets: [Int] = []
        for (name, data) in entries {
            let nameBytes = Array(name.utf8)
            let crc = CRC32.checksum(data)
            localHeaderOffsets.append(bytes.count)
            Self.put32(&bytes, 0x0403_4B50)
            Self.put16(&bytes, 10)  // version needed
            Self.put16(&bytes, 0)  // flags
            Self.put16(&bytes, 0)  // method: stored
            Self.put16(&bytes, 0)  // time
            Self.put16(&bytes, 0x21)  // date
            Self.put32(&bytes, crc)
            Self.put32(&bytes, UInt32(data.count))
            Self.put32(&bytes, UInt32(data.count))
            Self.put16(&bytes, UInt16(nameBytes.count))
            Self.put16(&bytes, 0)  // extra length
            bytes += nameBytes + data

            centralRelativeOffsets.append(central.count)
            Self.put32(&central, 0x0201_4B50)
            Self.put16(&central, 20)  // made by
            Self.put16(&central, 10)  // needed
            Self.put16(&central, 0)  // flags
            Self.put16(&central, 0)  // method
            Self.put16(&central, 0)  // time
            Self.put16(&central, 0x21)  // date
            Self.put32(&central, crc)
            Self.put32(&central, UInt32(data.count))
            Self.put32(&central, UInt32(data.count))
            Self.put16(&central, UInt16(nameBytes.count))
            Self.put16(&central, 0)  // extra
            Self.put16(&central, 0)  // comment
            Self.put16(&central, 0)  // disk start
            Self.put16(&central, 0)  // internal attributes
            Self.put32(&central, 0)  // external attributes
            Self.put32(&central, UInt32(localHeaderOffsets.last!))
            central += nameBytes
        }
        centralDirectoryOffset = bytes.count
        centralRecordOffsets = centralRelativeOffsets.map { $0 + centralDirectoryOffset }
        bytes += central
        endRecordOffset = bytes.count
        Self.put32(&bytes, 0x0605_4B50)
        Self.put16(&bytes, 0)
        Self.put16(&bytes, 0)
        Self.put16(&bytes, UInt16(entries.count))
        Self.put16(&bytes, UInt16(entries.count))
        Self.put32(&bytes, UInt32(central.count))
        Self.put32(&bytes, UInt32(centralDirectoryOffset))
        Self.put16(&bytes, UInt16(comment.count))
        bytes += comment
    }

    mutating func set16(at offset: Int, _ value: UInt16) {
        bytes[offset] = UInt8(value & 0xFF)
        bytes[offset + 1] = UInt8(value >> 8)
    }

    mutating func set32(at offset: Int, _ value: UInt32) {
        for index in 0..<4 { bytes[offset + index] = UInt8((value >> (8 * UInt32(index))) & 0xFF) }
    }

    static func put16(_ bytes: inout [UInt8], _ value: UInt16) {
        bytes += [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    static func put32(_ bytes: inout [UInt8], _ value: UInt32) {
        bytes += (0..<4).map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
    }

    /// Two entries used by most tests.
    static var sample: HandBuiltZip {
        HandBuiltZip([("pose_detector.tflite", Array("detector".utf8)), ("b.bin", [0, 1, 2, 255])])
    }
}

/// Decodes a hex string (whitespace ignored) to bytes.
func modelAssetTestBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

/// An archive written by Python's `zipfile` (ZIP_STORED; entries pose_detector.tflite =
/// "detector bytes", pose_landmarks_detector.tflite = "landmarks!", empty.txt = "",
/// "café.txt" = 00 ff 10; date 1980-01-01, create_system 3, create_version 20,
/// extract_version 10, external_attr 0o100644 << 16). It is an oracle produced by another
/// implementation, for the reader and, byte for byte, for the writer.
let pythonZipfileTestArchive = modelAssetTestBytes("""
    504b03040a000000000000002100137f6dc40e0000000e00000014000000706f73655f6465746563746f722e74666c69
    74656465746563746f72206279746573504b03040a000000000000002100d4f726040a0000000a0000001e000000706f
    73655f6c616e646d61726b735f6465746563746f722e74666c6974656c616e646d61726b7321504b03040a0000000000
    0000210000000000000000000000000009000000656d7074792e747874504b03040a0000080000000021000434d27103
    0000000300000009000000636166c3a92e74787400ff10504b010214030a000000000000002100137f6dc40e0000000e
    000000140000000000000000000000a48100000000706f73655f6465746563746f722e74666c697465504b010214030a
    000000000000002100d4f726040a0000000a0000001e0000000000000000000000a48140000000706f73655f6c616e64
    6d61726b735f6465746563746f722e74666c697465504b010214030a0000000000000021000000000000000000000000
    00090000000000000000000000a48186000000656d7074792e747874504b010214030a0000080000000021000434d271
    0300000003000000090000000000000000000000a481ad000000636166c3a92e747874504b05060000000004000400fc
    000000d70000000000
    """)

@Suite("Stored zip reader")
struct ModelAssetZipReaderTests {
    @Test("CRC-32 gives the standard check value")
    func crcCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test("CRC-32 of contiguous bytes, eight at a time, equals the byte-at-a-time sum")
    func crcEightBytesAtATime() {
        // Every length up to 70 from every start offset mod 8; a lazy view has no
        // contiguous storage, so it takes the byte-at-a-time path.
        let data = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }
        for start in 0..<8 {
            for count in 0...70 {
                let bytes = data[start..<(start + count)]
                #expect(CRC32.checksum(bytes) == CRC32.checksum(bytes.lazy.map { $0 }), "start \(start), count \(count)")
            }
        }
    }

    @Test("reads an archive written by Python's zipfile")
    func readsPythonArchive() throws {
        let archive = try StoredZipArchive(bytes: pythonZipfileTestArchive)
        #expect(archive.entries.map(\.name)
            == ["pose_detector.tflite", "pose_landmarks_detector.tflite", "empty.txt", "café.txt"])
        #expect(try archive.contents(ofEntryNamed: "pose_detector.tflite") == Array("detector bytes".utf8))
        #expect(try archive.contents(ofEntryNamed: "pose_landmarks_detector.tflite") == Array("landmarks!".utf8))
        #expect(try archive.contents(ofEntryNamed: "empty.txt") == [])
        #expect(try archive.contents(ofEntryNamed: "café.txt") == [0x00, 0xFF, 0x10])
        #expect(archive.entry(named: "café.txt")?.size == 3)
    }

    @Test("reads a hand-built archive, with and without an archive comment")
    func readsHandBuiltArchive() throws {
        for comment in [[], Array("a comment".utf8)] {
            let zip = HandBuiltZip([("x", [1, 2, 3]), ("dir/y", [])], comment: comment)
            let archive = try StoredZipArchive(bytes: zip.bytes)
            #expect(archive.entries.map(\.name) == ["x", "dir/y"])
            #expect(try archive.contents(ofEntryNamed: "x") == [1, 2, 3])
            #expect(try archive.contents(ofEntryNamed: "dir/y") == [])
        }
    }

    @Test("an empty archive has no entries")
    func emptyArchive() throws {
        let archive = try StoredZipArchive(bytes: HandBuiltZip([]).bytes)
        #expect(archive.entries.isEmpty)
        #expect(throws: ZipArchiveError.entryNotFound(name: "a", available: [])) {
            try archive.contents(ofEntryNamed: "a")
        }
    }

    @Test("a missing entry is reported with the names present")
    func missingEntry() throws {
        let archive = try StoredZipArchive(bytes: HandBuiltZip.sample.bytes)
        #expect(throws: ZipArchiveError.entryNotFound(
            name: "hand_detector.tflite", available: ["pose_detector.tflite", "b.bin"])) {
            try archive.contents(ofEntryNamed: "hand_detector.tflite")
        }
    }

    @Test("data that is not a zip archive")
    func notAZip() {
        for bytes in [[], Array(repeating: 0, count: 21), Array("hello, world".utf8),
                      Array(repeating: 0x50, count: 1000)] as [[UInt8]] {
            #expect(throws: ZipArchiveError.endOfCentralDirectoryNotFound) {
                try StoredZipArchive(bytes: bytes)
            }
        }
    }

    @Test("every truncation of a valid archive is rejected without trapping")
    func truncations() throws {
        let bytes = HandBuiltZip.sample.bytes
        for length in 0..<bytes.count {
            #expect(throws: ZipArchiveError.self, "prefix of \(length) bytes") {
                try StoredZipArchive(bytes: Array(bytes[0..<length]))
            }
        }
        #expect(throws: ZipArchiveError.endOfCentralDirectoryNotFound) {
            try StoredZipArchive(bytes: HandBuiltZip.sample.bytes + [0])
        }
    }

    @Test("end record: bad signature, wrong comment length, multi-disk, zip64")
    func endRecordDefects() {
        var zip = HandBuiltZip.sample
        zip.bytes[zip.endRecordOffset] = 0x51
        #expect(throws: ZipArchiveError.endOfCentralDirectoryNotFound) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.endRecordOffset + 20, 3)
        #expect(throws: ZipArchiveError.endOfCentralDirectoryNotFound) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.endRecordOffset + 4, 1)
        #expect(throws: ZipArchiveError.multiDiskArchive) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.endRecordOffset + 8, 1)
        #expect(throws: ZipArchiveError.multiDiskArchive) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.endRecordOffset + 8, 0xFFFF)
        zip.set16(at: zip.endRecordOffset + 10, 0xFFFF)
        #expect(throws: ZipArchiveError.zip64NotSupported) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.endRecordOffset + 16, 0xFFFF_FFFF)
        #expect(throws: ZipArchiveError.zip64NotSupported) { try StoredZipArchive(bytes: zip.bytes) }
    }

    @Test("a zip64 end-of-central-directory locator is refused")
    func zip64Locator() {
        let zip = HandBuiltZip.sample
        var locator: [UInt8] = []
        HandBuiltZip.put32(&locator, 0x0706_4B50)
        locator += Array(repeating: 0, count: 16)
        // Insert the locator just before the end record; the end record still points at the
        // unchanged central directory.
        let bytes = Array(zip.bytes[..<zip.endRecordOffset]) + locator + Array(zip.bytes[zip.endRecordOffset...])
        #expect(throws: ZipArchiveError.zip64NotSupported) { try StoredZipArchive(bytes: bytes) }
    }

    @Test("central directory offsets and sizes past the end")
    func centralDirectoryBounds() {
        var zip = HandBuiltZip.sample
        let size = zip.endRecordOffset - zip.centralDirectoryOffset
        zip.set32(at: zip.endRecordOffset + 16, 0x7FFF_0000)
        #expect(throws: ZipArchiveError.centralDirectoryOutOfBounds(
            offset: 0x7FFF_0000, size: size, endRecordOffset: zip.endRecordOffset)) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.endRecordOffset + 12, UInt32(size + 1))
        #expect(throws: ZipArchiveError.centralDirectoryOutOfBounds(
            offset: zip.centralDirectoryOffset, size: size + 1, endRecordOffset: zip.endRecordOffset)) {
            try StoredZipArchive(bytes: zip.bytes)
        }
    }

    @Test("entry counts that do not match the central directory")
    func entryCounts() {
        var zip = HandBuiltZip.sample
        let size = zip.endRecordOffset - zip.centralDirectoryOffset
        zip.set16(at: zip.endRecordOffset + 8, 60000)
        zip.set16(at: zip.endRecordOffset + 10, 60000)
        #expect(throws: ZipArchiveError.implausibleEntryCount(declared: 60000, centralDirectorySize: size)) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.endRecordOffset + 8, 1)
        zip.set16(at: zip.endRecordOffset + 10, 1)
        #expect(throws: ZipArchiveError.centralDirectorySizeMismatch(
            declared: size, actual: zip.centralRecordOffsets[1] - zip.centralDirectoryOffset)) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        // Names long enough that three fixed-size records would fit in the directory's size.
        zip = HandBuiltZip([(String(repeating: "a", count: 40), [1]), (String(repeating: "b", count: 40), [2])])
        zip.set16(at: zip.endRecordOffset + 8, 3)
        zip.set16(at: zip.endRecordOffset + 10, 3)
        #expect(throws: ZipArchiveError.truncatedRecord(
            record: "central directory record", offset: zip.endRecordOffset)) {
            try StoredZipArchive(bytes: zip.bytes)
        }
    }

    @Test("central directory records: bad signature, name past the end, bad names")
    func centralRecordDefects() {
        var zip = HandBuiltZip.sample
        zip.bytes[zip.centralRecordOffsets[1]] = 0
        #expect(throws: ZipArchiveError.badSignature(
            record: "central directory record", offset: zip.centralRecordOffsets[1])) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.centralRecordOffsets[1] + 28, 500)
        #expect(throws: ZipArchiveError.truncatedRecord(
            record: "central directory record", offset: zip.centralRecordOffsets[1])) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip([("\u{0}bad", [1])])
        zip.bytes[zip.centralRecordOffsets[0] + 46] = 0xFF
        #expect(throws: ZipArchiveError.invalidEntryName(offset: zip.centralRecordOffsets[0])) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip([("", [1])])
        #expect(throws: ZipArchiveError.invalidEntryName(offset: zip.centralRecordOffsets[0])) {
            try StoredZipArchive(bytes: zip.bytes)
        }
    }

    @Test("compressed, encrypted and zip64 entries are refused")
    func unsupportedEntries() {
        var zip = HandBuiltZip.sample
        zip.set16(at: zip.centralRecordOffsets[0] + 10, 8)
        #expect(throws: ZipArchiveError.compressedEntry(name: "pose_detector.tflite", method: 8)) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.centralRecordOffsets[1] + 8, 1)
        #expect(throws: ZipArchiveError.encryptedEntry(name: "b.bin")) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.localHeaderOffsets[1] + 6, 1)
        #expect(throws: ZipArchiveError.encryptedEntry(name: "b.bin")) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.centralRecordOffsets[0] + 20, 0xFFFF_FFFF)
        zip.set32(at: zip.centralRecordOffsets[0] + 24, 0xFFFF_FFFF)
        #expect(throws: ZipArchiveError.zip64NotSupported) { try StoredZipArchive(bytes: zip.bytes) }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.centralRecordOffsets[0] + 42, 0xFFFF_FFFF)
        #expect(throws: ZipArchiveError.zip64NotSupported) { try StoredZipArchive(bytes: zip.bytes) }
    }

    @Test("duplicate entry names are refused")
    func duplicateNames() {
        let zip = HandBuiltZip([("same.tflite", [1]), ("other", [2]), ("same.tflite", [3])])
        #expect(throws: ZipArchiveError.duplicateEntry(name: "same.tflite")) {
            try StoredZipArchive(bytes: zip.bytes)
        }
    }

    @Test("local headers: bad signature, offset or data past the end")
    func localHeaderBounds() {
        var zip = HandBuiltZip.sample
        zip.bytes[zip.localHeaderOffsets[1] + 1] = 0
        #expect(throws: ZipArchiveError.badSignature(
            record: "local header of \"b.bin\"", offset: zip.localHeaderOffsets[1])) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.centralRecordOffsets[0] + 42, UInt32(zip.centralDirectoryOffset - 10))
        #expect(throws: ZipArchiveError.truncatedRecord(
            record: "local header of \"pose_detector.tflite\"", offset: zip.centralDirectoryOffset - 10)) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.centralRecordOffsets[0] + 42, 0x7000_0000)
        #expect(throws: ZipArchiveError.truncatedRecord(
            record: "local header of \"pose_detector.tflite\"", offset: 0x7000_0000)) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        // Sizes that agree everywhere but run into the central directory.
        zip = HandBuiltZip.sample
        for (header, fields) in [(zip.centralRecordOffsets[1], [20, 24]), (zip.localHeaderOffsets[1], [18, 22])] {
            for field in fields { zip.set32(at: header + field, 0x00FF_FFFF) }
        }
        #expect(throws: ZipArchiveError.entryDataOutOfBounds(name: "b.bin")) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.localHeaderOffsets[1] + 28, 0xFFFF)
        #expect(throws: ZipArchiveError.entryDataOutOfBounds(name: "b.bin")) {
            try StoredZipArchive(bytes: zip.bytes)
        }
    }

    @Test("local headers that contradict the central directory")
    func inconsistentHeaders() {
        var zip = HandBuiltZip.sample
        zip.bytes[zip.localHeaderOffsets[0] + 30] = UInt8(ascii: "P")
        #expect(throws: ZipArchiveError.inconsistentHeaders(name: "pose_detector.tflite", field: "name")) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set16(at: zip.localHeaderOffsets[0] + 8, 8)
        #expect(throws: ZipArchiveError.inconsistentHeaders(
            name: "pose_detector.tflite", field: "compression method")) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.localHeaderOffsets[0] + 14, 0x1234_5678)
        #expect(throws: ZipArchiveError.inconsistentHeaders(name: "pose_detector.tflite", field: "CRC-32")) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.localHeaderOffsets[0] + 22, 3)
        #expect(throws: ZipArchiveError.inconsistentHeaders(name: "pose_detector.tflite", field: "size")) {
            try StoredZipArchive(bytes: zip.bytes)
        }

        zip = HandBuiltZip.sample
        zip.set32(at: zip.centralRecordOffsets[0] + 20, 3)
        #expect(throws: ZipArchiveError.inconsistentHeaders(
            name: "pose_detector.tflite", field: "compressed size (a stored entry's sizes must agree)")) {
            try StoredZipArchive(bytes: zip.bytes)
        }
    }

    @Test("with a data descriptor flag, local CRC and sizes may be zero")
    func dataDescriptor() throws {
        var zip = HandBuiltZip.sample
        let local = zip.localHeaderOffsets[0]
        zip.set16(at: local + 6, 1 << 3)
        zip.set16(at: zip.centralRecordOffsets[0] + 8, 1 << 3)
        for field in [14, 18, 22] { zip.set32(at: local + field, 0) }
        let archive = try StoredZipArchive(bytes: zip.bytes)
        #expect(try archive.contents(ofEntryNamed: "pose_detector.tflite") == Array("detector".utf8))
    }

    @Test("corrupt entry data fails its CRC-32 check")
    func corruptData() throws {
        var zip = HandBuiltZip.sample
        // "b.bin" data starts after its 30-byte header and 5-byte name.
        zip.bytes[zip.localHeaderOffsets[1] + 35] ^= 0x01
        let archive = try StoredZipArchive(bytes: zip.bytes)
        #expect(try archive.contents(ofEntryNamed: "pose_detector.tflite") == Array("detector".utf8))
        #expect(throws: ZipArchiveError.checksumMismatch(
            name: "b.bin", expected: CRC32.checksum([0, 1, 2, 255]), actual: CRC32.checksum([1, 1, 2, 255]))) {
            try archive.contents(ofEntryNamed: "b.bin")
        }
    }

    @Test("random corruption never traps; what parses stays in bounds")
    func randomCorruption() {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        let original = pythonZipfileTestArchive
        for iteration in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            guard let archive = try? StoredZipArchive(bytes: bytes) else { continue }
            for entry in archive.entries {
                do {
                    let data = try archive.contents(of: entry)
                    #expect(data.count == entry.size, "seed \(seed), iteration \(iteration)")
                } catch {
                    guard case .checksumMismatch = error else {
                        Issue.record("seed \(seed), iteration \(iteration): unexpected \(error)")
                        return
                    }
                }
            }
        }
    }

    @Test("error messages name the problem")
    func messages() {
        #expect(ZipArchiveError.compressedEntry(name: "m.tflite", method: 8).description.contains("m.tflite"))
        #expect(ZipArchiveError.checksumMismatch(name: "m", expected: 0xAB, actual: 1).description
            .contains("0x000000ab"))
        #expect(ZipArchiveError.entryNotFound(name: "x", available: ["a", "b"]).description.contains("a, b"))
    }
}
