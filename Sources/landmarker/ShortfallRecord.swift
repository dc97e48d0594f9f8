import VideoFiles

/// A video's shortfall as an `extract` header records it (`"shortfall"`, only for a video
/// accepted short with `--allow-short`): the frames decoded and what the container promised,
/// its frame count or its duration. Numbers only, so that the header's bytes depend on the
/// input alone (ffmpeg's own messages go to standard error).
struct ShortfallRecord: Codable, Equatable {
    /// Frames decoded, as in the header's `frames`.
    let framesDecoded: Int
    /// The container's frame count (`nb_frames`), where the promise was a frame count.
    let framesPromised: Int?
    /// The container's duration of the video stream, and the seconds the decoded frames cover
    /// (first frame's time to the last one's end), to the millisecond, where the promise was a
    /// duration.
    let durationSeconds: Double?
    let decodedSeconds: Double?

    init(_ shortfall: VideoShortfall) {
        framesDecoded = shortfall.framesDecoded
        switch shortfall.promise {
        case .frameCount(let promised):
            (framesPromised, durationSeconds, decodedSeconds) = (promised, nil, nil)
        case let .duration(seconds, decodedSeconds):
            (framesPromised, durationSeconds, self.decodedSeconds) = (
                nil, Self.milliseconds(seconds), Self.milliseconds(decodedSeconds))
        }
    }

    /// `seconds` rounded to the millisecond.
    private static func milliseconds(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
