#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the container says about a file's first video stream (that is not an attached
/// picture), read with `ffprobe` (`init(path:)`, in FFprobe.swift): the frame count, rate and
/// duration where it states them. This file needs Foundation only: the video probe fuzzer
/// (`Fuzz/Sources/VideoProbeFuzzer`) compiles it as it is.
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

    /// What `report`, the JSON `ffprobe` writes for the entries `probeEntries` (FFprobe.swift) asks
    /// for (`-of json`), says of the file at `path` (named in errors). Takes the first stream.
    /// - Throws: `.unreadable` when the report does not parse, lists no stream, or its stream
    ///   has no size (what `ffprobe` says of bytes it takes for a raw stream, such as H.263,
    ///   without a picture).
    init(ffprobeReport report: [UInt8], path: String) throws(VideoFileError) {
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
        guard let report = try? JSONDecoder().decode(Report.self, from: Data(report)),
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
            // Both finite, but a huge negative start can take the difference past the largest Double.
            let length = end - start
            durationSeconds = length.isFinite && length > 0 ? length : nil
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
        // A finite numerator over an infinite or huge denominator underflows to 0.
        let rate = numerator / denominator
        return rate.isFinite && rate > 0 ? rate : nil
    }
}
