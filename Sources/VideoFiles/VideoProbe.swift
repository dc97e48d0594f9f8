#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the container says about a file's first video stream (that is not an attached
/// picture), read with `ffprobe`: the frame count and rate where it states them.
///
/// Thread safety: a `Sendable` value.
public struct VideoProbe: Sendable, Equatable {
    /// Frames in the stream, when the container states it (MP4 and MOV do; Matroska and WebM
    /// often do not).
    public let frameCount: Int?
    /// The stream's average frame rate in frames per second, when known.
    public let framesPerSecond: Double?

    /// Probes `path` with `ffprobe`.
    /// - Throws: `VideoFileError.programNotFound` without `ffprobe`, `.unreadable` when it
    ///   cannot read the file, the file has no video stream, or the stream has no size (what
    ///   `ffprobe` says of bytes it takes for a raw stream, such as H.263, without a picture).
    public init(path: String) throws(VideoFileError) {
        let output = try Self.run([
            "ffprobe", "-v", "error", "-select_streams", "V:0",
            "-show_entries", "stream=nb_frames,avg_frame_rate,width,height", "-of", "json", "--", path,
        ], path: path)
        struct Report: Decodable {
            struct Stream: Decodable {
                let nb_frames: String?
                let avg_frame_rate: String?
                let width: Int?
                let height: Int?
            }
            let streams: [Stream]?
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
