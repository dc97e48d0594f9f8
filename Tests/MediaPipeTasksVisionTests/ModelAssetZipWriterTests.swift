import TestSupport
import Testing

@testable import MediaPipeTasksVision

@Suite("Stored zip writer")
struct ModelAssetZipWriterTests {
    private static let pythonEntries: [(String, [UInt8])] = [
        ("pose_detector.tflite", Array("detector bytes".utf8)),
        ("pose_landmarks_detector.tflite", Array("landmarks!".utf8)),
        ("empty.txt", []),
        ("café.txt", [0x00, 0xFF, 0x10]),
    ]

    @Test("writes the same bytes as Python's zipfile with the same metadata")
    func matchesPythonZipfile() throws {
        var writer = StoredZipWriter()
        for (name, contents) in Self.pythonEntries {
            try writer.addEntry(named: name, contents: contents)
        }
        #expect(try writer.finish() == pythonZipfileTestArchive)
    }

    @Test("round-trips through the reader, in order")
    func roundTrip() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        var entries: [(String, [UInt8])] = []
        for index in 0..<20 {
            let count = Int.random(in: 0...3000, using: &generator)
            entries.append(("member\(index).bin", (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        var writer = StoredZipWriter()
        for (name, contents) in entries { try writer.addEntry(named: name, contents: contents) }
        let archive = try StoredZipArchive(bytes: try writer.finish())
        #expect(archive.entries.map(\.name) == entries.map(\.0), "seed \(seed)")
        for (name, contents) in entries {
            #expect(try archive.contents(ofEntryNamed: name) == contents, "seed \(seed), \(name)")
        }
    }

    @Test("the layout has the sizes the zip format prescribes")
    func layout() throws {
        var writer = StoredZipWriter()
        try writer.addEntry(named: "a.tflite", contents: [1, 2, 3, 4, 5])
        try writer.addEntry(named: "bc", contents: [])
        let bytes = try writer.finish()
        // Local headers: 30 + name + data each; central records: 46 + name; end record: 22.
        let localSize = (30 + 8 + 5) + (30 + 2 + 0)
        let centralSize = (46 + 8) + (46 + 2)
        #expect(bytes.count == localSize + centralSize + 22)
        #expect(Array(bytes[0..<4]) == [0x50, 0x4B, 0x03, 0x04])
        #expect(Array(bytes[localSize..<(localSize + 4)]) == [0x50, 0x4B, 0x01, 0x02])
        let end = bytes.count - 22
        #expect(Array(bytes[end..<(end + 4)]) == [0x50, 0x4B, 0x05, 0x06])
        #expect(bytes.zipUInt16(at: end + 10) == 2)
        #expect(bytes.zipUInt32(at: end + 12) == UInt32(centralSize))
        #expect(bytes.zipUInt32(at: end + 16) == UInt32(localSize))
        // Method 0 (stored) in both headers of the first entry.
        #expect(bytes.zipUInt16(at: 8) == 0)
        #expect(bytes.zipUInt16(at: localSize + 10) == 0)
    }

    @Test("equal inputs give equal bytes")
    func reproducible() throws {
        func build() throws -> [UInt8] {
            var writer = StoredZipWriter()
            try writer.addEntry(named: "x", contents: [9, 8, 7])
            return try writer.finish()
        }
        #expect(try build() == build())
    }

    @Test("an empty archive is just an end record")
    func emptyArchive() throws {
        let bytes = try StoredZipWriter().finish()
        #expect(bytes.count == 22)
        #expect(try StoredZipArchive(bytes: bytes).entries.isEmpty)
    }

    @Test("names that cannot be written, and duplicates, are refused")
    func badNames() throws {
        var writer = StoredZipWriter()
        #expect(throws: ZipArchiveError.unwritableEntryName(name: "")) {
            try writer.addEntry(named: "", contents: [1])
        }
        let longName = String(repeating: "n", count: 65536)
        #expect(throws: ZipArchiveError.unwritableEntryName(name: longName)) {
            try writer.addEntry(named: longName, contents: [1])
        }
        try writer.addEntry(named: String(repeating: "n", count: 65535), contents: [1])
        try writer.addEntry(named: "model.tflite", contents: [1])
        #expect(throws: ZipArchiveError.duplicateEntry(name: "model.tflite")) {
            try writer.addEntry(named: "model.tflite", contents: [2])
        }
        let archive = try StoredZipArchive(bytes: try writer.finish())
        #expect(archive.entries.count == 2)
    }

    @Test("at most 65534 entries, since 65535 marks zip64")
    func entryLimit() throws {
        var writer = StoredZipWriter()
        for index in 0..<65534 {
            try writer.addEntry(named: String(index), contents: [])
        }
        #expect(throws: ZipArchiveError.archiveTooLarge) {
            try writer.addEntry(named: "one too many", contents: [])
        }
        let archive = try StoredZipArchive(bytes: try writer.finish())
        #expect(archive.entries.count == 65534)
        #expect(archive.entries.last?.name == "65533")
    }
}
