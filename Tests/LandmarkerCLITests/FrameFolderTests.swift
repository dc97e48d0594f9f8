import Foundation
import Testing
@testable import landmarker

/// A folder of frames holding other things: subfolders (one named like a frame), a hidden
/// frame and a text file. `landmarker pose FOLDER` and an `extract` entry read the same frames,
/// the folder's own PNG and JPEG files, and nothing else.
@Suite struct FrameFolderTests {
    /// A folder with frames `a.png`, `b.png`, `c.PNG`, beside `notes.txt`, the hidden
    /// `.d.png`, the subfolder `sub` (with a frame of its own) and the subfolder `e.png`.
    private static func makeFolder(in folder: TemporaryFolder) throws {
        for name in ["frames/a.png", "frames/b.png", "frames/c.PNG", "frames/.d.png", "frames/sub/x.png",
                     "frames/e.png/y.png"] {
            try folder.writePNG(name)
        }
        try folder.write("not a frame", to: "frames/notes.txt")
    }

    @Test func poseReadsTheFolderFramesOnly() throws {
        let folder = try TemporaryFolder("frame-folder")
        defer { folder.remove() }
        try Self.makeFolder(in: folder)
        #expect(try FrameInput.frameNames(inFolder: folder["frames"]) == ["a.png", "b.png", "c.PNG"])
        // What `landmarker pose FOLDER` runs on (`LandmarkerRun.runVideo` opens it so).
        let input = try FrameInput.open(folder["frames"], folderFramesPerSecond: 30)
        var names: [String] = []
        try input.forEachFrame(quiet: true) { frame, _ in names.append(frame.name) }
        #expect(names == ["a.png", "b.png", "c.PNG"].map { folder["frames/" + $0] })
    }

    /// `landmarker holistic FOLDER --frame-step-us 33333`: frame k at (k + 1) · 33333 µs, the
    /// legacy solutions' clock, rounded down to milliseconds where milliseconds are shown; the
    /// rate of output videos follows the step. Without a step, --fps as before.
    @Test func aFrameStepTimesTheFramesInMicroseconds() throws {
        let folder = try TemporaryFolder("frame-folder")
        defer { folder.remove() }
        try Self.makeFolder(in: folder)
        let stepped = try FrameInput.open(folder["frames"], folderFramesPerSecond: 30, folderFrameStepMicroseconds: 33_333)
        var times: [(Int64, Int)] = []
        try stepped.forEachFrame(quiet: true) { frame, _ in times.append((frame.timestampMicroseconds, frame.timestampMs)) }
        #expect(times.map(\.0) == [33_333, 66_666, 99_999] && times.map(\.1) == [33, 66, 99])
        #expect(abs(stepped.framesPerSecond - 1_000_000.0 / 33_333) < 1e-9)
        let rated = try FrameInput.open(folder["frames"], folderFramesPerSecond: 25)
        var milliseconds: [Int] = []
        try rated.forEachFrame(quiet: true) { frame, _ in milliseconds.append(frame.timestampMs) }
        #expect(milliseconds == [0, 40, 80])
    }

    @Test func extractReadsAndHashesTheSameFrames() throws {
        let folder = try TemporaryFolder("frame-folder")
        defer { folder.remove() }
        try Self.makeFolder(in: folder)
        try folder.write("frames\n", to: "manifest.txt")
        try Extraction.standIn(["--manifest", folder["manifest.txt"], "--out", folder["out"], "--quiet"], in: folder)
            .runFindingNothing()
        #expect(folder.files(in: "out") == ["frames.ndjson"])
        let lines = try folder.lines(of: "out/frames.ndjson")
        let header = try #require(ExtractionHeader.read(fromFirstLineOf: folder["out/frames.ndjson"]))
        #expect(header.frames == 3 && lines.count == 4)
        struct Record: Decodable { let image: String }
        #expect(try lines.dropFirst().map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)).image }
                == ["a.png", "b.png", "c.PNG"])

        // The input's hash covers the frames only: changing anything else keeps it.
        let entry = DatasetManifest.Entry(
            index: 0, path: "frames", resolvedPath: folder["frames"], name: "frames", outputName: "frames")
        try folder.write("other notes", to: "frames/notes.txt")
        try folder.writePNG("frames/sub/z.png")
        #expect(try InputDescription(entry) == header.input)
        // and changing a frame does not.
        try folder.writePNG("frames/b.png", level: 7)
        #expect(try InputDescription(entry) != header.input)
    }
}
