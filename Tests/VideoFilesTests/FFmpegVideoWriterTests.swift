import Foundation
import Testing
@testable import VideoFiles

/// `FFmpegVideoWriter`: what it writes reads back with the frames' count, size and rate, and a
/// failed or cancelled write leaves no file.
@Suite struct FFmpegVideoWriterTests {
    private static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("landmarker-writer-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A frame of `width × height` RGB pixels: a horizontal grey ramp, brighter with `index`.
    private static func frame(width: Int, height: Int, index: Int) -> [UInt8] {
        (0..<(width * height)).flatMap { i -> [UInt8] in
            let value = UInt8(min(255, (i % width) * 200 / width + index * 5))
            return [value, value, value]
        }
    }

    @Test(arguments: ["clip.mp4", "clip.mkv", "clip.webm"])
    func writtenFramesReadBack(name: String) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        // An odd size: 4:2:0 output is padded to even, and reads back padded.
        let writer = try FFmpegVideoWriter(path: path, width: 63, height: 41, framesPerSecond: 25, layout: .rgb24)
        for index in 0..<10 { try writer.write(Self.frame(width: 63, height: 41, index: index)) }
        #expect(!FileManager.default.fileExists(atPath: path))
        try writer.finish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [name])
        let reader = try FFmpegVideoReader(path: path)
        var frames: [FFmpegVideoReader.Frame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        #expect(frames.map(\.timestampMs) == (0..<10).map { $0 * 40 })
        #expect(frames.allSatisfy { $0.image.width == 64 && $0.image.height == 42 })
        // Lossy, but the ramp is still there: the middle of the first row within a few levels.
        let expected = Self.frame(width: 63, height: 41, index: 9)[31 * 3]
        let actual = try #require(frames.last).image.pixels[31 * 3]
        #expect(abs(Int(actual) - Int(expected)) <= 12)
    }

    @Test func greyFramesAndAFractionalRate() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("mask.mp4").path
        let writer = try FFmpegVideoWriter(path: path, width: 32, height: 32, framesPerSecond: 29.97, layout: .gray8)
        for index in 0..<5 { try writer.write([UInt8](repeating: UInt8(index * 50), count: 32 * 32)) }
        try writer.finish()
        let reader = try FFmpegVideoReader(path: path)
        #expect(reader.probe.frameCount == 5)
        #expect(abs((reader.probe.framesPerSecond ?? 0) - 29.97) < 0.001)
    }

    @Test func twoWritersAndAReaderAtOnceAllFinish() throws {
        // Each child must hold only its own pipes: an ffmpeg that inherited another's input
        // would keep it open, and that one would never see the end of its frames.
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try FFmpegVideoWriter(
            path: folder.appendingPathComponent("a.mkv").path, width: 16, height: 16, framesPerSecond: 25, layout: .gray8)
        let second = try FFmpegVideoWriter(
            path: folder.appendingPathComponent("b.mkv").path, width: 16, height: 16, framesPerSecond: 25, layout: .rgb24)
        for _ in 0..<3 {
            try first.write([UInt8](repeating: 9, count: 256))
            try second.write([UInt8](repeating: 9, count: 768))
        }
        try first.finish()
        let reader = try FFmpegVideoReader(path: folder.appendingPathComponent("a.mkv").path)
        try second.finish()
        var count = 0
        while try reader.nextFrame() != nil { count += 1 }
        #expect(count == 3)
    }

    @Test func aFailedOrCancelledWriteLeavesNoFile() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // ffmpeg cannot create a file in a missing folder: finish() fails, nothing is left.
        let missing = folder.appendingPathComponent("missing/clip.mp4").path
        let failing = try FFmpegVideoWriter(path: missing, width: 16, height: 16, framesPerSecond: 25, layout: .gray8)
        var failed = false
        do {
            for _ in 0..<3 { try failing.write([UInt8](repeating: 0, count: 256)) }
            try failing.finish()
        } catch {
            failed = true
        }
        #expect(failed)
        #expect(!FileManager.default.fileExists(atPath: missing))

        let cancelled = folder.appendingPathComponent("cancelled.mp4").path
        let writer = try FFmpegVideoWriter(path: cancelled, width: 16, height: 16, framesPerSecond: 25, layout: .gray8)
        try writer.write([UInt8](repeating: 0, count: 256))
        #expect(throws: VideoFileError.self) { try writer.write([UInt8](repeating: 0, count: 255)) }
        writer.cancel()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func absurdSizesAndRatesAreRefused() throws {
        // Refused before ffmpeg starts: nothing is written at this path.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("landmarker-refused.mp4").path
        #expect(throws: VideoFileError.self) {
            try FFmpegVideoWriter(path: path, width: 0, height: 10, framesPerSecond: 25, layout: .rgb24)
        }
        #expect(throws: VideoFileError.self) {
            try FFmpegVideoWriter(path: path, width: 1 << 20, height: 1 << 20, framesPerSecond: 25, layout: .rgb24)
        }
        #expect(throws: VideoFileError.self) {
            try FFmpegVideoWriter(path: path, width: 10, height: 10, framesPerSecond: 0, layout: .rgb24)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
