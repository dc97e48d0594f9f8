/// A video file that ended before its container said it would: fewer frames decoded than the
/// container promises, by more than its own metadata can account for (``toleratedFrames``). A
/// half-downloaded MP4 whose index sits at the front (`-movflags +faststart`) is one: its index
/// names every frame, its data holds the first ones only, and ffmpeg decodes those and exits
/// with status 0.
///
/// The promise is the stream's frame count (`nb_frames`) where the container states it, else
/// its duration (``VideoProbe/durationSeconds``) against the time the decoded frames cover:
/// from the first frame's presentation time to the last one's plus one frame at the average
/// rate. Times rather than duration × rate, so that a variable frame rate, whose average rate
/// the container may not state truly, is not taken for missing frames. Without either (an
/// MPEG-TS stream states neither; a duration needs a rate), nothing is promised and a video
/// cannot be found short.
///
/// Thread safety: a `Sendable` value.
public struct VideoShortfall: Sendable, Equatable, CustomStringConvertible {
    /// What the container promised.
    public enum Promise: Sendable, Equatable {
        /// The stream's frame count (`nb_frames`).
        case frameCount(Int)
        /// The stream's duration in seconds, and the seconds the decoded frames cover.
        case duration(seconds: Double, decodedSeconds: Double)
    }

    /// Frames decoded before the stream ended.
    public let framesDecoded: Int
    public let promise: Promise
    /// ffmpeg's first error lines while decoding (without their `[demuxer @ address]` prefix),
    /// which often say where the file broke ("partial file"); empty when it said nothing.
    public let decoderErrors: [String]

    /// Frames a stream may fall short of its promise by and still count as whole: a frame or
    /// two can be trimmed by an edit list or lost to rounding of the duration and rate, while a
    /// file cut short misses many.
    public static let toleratedFrames = 2

    /// The shortfall of a stream that ended after `framesDecoded` frames, the first and last at
    /// `firstTimestampMs` and `lastTimestampMs`, against what `probe` promises; `nil` when the
    /// stream is whole within ``toleratedFrames``, or when nothing was promised.
    static func find(
        probe: VideoProbe, framesDecoded: Int, firstTimestampMs: Int, lastTimestampMs: Int, decoderErrors: [String]
    ) -> VideoShortfall? {
        if let promised = probe.frameCount {
            guard framesDecoded < promised - toleratedFrames else { return nil }
            return VideoShortfall(framesDecoded: framesDecoded, promise: .frameCount(promised), decoderErrors: decoderErrors)
        }
        guard let duration = probe.durationSeconds, let rate = probe.framesPerSecond else { return nil }
        let frameSeconds = 1 / rate
        let decodedSeconds = Double(lastTimestampMs - firstTimestampMs) / 1000 + frameSeconds
        // The timestamps are whole milliseconds: 2 ms more for their rounding.
        guard duration - decodedSeconds > Double(toleratedFrames) * frameSeconds + 0.002 else { return nil }
        return VideoShortfall(
            framesDecoded: framesDecoded, promise: .duration(seconds: duration, decodedSeconds: decodedSeconds),
            decoderErrors: decoderErrors)
    }

    /// "video ends at frame 27 of 90: cut short or corrupt", or with a duration "video ends at
    /// frame 14, 0.56 s into its 1.20 s: cut short or corrupt", then ffmpeg's errors if any.
    public var description: String {
        let end: String
        switch promise {
        case .frameCount(let promised):
            end = "video ends at frame \(framesDecoded) of \(promised)"
        case let .duration(seconds, decodedSeconds):
            end = "video ends at frame \(framesDecoded), \(Self.twoDecimals(decodedSeconds)) s into its "
                + "\(Self.twoDecimals(seconds)) s"
        }
        let errors = decoderErrors.isEmpty ? "" : " (ffmpeg: " + decoderErrors.joined(separator: " / ") + ")"
        return end + ": cut short or corrupt" + errors
    }

    /// `value` rounded to hundredths, written with two decimals; as Swift writes it from
    /// 10^15 on (`1e+300`), where hundredths no longer fit an `Int` exactly (a container can
    /// state any duration).
    private static func twoDecimals(_ value: Double) -> String {
        guard abs(value) < 1e15 else { return "\(value)" }
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
