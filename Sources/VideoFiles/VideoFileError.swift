/// Why a video file could not be read or written through `ffmpeg`.
///
/// Thread safety: a `Sendable` value.
public enum VideoFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A program (`ffmpeg` or `ffprobe`) is not on `PATH`.
    case programNotFound(String)
    /// `ffprobe` could not read the file, or found no video stream in it; `message` is its own.
    case unreadable(path: String, message: String)
    /// The video's frames are larger than the pixel cap, or have no pixels.
    case unsupportedSize(width: Int, height: Int, maxPixelCount: Int)
    /// `ffmpeg` stopped with a failure status; `message` is the end of what it printed.
    case decoderFailed(path: String, status: Int32, message: String)
    /// The decoded stream ended inside a frame (`byteCount` of `expectedByteCount` bytes).
    case truncatedFrame(index: Int, byteCount: Int, expectedByteCount: Int)
    /// A frame came without its presentation time, or with one not after the previous frame's.
    case badPresentationTime(index: Int, detail: String)
    /// A frame to write does not have the output's size.
    case frameSizeMismatch(expected: String, actual: String)
    /// The video has no frames: the stream ended before its first.
    case noFrames(path: String)
    /// The video ended before its container said it would (see ``VideoShortfall``).
    case cutShort(path: String, VideoShortfall)
    /// A pipe, read or write failed.
    case io(String)

    public var description: String {
        switch self {
        case .programNotFound(let program):
            return "\(program) not found on PATH: video files are read and written through ffmpeg "
                + "(Debian's ffmpeg package: apt-get install ffmpeg; or scripts/system_packages.sh). "
                + "Y4M files and folders of frames need no ffmpeg."
        case let .unreadable(path, message):
            return "\(path): not a readable video (ffprobe: \(message))"
        case let .unsupportedSize(width, height, maxPixelCount):
            return "video frames of \(width)x\(height) pixels are not supported (at most \(maxPixelCount) pixels)"
        case let .decoderFailed(path, status, message):
            return "\(path): ffmpeg failed with status \(status): \(message)"
        case let .truncatedFrame(index, byteCount, expectedByteCount):
            return "frame \(index) ends after \(byteCount) of its \(expectedByteCount) bytes"
        case let .badPresentationTime(index, detail):
            return "frame \(index): \(detail)"
        case let .frameSizeMismatch(expected, actual):
            return "a frame of \(actual) does not fit a video of \(expected)"
        case .noFrames(let path):
            return "\(path): the video has no frames"
        case let .cutShort(path, shortfall):
            return "\(path): \(shortfall)"
        case .io(let message):
            return message
        }
    }
}
