import ArgumentParser
import Foundation
import Testing
@testable import landmarker

/// Entries whose names are too long for the file system's 255 bytes (with `.ndjson`,
/// `.error.json` and the temporary files' additions): a readable prefix and a SHA-256, recorded
/// in the header; entries of one name still collide.
@Suite struct ExtractOutputNameTests {
    /// 200 × "é" (400 bytes), which no file system takes with `.ndjson` after it.
    private static let longName = String(repeating: "é", count: 200)

    @Test func aLongNameIsHashedAndRecordedInTheHeader() throws {
        let folder = try TemporaryFolder("long-names")
        defer { folder.remove() }
        // A folder of frames can be named with 250 bytes; with `.ndjson` the output could not.
        let entryName = String(repeating: "f", count: 250)
        try folder.writePNG(entryName + "/a.png")
        try folder.writePNG("short/a.png")
        try folder.write("\(entryName)\nshort\n", to: "manifest.txt")
        try Extraction.standIn(["--manifest", folder["manifest.txt"], "--out", folder["out"], "--quiet"], in: folder)
            .runFindingNothing()

        let sha256 = try FileDigest.sha256(ofText: entryName)
        let outputName = String(repeating: "f", count: 149) + "-" + sha256.prefix(16)
        #expect(outputName.utf8.count == DatasetManifest.maxOutputNameBytes)
        #expect(folder.files(in: "out") == [outputName + ".ndjson", "short.ndjson"])
        let header = try #require(ExtractionHeader.read(fromFirstLineOf: folder["out/\(outputName).ndjson"]))
        #expect(header.shortenedName?.name == entryName && header.shortenedName?.sha256 == sha256)
        #expect(header.input.path == entryName && header.frames == 1)
        let line = try folder.lines(of: "out/\(outputName).ndjson")[0]
        #expect(line.contains("\"shortenedName\":{\"name\":\"\(entryName)\",\"sha256\":\"\(sha256)\"}"))
        // A name that fits keeps it, and its header has no `shortenedName`.
        #expect(try !folder.lines(of: "out/short.ndjson")[0].contains("shortenedName"))

        // A rerun finds it done.
        var redone = 0
        try Extraction.standIn(["--manifest", folder["manifest.txt"], "--out", folder["out"], "--quiet"], in: folder)
            .run { redone += 1; return EntryRun { _, _ in NothingFound() } }
        #expect(redone == 0, "an entry was redone")
    }

    @Test func aLongEntryThatFailsGetsItsErrorFileUnderTheHashedName() throws {
        let folder = try TemporaryFolder("long-names")
        defer { folder.remove() }
        try folder.write("missing/\(Self.longName).mp4\n", to: "manifest.txt")
        #expect(throws: ExitCode.failure) {
            try Extraction.standIn(["--manifest", folder["manifest.txt"], "--out", folder["out"], "--quiet"], in: folder)
                .runFindingNothing()
        }
        let outputName = try DatasetManifest.outputName(for: Self.longName, sha256: FileDigest.sha256(ofText:))
        #expect(folder.files(in: "out") == [outputName + ".error.json"])
        // 74 × "é" (2 bytes each) fill 148 of the 149 bytes before the hash; a 75th would not fit.
        #expect(outputName.hasPrefix(String(repeating: "é", count: 74) + "-") && outputName.utf8.count == 148 + 17)
    }

    @Test func entriesOfOneLongNameStillCollide() throws {
        let sha256 = FileDigest.sha256(ofText:)
        #expect(throws: DatasetManifest.Refusal.self) {
            try DatasetManifest(text: "a/\(Self.longName).mp4\nb/\(Self.longName).mkv\n", folder: "/d",
                                describing: "m.txt", sha256: sha256)
        }
        // Two long names that differ only past the prefix do not.
        let manifest = try DatasetManifest(
            text: "\(Self.longName)a.mp4\n\(Self.longName)b.mp4\n", folder: "/d", describing: "m.txt", sha256: sha256)
        #expect(manifest.entries[0].outputName != manifest.entries[1].outputName)
        // A short name that spells another entry's hashed name collides with it.
        let hashed = try DatasetManifest.outputName(for: Self.longName, sha256: sha256)
        do {
            _ = try DatasetManifest(text: "\(Self.longName).mp4\nclips/\(hashed).mp4\n", folder: "/d", describing: "m.txt",
                                    sha256: sha256)
            Issue.record("a hashed name and the same name written out did not collide")
        } catch let refusal as DatasetManifest.Refusal {
            #expect(refusal.description.hasSuffix("would both write \(hashed).ndjson; rename one"))
        }
    }
}
