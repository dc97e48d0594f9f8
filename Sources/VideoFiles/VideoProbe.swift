#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the container says about a file's first video stream (that is not an attached
/// picture), read with `ffprobe`: the frame count, rate and duration where it states them.
///
/// Thread safety: a `Sendable` value.
public struct VideoProbe: Sendable, Equatable {
    /// Frames in the stream, when the container states it (MP4 and MOV do; Matroska and WebM
    /// often do not).
    public let frameCount: Int?
    /// The stream's average frame rate in frames per second, when known.
    public let framesPerSecond: Double?
    /// How long the video stream lasts, in seconds, when the container says: the stream's own
    /// duration (MP4, MOV, AVI, MPEG-TS), else its `DURATION` tag (Matroska and WebM, where it
    /// is the stream's end time, so its start time is taken off), else the file's duration when
    /// the file holds no other stream (another stream, such as a longer audio track, can make
    /// the file last longer than its video).
    public let durationSeconds: Double?

    /// Probes `path` with `ffprobe`.
    /// - Throws: `VideoFileError.programNotFound` without `ffprobe`, `.unreadable` when it
    ///   cannot read the file, the file has no video stream, or the stream has no size (what
    ///   `ffprobe` says of bytes it takes for a raw stream, such as H.263, without a picture).
    public init(path: String) throws(VideoFileError) {
        let output = try Self.run([
            "ffprobe", "-v", "error", "-select_streams", "V:0",
            "-show_entries",
            "stream=nb_frames,avg_frame_rate,width,height,duration,start_time:stream_tags=DURATION:format=duration,nb_streams",
            "-of", "json", "--", path,
        ], path: path)
        struct Report: Decodable {
            struct Stream: Decodable {
                struct Tags: Decodable {
                    let DURATION: String?
                }
                let nb_frames: String?
                let avg_frame_rate: String?
                let width: Int?
                let height: Int?
                let duration: String?
                let start_time: String?
                let tags: Tags?
            }
            struct Format: Decodable {
                let duration: String?
                let nb_streams: Int?
            }
            let streams: [Stream]?
            let format: Format?
        }
        guard let report = try? JSONDecoder().decode(Report.self, from: Data(output)),
              let stream = report.streams?.first else {
            throw .unreadable(path: path, message: "no video stream")
        }
        guard let width = stream.width, let height = stream.height, width > 0, height > 0 else {
            throw .unreadable(path: path, message: "no video stream with a picture size (not a video file?)")
        }
        frameCount = stream.nb_frames.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        framesPerSecond = stream.avg_frame_rate.flatMap(Self.rate)
        if let duration = stream.duration.flatMap(Self.seconds) {
            durationSeconds = duration
        } else if let end = stream.tags?.DURATION.flatMap(Self.clockSeconds) {
            let start = stream.start_time.flatMap { Double($0) }.flatMap { $0.isFinite ? $0 : nil } ?? 0
            durationSeconds = end - start > 0 ? end - start : nil
        } else if report.format?.nb_streams == 1 {
            durationSeconds = report.format?.duration.flatMap(Self.seconds)
        } else {
            durationSeconds = nil
        }
    }

    /// What the container says, given directly (for tests of what follows from it).
    init(frameCount: Int?, framesPerSecond: Double?, durationSeconds: Double?) {
        self.frameCount = frameCount
        self.framesPerSecond = framesPerSecond
        self.durationSeconds = durationSeconds
    }

    /// Seconds as ffprobe writes them (`1.200000`), when positive and finite; `nil` for `N/A`.
    static func seconds(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, value > 0 else { return nil }
        return value
    }

    /// `H:MM:SS.fraction` (a Matroska `DURATION` tag: `00:00:01.200000000`) in seconds.
    static func clockSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: ":")
        guard parts.count == 3, let hours = Double(parts[0]), let minutes = Double(parts[1]),
              let seconds = Double(parts[2]) else { return nil }
        let total = hours * 3600 + minutes * 60 + seconds
        return total.isFinite && total > 0 ? total : nil
    }

    /// `num/den` as a positive finite number, or `nil` (`0/0` means unknown).
    static func rate(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]),
              denominator > 0, numerator > 0 else { return nil }
        let rate = numerator / denominator
        return rate.isFinite ? rate : nil
    }

    /// Runs `ffprobe` and returns its standard output (at most 1 MiB); its standard error
    /// becomes the message of `.unreadable` when it fails.
    private static func run(_ arguments: [String], path: String) throws(VideoFileError) -> [UInt8] {
        let process = try ChildProcess(arguments)
        let limit = 1 << 20
        var output = [UInt8](repeating: 0, count: limit)
        var errorText = [UInt8](repeating: 0, count: 4096)
        let outputCount = try ChildProcess.readFully(process.standardOutput, into: &output)
        let errorCount = try ChildProcess.readFully(process.standardError, into: &errorText)
        if outputCount == limit { process.closeOutput(); process.terminate() }
        let status = process.wait()
        guard status == 0 else {
            let message = String(decoding: errorText[..<errorCount], as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "status \(status)"
            throw .unreadable(path: path, message: message)
        }
        return Array(output[..<outputCount])
    }
}
