/// How a task receives its input, mirroring the iOS `RunningMode`.
///
/// | Mode | Call | Timestamps |
/// |---|---|---|
/// | `.image` | `detect(image:)`, synchronous | synthetic: 0 ms, 1000 ms, 2000 ms, … one per call |
/// | `.video` | `detect(videoFrame:timestampInMilliseconds:)`, synchronous | the caller's, strictly increasing |
/// | `.liveStream` | `detectAsync(image:timestampInMilliseconds:)`, returns at once; results go to a delegate | the caller's, strictly increasing |
///
/// In `.video` and `.liveStream` the landmarks of one frame give the region of interest of the
/// next one (tracking); in `.image` every call runs the detector.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum RunningMode: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Independent still images.
    case image
    /// Decoded frames of a video, processed synchronously in timestamp order.
    case video
    /// A live feed, processed asynchronously; results are delivered to a delegate.
    case liveStream

    public var description: String {
        switch self {
        case .image: "image"
        case .video: "video"
        case .liveStream: "live stream"
        }
    }
}
