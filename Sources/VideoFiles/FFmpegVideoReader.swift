import Dispatch
import ImageIO
import Synchronization

/// Decodes a video file (anything the system's `ffmpeg` reads: MP4, MKV, WebM, MOV, AVI, …) into
/// RGB frames through an `ffmpeg` child process, one frame at a time.
///
/// The frames are exactly what `ffmpeg -i FILE -fps_mode passthrough -f rawvideo -pix_fmt
/// rgb24 -` writes: every decoded frame once (ffmpeg's default for raw output may repeat or
/// drop frames to reach a constant rate; for a constant-rate file the two are the same),
/// rotation metadata applied (ffmpeg's autorotate), packed R, G, B bytes. Each frame comes with
/// its presentation time in milliseconds (rounded), read from ffmpeg's `showinfo` filter, so a
/// variable frame rate gives the true times rather than index ÷ rate. The stream decoded is
/// the file's first video stream that is not an attached picture (`-map 0:V:0`).
///
/// A video with no frames is an error (``VideoFileError/noFrames(path:)``), and so is one that
/// ends before its container said it would (``VideoFileError/cutShort(path:_:)``, see
/// ``VideoShortfall``) unless the reader is made to accept that.
///
/// Memory stays at one frame (the buffer is reused) whatever the video's length.
///
/// Not thread-safe: use one reader from one thread at a time.
public final class FFmpegVideoReader {
    /// One decoded frame.
    public struct Frame: Sendable {
        /// 0-based position in the stream.
        public let index: Int
        /// Presentation time in milliseconds, rounded; strictly increasing.
        public let timestampMs: Int
        public let image: RGBImage
    }

    /// The file read.
    public let path: String
    /// What the container says (frame count, rate and duration, where known).
    public let probe: VideoProbe
    /// Whether a video that ends before its container said it would is read to its end
    /// (``shortfall`` then says by how much) rather than refused.
    public let acceptsShortfall: Bool
    /// How far the video fell short of its container's promise, once it has ended short and
    /// ``acceptsShortfall``; `nil` otherwise.
    public private(set) var shortfall: VideoShortfall?

    private let process: ChildProcess
    private let log: ShowinfoLog
    private let logReader = DispatchGroup()
    private let limits: DecodeLimits
    private var buffer: [UInt8] = []
    private var nextIndex = 0
    private var firstTimestampMs: Int?
    private var lastTimestampMs: Int?
    private var finished = false

    /// Probes `path` with `ffprobe`, then starts `ffmpeg` on it.
    /// - Parameter acceptingShortfall: read a video that ends before its container said it
    ///   would to its end instead of refusing it (``shortfall`` says by how much).
    /// - Throws: `VideoFileError.programNotFound` without ffmpeg, `.unreadable` for a file
    ///   ffprobe cannot read or without a video stream.
    public init(path: String, limits: DecodeLimits = DecodeLimits(), acceptingShortfall: Bool = false) throws(VideoFileError) {
        self.path = path
        self.limits = limits
        acceptsShortfall = acceptingShortfall
        probe = try VideoProbe(path: path)
        // `level+`: each line tagged with its level, so that ffmpeg's errors can be told apart.
        process = try ChildProcess([
            "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-loglevel", "level+info", "-i", path,
            "-map", "0:V:0", "-vf", "showinfo", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
        ])
        log = ShowinfoLog()
        let log = self.log
        let descriptor = process.standardError
        DispatchQueue.global().async(group: logReader) { log.read(from: descriptor) }
    }

    deinit { close() }

    /// The next frame, or `nil` after the last one.
    /// - Throws: `VideoFileError` when ffmpeg fails, a frame is cut short, its size is over the
    ///   pixel cap or changes, or its presentation time is missing or not increasing; at the
    ///   end, `.noFrames` when there was none and `.cutShort` when the video fell short of its
    ///   container's promise (unless ``acceptsShortfall``). After an error or the end, every
    ///   call returns `nil`.
    public func nextFrame() throws(VideoFileError) -> Frame? {
        guard !finished else { return nil }
        do {
            let index = nextIndex
            let entry: ShowinfoLog.Entry
            if index == 0 {
                // The first frame's size comes from its log line, written before its bytes.
                guard let first = log.next() else {
                    try finish()
                    throw VideoFileError.noFrames(path: path)
                }
                let (pixels, overflow) = first.width.multipliedReportingOverflow(by: first.height)
                guard first.width > 0, first.height > 0, !overflow, pixels <= limits.maxPixelCount else {
                    throw VideoFileError.unsupportedSize(
                        width: first.width, height: first.height, maxPixelCount: limits.maxPixelCount)
                }
                buffer = [UInt8](repeating: 0, count: pixels * 3)
                try readFrameBytes(index: index)
                entry = first
            } else {
                // Later frames: the bytes first (ffmpeg writes them or exits), then their line, so
                // that a missing line ends the stream with an error and never blocks it.
                guard try readFrameBytes(index: index) else {
                    try checkComplete()
                    return nil
                }
                guard let line = log.next() else {
                    throw VideoFileError.badPresentationTime(index: index, detail: "ffmpeg logged no line for it")
                }
                guard line.rgbByteCount == buffer.count else {
                    throw VideoFileError.frameSizeMismatch(
                        expected: "\(buffer.count / 3) pixels per frame", actual: "\(line.width)x\(line.height) (frame \(index))")
                }
                entry = line
            }
            guard entry.seconds.isFinite, abs(entry.seconds) < 1e9 else {
                throw VideoFileError.badPresentationTime(index: index, detail: "ffmpeg gave it no presentation time")
            }
            let timestampMs = Int((entry.seconds * 1000).rounded())
            if let lastTimestampMs, timestampMs <= lastTimestampMs {
                throw VideoFileError.badPresentationTime(
                    index: index, detail: "presentation time \(timestampMs) ms is not after the previous frame's \(lastTimestampMs) ms")
            }
            if firstTimestampMs == nil { firstTimestampMs = timestampMs }
            lastTimestampMs = timestampMs
            nextIndex += 1
            let image: RGBImage
            do { image = try RGBImage(width: entry.width, height: entry.height, pixels: buffer) } catch {
                throw VideoFileError.io("frame \(index): \(error)")
            }
            return Frame(index: index, timestampMs: timestampMs, image: image)
        } catch let error as VideoFileError {
            close()
            throw error
        } catch {
            close()
            throw VideoFileError.io("\(error)")
        }
    }

    /// Stops ffmpeg (if it is still running) and releases the pipes. Called by `deinit`.
    public func close() {
        guard !finished else { return }
        finished = true
        process.closeOutput()
        process.terminate()
        logReader.wait()
        process.wait()
    }

    /// Reads frame `index`'s bytes into `buffer`; `false` at the end of the stream (after
    /// ffmpeg exited successfully).
    /// - Throws: ffmpeg's failure, or `.truncatedFrame` when the stream ends inside the frame.
    @discardableResult
    private func readFrameBytes(index: Int) throws(VideoFileError) -> Bool {
        let read = try ChildProcess.readFully(process.standardOutput, into: &buffer)
        if read == buffer.count { return true }
        try finish()  // reports ffmpeg's own failure first, if it failed
        guard read == 0, index > 0 else {
            throw .truncatedFrame(index: index, byteCount: read, expectedByteCount: buffer.count)
        }
        return false
    }

    /// After the last frame: throws `.cutShort` when the frames fell short of the container's
    /// promise and the reader does not accept that; records the shortfall when it does.
    private func checkComplete() throws(VideoFileError) {
        guard let firstTimestampMs, let lastTimestampMs,
              let shortfall = VideoShortfall.find(
                probe: probe, framesDecoded: nextIndex, firstTimestampMs: firstTimestampMs,
                lastTimestampMs: lastTimestampMs, decoderErrors: log.errors())
        else { return }
        guard acceptsShortfall else { throw .cutShort(path: path, shortfall) }
        self.shortfall = shortfall
    }

    /// Waits for ffmpeg to exit after its last frame; throws when it failed.
    private func finish() throws(VideoFileError) {
        finished = true
        logReader.wait()
        let status = process.wait()
        guard status == 0 else {
            throw .decoderFailed(path: path, status: status, message: log.lastMessages())
        }
    }
}

/// The lines ffmpeg writes to standard error (`-loglevel level+info`: each tagged with its level),
/// read on a thread of their own: each `showinfo` frame line gives one frame's size and
/// presentation time, the other lines are kept (the last few) for error messages, and the first
/// few error lines for ``VideoShortfall``.
private final class ShowinfoLog: Sendable {
    typealias Entry = FFmpegLogLine.Frame

    private struct State {
        var entries: [Entry] = []
        var consumed = 0
        var ended = false
        var messages: [String] = []
        var errors: [String] = []
    }

    /// The error lines kept, at most.
    private static let keptErrorCount = 3

    private let state = Mutex(State())
    /// Signalled once per entry and once at the end of the stream.
    private let available = DispatchSemaphore(value: 0)

    /// Reads `descriptor` to its end (the process closes it afterwards).
    func read(from descriptor: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = (try? chunk.withUnsafeMutableBytes { buffer throws(VideoFileError) in
                try ChildProcess.readAvailable(descriptor, into: buffer)
            }) ?? 0
            if count == 0 { break }
            pending.append(contentsOf: chunk[..<count])
            while let newline = pending.firstIndex(of: 0x0A) {
                handle(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
        if !pending.isEmpty { handle(String(decoding: pending, as: UTF8.self)) }
        state.withLock { $0.ended = true }
        available.signal()
    }

    /// The next frame's entry, waiting for it; `nil` when the stream ended without one.
    func next() -> Entry? {
        while true {
            let (entry, ended): (Entry?, Bool) = state.withLock { state in
                guard state.consumed < state.entries.count else { return (nil, state.ended) }
                state.consumed += 1
                return (state.entries[state.consumed - 1], false)
            }
            if let entry { return entry }
            if ended { return nil }
            available.wait()
        }
    }

    /// ffmpeg's first error lines, without their `[demuxer @ address]` prefix, each once.
    func errors() -> [String] {
        state.withLock { $0.errors }
    }

    /// The last lines that were not frame lines, joined.
    func lastMessages() -> String {
        state.withLock { $0.messages.suffix(4).joined(separator: " / ") }
    }

    private func handle(_ taggedLine: String) {
        let (level, context, text) = FFmpegLogLine.split(taggedLine)
        let line = String(context + text)
        if let level, FFmpegLogLine.errorLevels.contains(level), !text.isEmpty {
            let error = String(text)
            state.withLock { state in
                if state.errors.count < Self.keptErrorCount, !state.errors.contains(error) { state.errors.append(error) }
            }
        }
        if line.contains("Parsed_showinfo"), let entry = FFmpegLogLine.frame(line) {
            state.withLock { $0.entries.append(entry) }
            available.signal()
        } else if !line.contains("Parsed_showinfo"), !line.hasPrefix(" "), !line.isEmpty {
            state.withLock { state in
                state.messages.append(line)
                if state.messages.count > 16 { state.messages.removeFirst() }
            }
        }
    }
}
