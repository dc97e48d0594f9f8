import ArgumentParser
import Foundation
@testable import ImageIO
import Testing
@testable import VideoFiles
@testable import landmarker

/// A video cut short, or without frames, as `pose`/`hand` and `extract` take it: a failure
/// (exit status 1, the entry's `.error.json`, no output file) unless `--allow-short` accepts a
/// short one (a warning, the shortfall in `extract`'s header). The landmarker is a stand-in
/// that finds nothing, so that the tests need no model; the clips come from ffmpeg's test
/// pattern.
@Suite struct VideoCompletenessTests {
    /// A temporary folder with `whole.mp4` (90 frames at 25 fps, the index at the front), `cut.mp4`
    /// (its first half: the index names 90 frames, the data holds fewer) and `empty.y4m` (a
    /// YUV4MPEG2 header without frames); removed by `remove()`.
    private struct Clips {
        let folder: String

        init() throws {
            folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("landmarker-completeness-\(UInt64.random(in: 0...UInt64.max))").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Self.ffmpeg([
                "-f", "lavfi", "-i", "testsrc=size=128x96:rate=25:duration=3.6", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-movflags", "+faststart", self["whole.mp4"],
            ])
            let whole = try Data(contentsOf: URL(fileURLWithPath: self["whole.mp4"]))
            try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: self["cut.mp4"]))
            try Data("YUV4MPEG2 W64 H48 F25:1 C420jpeg\n".utf8).write(to: URL(fileURLWithPath: self["empty.y4m"]))
        }

        subscript(_ name: String) -> String { folder + "/" + name }

        /// The names in `subfolder` (hidden ones too), sorted; none when it does not exist.
        func files(in subfolder: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: self[subfolder])) ?? []).sorted()
        }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }

        /// `ffmpeg ARGUMENTS` with errors only, through the library's `ChildProcess` (Foundation's
        /// `Process` leaks a weak reference that LeakSanitizer reports); throws when it fails.
        static func ffmpeg(_ arguments: [String]) throws {
            let process = try ChildProcess(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments)
            var sink = [UInt8](repeating: 0, count: 1 << 16)
            while try ChildProcess.readFully(process.standardOutput, into: &sink) == sink.count {}
            guard process.wait() == 0 else { throw CommandFailure("ffmpeg \(arguments.joined(separator: " ")) failed") }
        }
    }

    /// A result with nothing found: no fields of its own in a record.
    private struct NothingFound: RecordFields {
        func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {}
    }

    /// `pose`/`hand`'s video loop with the stand-in landmarker, drawing blank frames.
    private let run = LandmarkerRun<NothingFound>(
        detectImage: { _ in NothingFound() },
        detectFrame: { _, _ in NothingFound() },
        describe: { _, _ in ("0 pose(s)", []) },
        draw: { _, image in
            RGBImage(validatedWidth: image.width, height: image.height,
                     pixels: [UInt8](repeating: 0, count: image.width * image.height * 3))
        },
        maskPixels: nil)

    /// The message of the `CommandFailure` `body` throws; fails the test when it throws none.
    private func failure(_ body: () throws -> Void) -> String {
        do {
            try body()
        } catch let failure as CommandFailure {
            return failure.message
        } catch {
            Issue.record("not a CommandFailure: \(error)")
            return ""
        }
        Issue.record("no failure")
        return ""
    }

    @Test func aVideoCutShortFailsAndWritesNoVideo() throws {
        let clips = try Clips()
        defer { clips.remove() }
        let annotate = clips["drawn/out.mp4"]
        let outputs = try OutputPlan(for: .video(clips["cut.mp4"]), requests: [.annotate: annotate], keepPaths: false)
        let message = failure {
            try run.runVideo(clips["cut.mp4"], folderFramesPerSecond: 30, json: true, outputs: outputs, quiet: true,
                             allowShort: false)
        }
        #expect(message.hasPrefix(clips["cut.mp4"] + ": video ends at frame "), "\(message)")
        #expect(message.contains(" of 90: cut short or corrupt"), "\(message)")
        #expect(clips.files(in: "drawn").isEmpty, "no output video, whole or partial: \(clips.files(in: "drawn"))")

        // With --allow-short the same run succeeds and writes its video.
        try run.runVideo(clips["cut.mp4"], folderFramesPerSecond: 30, json: true, outputs: outputs, quiet: true,
                         allowShort: true)
        #expect(clips.files(in: "drawn") == ["out.mp4"])
    }

    @Test func allowShortKeepsTheShortfall() throws {
        let clips = try Clips()
        defer { clips.remove() }
        let input = try FrameInput.open(clips["cut.mp4"], folderFramesPerSecond: 30, acceptingShortfall: true)
        var frames = 0
        try input.forEachFrame(quiet: true) { _, _ in frames += 1 }
        let shortfall = try #require(input.shortfall)
        #expect(shortfall.framesDecoded == frames && frames > 0 && frames < 88)
        #expect(shortfall.promise == .frameCount(90))
        let whole = try FrameInput.open(clips["whole.mp4"], folderFramesPerSecond: 30, acceptingShortfall: true)
        try whole.forEachFrame(quiet: true) { _, _ in }
        #expect(whole.shortfall == nil)
    }

    @Test func aY4MStreamWithoutFramesFails() throws {
        let clips = try Clips()
        defer { clips.remove() }
        for allowShort in [false, true] {
            let message = failure {
                try run.runVideo(clips["empty.y4m"], folderFramesPerSecond: 30, json: true,
                                 outputs: try OutputPlan(for: .video(clips["empty.y4m"]), requests: [:], keepPaths: false),
                                 quiet: true, allowShort: allowShort)
            }
            #expect(message == clips["empty.y4m"] + ": the video has no frames")
        }
    }

    @Test func allowShortAppliesToVideoOnly() throws {
        #expect(throws: ValidationError.self) {
            try InputChoice.images(["a.jpg"]).checkOptions(fps: nil, quiet: false, allowShort: true)
        }
        try InputChoice.video("clip.mp4").checkOptions(fps: nil, quiet: false, allowShort: true)
    }

    @Test func extractFailsAShortEntryUnlessAllowedAndRecordsTheShortfall() throws {
        let clips = try Clips()
        defer { clips.remove() }
        try "cut.mp4\nempty.y4m\nwhole.mp4\n".write(toFile: clips["manifest.txt"], atomically: true, encoding: .utf8)
        try "a stand-in model".write(toFile: clips["model.task"], atomically: true, encoding: .utf8)
        func extract(_ extra: [String]) throws {
            let dataset = try ExtractCommand.DatasetOptions.parse(
                ["--manifest", clips["manifest.txt"], "--out", clips["out"], "--quiet"] + extra)
            let extraction = try Extraction(
                manifest: ExtractCommand.readManifest(dataset.manifest), dataset: dataset, task: "pose", options: [:],
                modelPath: clips["model.task"])
            try extraction.run { EntryRun { _, _ in NothingFound() } }
        }
        func header(_ name: String) throws -> ExtractionHeader {
            try #require(ExtractionHeader.read(fromFirstLineOf: clips["out/" + name]))
        }

        // Strict: the short entry and the empty one fail with their messages; no output, no
        // temporary file; the whole one is done, without a shortfall.
        #expect(throws: ExitCode.failure) { try extract([]) }
        #expect(clips.files(in: "out") == ["cut.error.json", "empty.error.json", "whole.ndjson"])
        let cutError = try String(contentsOfFile: clips["out/cut.error.json"], encoding: .utf8)
        #expect(cutError.contains(" of 90: cut short or corrupt"), "\(cutError)")
        #expect(try String(contentsOfFile: clips["out/empty.error.json"], encoding: .utf8).contains("the video has no frames"))
        #expect(try header("whole.ndjson").shortfall == nil)
        #expect(try header("whole.ndjson").frames == 90)

        // Allowed: the short entry is done, its header records the shortfall; the empty one
        // still fails.
        #expect(throws: ExitCode.failure) { try extract(["--allow-short"]) }
        #expect(clips.files(in: "out") == ["cut.ndjson", "empty.error.json", "whole.ndjson"])
        let cut = try header("cut.ndjson")
        let shortfall = try #require(cut.shortfall)
        #expect(shortfall.framesPromised == 90 && shortfall.framesDecoded == cut.frames)
        #expect(shortfall.durationSeconds == nil && shortfall.decodedSeconds == nil)
        let lines = try String(contentsOfFile: clips["out/cut.ndjson"], encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1 + (cut.frames ?? -1))
        #expect(lines[0].contains("\"shortfall\":{\"framesDecoded\":\(shortfall.framesDecoded),\"framesPromised\":90}"))

        // Resume: a run that allows short videos skips it; one that does not redoes it, and fails it.
        let before = try Data(contentsOf: URL(fileURLWithPath: clips["out/cut.ndjson"]))
        #expect(throws: ExitCode.failure) { try extract(["--allow-short"]) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: clips["out/cut.ndjson"])) == before)
        #expect(throws: ExitCode.failure) { try extract([]) }
        #expect(clips.files(in: "out").contains("cut.error.json"))
    }
}
