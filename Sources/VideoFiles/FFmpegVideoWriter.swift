import Dispatch
import Synchronization
import SystemInterface
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Encodes raw frames into a video file (any format the system's `ffmpeg` writes, chosen by
/// the file name's extension: `.mp4`, `.mkv`, `.webm`, `.avi`, …) through an `ffmpeg` child
/// process reading them on its standard input.
///
/// The video has exactly the frames written, at a constant `framesPerSecond`. ffmpeg writes to
/// a temporary name beside the output (`PartialFileName`: same extension, so the same format)
/// which `finish()` renames once ffmpeg has succeeded: a file under the output's name is always whole.
/// `cancel()`, a failure or `deinit` without `finish()` removes the temporary file.
///
/// Not thread-safe: use one writer from one thread at a time.
public final class FFmpegVideoWriter {
    /// The layout of the frames written.
    public enum PixelLayout: String, Sendable {
        /// Packed R, G, B bytes (ffmpeg's `rgb24`).
        case rgb24
        /// One grey byte per pixel (ffmpeg's `gray`).
        case gray8 = "gray"

        var bytesPerPixel: Int { self == .rgb24 ? 3 : 1 }
    }

    /// The output file.
    public let path: String
    public let width: Int
    public let height: Int
    public let layout: PixelLayout
    /// Frames written so far.
    public private(set) var frameCount = 0

    /// Where ffmpeg writes until `finish()` renames it to `path` (`PartialFileName`).
    public let temporaryPath: String
    /// The ffmpeg process's id, until `finish()` or `cancel()` has waited for it.
    public var processIdentifier: pid_t { process.pid }

    private let process: ChildProcess
    private let messages = ErrorLines()
    private let errorReader = DispatchGroup()
    private var done = false

    /// Starts `ffmpeg` writing `path` (through its temporary name).
    /// - Parameters:
    ///   - width, height: every frame's size in pixels (> 0; 4:2:0 encoders need even sizes,
    ///     which ffmpeg pads with the `pad` filter here).
    ///   - framesPerSecond: the video's constant rate, in (0, 1000].
    /// - Throws: `VideoFileError.programNotFound` without ffmpeg, `.unsupportedSize` for a size
    ///   without pixels or a rate outside that range.
    public init(path: String, width: Int, height: Int, framesPerSecond: Double, layout: PixelLayout) throws(VideoFileError) {
        guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14 else {
            throw .unsupportedSize(width: width, height: height, maxPixelCount: (1 << 14) * (1 << 14))
        }
        guard framesPerSecond > 0, framesPerSecond <= 1000 else {
            throw .io("a video's frame rate must be in (0, 1000] frames per second, not \(framesPerSecond)")
        }
        self.path = path
        self.width = width
        self.height = height
        self.layout = layout
        temporaryPath = PartialFileName.path(for: path)
        process = try ChildProcess([
            "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-loglevel", "error", "-y",
            "-f", "rawvideo", "-pix_fmt", layout.rawValue, "-video_size", "\(width)x\(height)",
            "-framerate", Self.rateText(framesPerSecond), "-i", "-",
            // Even sizes for the 4:2:0 formats most players need; the padding is black.
            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-pix_fmt", "yuv420p", temporaryPath,
        ], writesInput: true)
        let messages = self.messages
        let descriptor = process.standardError
        DispatchQueue.global().async(group: errorReader) {
            var chunk = [UInt8](repeating: 0, count: 4096)
            var text: [UInt8] = []
            while let count = try? ChildProcess.readFully(descriptor, into: &chunk), count > 0 {
                text.append(contentsOf: chunk[..<count])
                if count < chunk.count { break }
            }
            let lines = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
            messages.append(lines)
        }
    }

    deinit { cancel() }

    /// Appends one frame: `width × height × layout.bytesPerPixel` bytes, rows top to bottom.
    /// - Throws: `VideoFileError.frameSizeMismatch` for another byte count, `.decoderFailed`
    ///   when ffmpeg stopped reading (the writer is then cancelled).
    public func write(_ pixels: [UInt8]) throws(VideoFileError) {
        let expected = width * height * layout.bytesPerPixel
        guard pixels.count == expected else {
            throw .frameSizeMismatch(expected: "\(width)x\(height) \(layout.rawValue)", actual: "\(pixels.count) bytes")
        }
        guard !done else { throw .io("\(path): the writer is already finished") }
        let result = pixels.withUnsafeBytes { bytes in
            Result { () throws(VideoFileError) in try process.write(bytes) }
        }
        do {
            try result.get()
        } catch {
            let status = stop()
            throw .decoderFailed(path: path, status: status, message: lastMessages(or: "\(error)"))
        }
        frameCount += 1
    }

    /// Ends the stream, waits for ffmpeg and renames the temporary file to `path`.
    /// - Throws: `VideoFileError.decoderFailed` when ffmpeg failed (nothing is left at `path`'s
    ///   temporary name, and `path` is untouched).
    public func finish() throws(VideoFileError) {
        guard !done else { return }
        let status = stop()
        guard status == 0 else {
            throw .decoderFailed(path: path, status: status, message: lastMessages(or: "no message"))
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = systemErrorText()
            unlink(temporaryPath)
            throw .io("\(path): \(reason)")
        }
    }

    /// Stops ffmpeg and removes the temporary file; `path` is untouched. Idempotent.
    public func cancel() {
        guard !done else { return }
        process.closeInput()
        process.terminate()
        stop()
        unlink(temporaryPath)
    }

    /// Closes ffmpeg's input, waits for it, removes the temporary file unless ffmpeg succeeded
    /// after a normal end, and returns ffmpeg's status.
    @discardableResult
    private func stop() -> Int32 {
        done = true
        process.closeInput()
        errorReader.wait()
        let status = process.wait()
        if status != 0 { unlink(temporaryPath) }
        return status
    }

    private func lastMessages(or fallback: String) -> String {
        let lines = messages.last(3)
        return lines.isEmpty ? fallback : lines.joined(separator: " / ")
    }

    /// A rate as ffmpeg reads it: an integer, or a fraction over 1000.
    static func rateText(_ framesPerSecond: Double) -> String {
        framesPerSecond == framesPerSecond.rounded()
            ? String(Int(framesPerSecond)) : "\(Int((framesPerSecond * 1000).rounded()))/1000"
    }
}

/// The lines ffmpeg wrote to standard error, filled by the thread that reads them.
private final class ErrorLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ newLines: [String]) { lines.withLock { $0.append(contentsOf: newLines) } }

    func last(_ count: Int) -> [String] { lines.withLock { Array($0.suffix(count)) } }
}
