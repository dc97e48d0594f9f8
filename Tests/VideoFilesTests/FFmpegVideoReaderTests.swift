import Foundation
import ImageIO
import TestSupport
import Testing
@testable import VideoFiles

/// `FFmpegVideoReader` against ffmpeg's own rawvideo output, on clips made here from the sample
/// clip's frames (`samples/bus_tilt`, written by `scripts/fetch_samples.sh`).
@Suite struct FFmpegVideoReaderTests {
    /// A temporary folder with a 30-frame clip encoded by ffmpeg at 25 fps; removed by `remove()`.
    private struct Clips {
        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("landmarker-video-\(UInt64.random(in: 0...UInt64.max))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

        /// `ffmpeg ARGUMENTS` with errors only; fails the test when it fails.
        @discardableResult
        func ffmpeg(_ arguments: [String]) throws -> Data {
            try Self.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + arguments)
        }

        /// Encodes the sample clip's frames into `name` with the given extra output arguments.
        func encode(_ name: String, _ output: [String] = []) throws -> String {
            let frames = try Fixtures.sample("bus_tilt/frame_0000.png")
            let pattern = URL(fileURLWithPath: frames).deletingLastPathComponent().path + "/frame_%04d.png"
            try ffmpeg(["-framerate", "25", "-i", pattern] + output + [path(name)])
            return path(name)
        }

        /// The first `byteCount` bytes of `file`, written to `name` (a download cut short).
        func cut(_ file: String, to byteCount: (Int) -> Int, as name: String) throws -> String {
            let whole = try Data(contentsOf: URL(fileURLWithPath: file))
            try whole.prefix(byteCount(whole.count)).write(to: URL(fileURLWithPath: path(name)))
            return path(name)
        }

        /// What `ffmpeg -i FILE [-fps_mode passthrough] -f rawvideo -pix_fmt rgb24 -` writes.
        func rawFrames(_ file: String, passthrough: Bool = false) throws -> Data {
            try ffmpeg(["-i", file] + (passthrough ? ["-fps_mode", "passthrough"] : [])
                       + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        }

        /// Runs `arguments` through the library's own `ChildProcess` (Foundation's `Process`
        /// leaks a weak reference that LeakSanitizer reports) and returns its standard output.
        static func run(_ arguments: [String]) throws -> Data {
            let process: ChildProcess
            do {
                process = try ChildProcess(arguments)
            } catch {
                throw Fixtures.Missing(path: arguments[0], hint: "install ffmpeg: scripts/system_packages.sh --video")
            }
            var output = Data()
            var chunk = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = try ChildProcess.readFully(process.standardOutput, into: &chunk)
                output.append(contentsOf: chunk[..<count])
                if count < chunk.count { break }
            }
            guard process.wait() == 0 else {
                throw Fixtures.Missing(path: arguments.joined(separator: " "), hint: "the command failed")
            }
            return output
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    /// Every frame of `reader`, with its timestamp, concatenated as ffmpeg's rawvideo would be.
    private func readAll(_ reader: FFmpegVideoReader) throws -> (bytes: Data, timestamps: [Int], size: (Int, Int)?) {
        var bytes = Data()
        var timestamps: [Int] = []
        var size: (Int, Int)?
        while let frame = try reader.nextFrame() {
            bytes.append(contentsOf: frame.image.pixels)
            timestamps.append(frame.timestampMs)
            size = (frame.image.width, frame.image.height)
        }
        return (bytes, timestamps, size)
    }

    @Test func framesEqualFFmpegsRawOutputWithPresentationTimes() throws {
        let clips = try Clips()
        defer { clips.remove() }
        let clip = try clips.encode("clip.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let reader = try FFmpegVideoReader(path: clip)
        #expect(reader.probe.frameCount == 30)
        #expect(reader.probe.framesPerSecond == 25)
        let (bytes, timestamps, size) = try readAll(reader)
        #expect(size?.0 == 520 && size?.1 == 700)
        #expect(timestamps == (0..<30).map { $0 * 40 })
        let expected = try clips.rawFrames(clip)
        #expect(expected.count == 30 * 520 * 700 * 3)
        #expect(bytes == expected)
        #expect(try reader.nextFrame() == nil)
    }

    @Test func rotationMetadataIsApplied() throws {
        let clips = try Clips()
        defer { clips.remove() }
        let clip = try clips.encode("clip.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let rotated = clips.path("rotated.mp4")
        try clips.ffmpeg(["-i", clip, "-c", "copy", "-metadata:s:v", "rotate=90", rotated])
        let (bytes, _, size) = try readAll(try FFmpegVideoReader(path: rotated))
        #expect(size?.0 == 700 && size?.1 == 520)
        #expect(bytes == (try clips.rawFrames(rotated)))
    }

    @Test func variableFrameRateGivesEachFramesOwnTime() throws {
        let clips = try Clips()
        defer { clips.remove() }
        // Frame n shown at n² × 10 ms: 0, 10, 40, 90, …
        let clip = try clips.encode("vfr.mkv", [
            "-vf", "settb=1/1000,setpts=N*N*10", "-fps_mode", "passthrough", "-enc_time_base", "1:1000", "-c:v", "ffv1",
        ])
        let reader = try FFmpegVideoReader(path: clip)
        let (bytes, timestamps, _) = try readAll(reader)
        #expect(timestamps == (0..<30).map { $0 * $0 * 10 })
        // ffmpeg's default raw output repeats frames to a constant rate; passthrough gives each once.
        #expect(bytes == (try clips.rawFrames(clip, passthrough: true)))
        #expect(bytes.count == 30 * 520 * 700 * 3)
    }

    @Test func aFileThatIsNotAVideoIsRefused() throws {
        let clips = try Clips()
        defer { clips.remove() }
        // Text under a video's name, and an MP4 cut after its first kilobyte (no index).
        let text = clips.path("notes.mp4")
        try Data(String(repeating: "not a video\n", count: 1000).utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: VideoFileError.self) { try FFmpegVideoReader(path: text) }
        let whole = try clips.encode("whole.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        let cut = clips.path("cut.mp4")
        try Data(try Data(contentsOf: URL(fileURLWithPath: whole)).prefix(1024)).write(to: URL(fileURLWithPath: cut))
        #expect(throws: VideoFileError.self) { try FFmpegVideoReader(path: cut) }
        // Random bytes: ffprobe takes some of them for a raw stream (H.263 without a picture size,
        // seed 15784947920552585176), which is refused too; whatever it makes of them, opening and
        // reading give frames or a typed error, never anything else.
        var generator = SeededGenerator.announced("aFileThatIsNotAVideoIsRefused")
        let garbage = clips.path("garbage.mp4")
        try Data((0..<65_536).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: garbage))
        do {
            let reader = try FFmpegVideoReader(path: garbage)
            while let frame = try reader.nextFrame() {
                #expect(frame.image.width > 0 && frame.image.height > 0)
            }
        } catch {
            // Refused when opened or read: a `VideoFileError`, the only error these throw.
        }
        let missing = clips.path("missing.mp4")
        let error = try #require(throws: VideoFileError.self) { try FFmpegVideoReader(path: missing) }
        #expect(error.description.contains(missing))
        // A still image is one frame, not an error.
        let still = try readAll(try FFmpegVideoReader(path: try Fixtures.sample("bus.jpg")))
        #expect(still.timestamps.count == 1)
    }

    /// The error `reader` throws by its end, with the frames it gave before; fails the test when
    /// it throws none.
    private func failureAtEnd(_ reader: FFmpegVideoReader) -> (error: VideoFileError?, frames: Int) {
        var frames = 0
        do {
            while try reader.nextFrame() != nil { frames += 1 }
            Issue.record("\(reader.path): read to its end without an error, \(frames) frames")
            return (nil, frames)
        } catch {
            return (error, frames)
        }
    }

    @Test func aHalfDownloadedMP4IsCutShort() throws {
        let clips = try Clips()
        defer { clips.remove() }
        // ffmpeg's test pattern, 90 frames; the index at the front (+faststart) names them all,
        // the first half of the file holds about a third of them.
        let clip = clips.path("clip.mp4")
        try clips.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=128x96:rate=25:duration=3.6", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            "-movflags", "+faststart", clip,
        ])
        let half = try clips.cut(clip, to: { $0 / 2 }, as: "half.mp4")
        let (error, frames) = failureAtEnd(try FFmpegVideoReader(path: half))
        guard case let .cutShort(path, shortfall) = error else {
            Issue.record("not cut short: \(String(describing: error))")
            return
        }
        #expect(path == half)
        #expect(shortfall.promise == .frameCount(90))
        #expect(shortfall.framesDecoded == frames && frames > 0 && frames < 88)
        #expect(!shortfall.decoderErrors.isEmpty, "ffmpeg's own complaints are kept")
        #expect(!shortfall.decoderErrors.contains { $0.contains(" @ 0x") }, "without the demuxer's address")
        #expect(error?.description.hasPrefix("\(half): video ends at frame \(frames) of 90: cut short or corrupt (ffmpeg: ")
            == true)

        // Accepted, the same frames come, then the end, and the shortfall is kept.
        let accepting = try FFmpegVideoReader(path: half, acceptingShortfall: true)
        #expect(accepting.shortfall == nil)
        let (_, timestamps, _) = try readAll(accepting)
        #expect(timestamps.count == frames)
        // The same promise and frame count; ffmpeg's error lines may come in another order
        // (its decoder threads write them), so they are not compared.
        #expect(accepting.shortfall?.promise == shortfall.promise)
        #expect(accepting.shortfall?.framesDecoded == shortfall.framesDecoded)
        #expect(accepting.shortfall?.decoderErrors.isEmpty == false)
        #expect(try accepting.nextFrame() == nil)
    }

    @Test func aMatroskaFileCutShortFallsShortOfItsDuration() throws {
        let clips = try Clips()
        defer { clips.remove() }
        // Matroska states no frame count: its stream's DURATION tag (1.2 s) is the promise.
        let clip = try clips.encode("clip.mkv", ["-c:v", "ffv1"])
        #expect(try VideoProbe(path: clip).durationSeconds == 1.2)
        let cut = try clips.cut(clip, to: { $0 / 2 }, as: "cut.mkv")
        let (error, frames) = failureAtEnd(try FFmpegVideoReader(path: cut))
        guard case let .cutShort(_, shortfall) = error, case let .duration(seconds, decodedSeconds) = shortfall.promise else {
            Issue.record("not cut short of a duration: \(String(describing: error))")
            return
        }
        #expect(seconds == 1.2 && shortfall.framesDecoded == frames && frames < 28)
        #expect(abs(decodedSeconds - Double(frames) * 0.04) < 0.0015)
    }

    @Test func wholeFilesAreNotShort() throws {
        let clips = try Clips()
        defer { clips.remove() }
        // Audio lasting 3 s beside 1.2 s of video: the file's duration is the audio's, the
        // video stream's own is the promise.
        let withAudio = try clips.encode(
            "audio.mkv", ["-f", "lavfi", "-i", "sine=duration=3", "-map", "0:v", "-map", "1:a", "-c:v", "ffv1", "-c:a", "flac"])
        #expect(abs((try VideoProbe(path: withAudio).durationSeconds ?? 0) - 1.2) < 1e-6)
        for clip in [withAudio, try clips.encode("clip.avi", ["-c:v", "mpeg4"])] {
            let reader = try FFmpegVideoReader(path: clip)
            #expect(try readAll(reader).timestamps.count == 30, "\(clip)")
            #expect(reader.shortfall == nil)
        }
    }

    @Test func aVideoWithoutFramesIsRefused() throws {
        let clips = try Clips()
        defer { clips.remove() }
        // A WebM cut right after its first cluster's ID: a header with a picture size, no frame.
        let clip = try clips.encode("clip.webm", ["-frames:v", "2", "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8"])
        let whole = try Data(contentsOf: URL(fileURLWithPath: clip))
        let cluster = try #require(whole.firstRange(of: Data([0x1F, 0x43, 0xB6, 0x75])))
        let empty = try clips.cut(clip, to: { _ in cluster.upperBound - whole.startIndex }, as: "empty.webm")
        for accepting in [false, true] {
            let reader = try FFmpegVideoReader(path: empty, acceptingShortfall: accepting)
            #expect(throws: VideoFileError.noFrames(path: empty)) { try reader.nextFrame() }
            #expect(try reader.nextFrame() == nil)
        }
        #expect(VideoFileError.noFrames(path: empty).description == "\(empty): the video has no frames")
    }

    @Test func closingEarlyStopsFFmpeg() throws {
        let clips = try Clips()
        defer { clips.remove() }
        let clip = try clips.encode("clip.mkv", ["-c:v", "ffv1"])
        let reader = try FFmpegVideoReader(path: clip)
        #expect(try reader.nextFrame()?.index == 0)
        reader.close()
        #expect(try reader.nextFrame() == nil)
    }

    @Test func aMissingProgramNamesThePackage() throws {
        let error = try #require(throws: VideoFileError.self) { try ChildProcess(["landmarker-no-such-program"]) }
        #expect(error == .programNotFound("landmarker-no-such-program"))
        #expect(VideoFileError.programNotFound("ffmpeg").description.contains("apt-get install ffmpeg"))
    }
}
