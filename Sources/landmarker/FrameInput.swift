#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision
import VideoFiles

/// The frames of a video run: a folder of PNG/JPEG frames sorted by name
/// (`frameNames(inFolder:)`), a YUV4MPEG2 stream (a `.y4m` file, or `-` for standard input), or
/// any other video file, decoded through ffmpeg.
///
/// An input without frames is an error in every kind; a video file that ends before its
/// container said it would is one unless the input accepts it (`--allow-short`, see
/// `VideoShortfall`), and then `shortfall` says by how much.
final class FrameInput {
    struct Frame {
        /// The frame's file name, or "frame N" for a stream.
        let name: String
        let image: RGBImage
        /// In microseconds: frame index / frames per second, rounded to milliseconds, for a
        /// folder or a Y4M stream, or (frame index + 1) · the folder's frame step when one is
        /// given; the presentation time for a video file.
        let timestampMicroseconds: Int64

        /// The timestamp in milliseconds, rounded down.
        var timestampMs: Int { VisionTaskRunner<MPImage, Int>.milliseconds(of: timestampMicroseconds) }
    }

    private enum Source {
        case folder([String])
        case stream(Y4MReader)
        case videoFile(FFmpegVideoReader)
    }

    private let source: Source
    /// A folder's frame step in microseconds (`--frame-step-us`), which replaces its frame rate
    /// for the timestamps: frame k at (k + 1) · step, as MediaPipe's legacy solutions time frames.
    private var folderFrameStepMicroseconds: Int64?
    /// The path given (`-` for standard input).
    let path: String
    /// The rate timestamps and output videos use: the folder's `--fps`, the Y4M header's, or
    /// the video file's average rate (25 when the file does not state it).
    let framesPerSecond: Double
    /// Frames in the input, where known before reading them (a folder; a container that says).
    let frameCount: Int?
    private var index = 0

    private init(source: Source, path: String, framesPerSecond: Double, frameCount: Int?) {
        self.source = source
        self.path = path
        self.framesPerSecond = framesPerSecond
        self.frameCount = frameCount
    }

    /// Opens `path`: a folder (timestamps from `folderFramesPerSecond`), `-` or a `.y4m` file
    /// (timestamps from the header's frame rate), or a video file (presentation times), which
    /// may end short of its container's promise when `acceptingShortfall`.
    /// With `folderFrameStepMicroseconds`, a folder's frames are timed by that step instead
    /// (frame k at (k + 1) · step µs; the rate for output videos is 10⁶ / step).
    static func open(
        _ path: String, folderFramesPerSecond: Double, folderFrameStepMicroseconds: Int64? = nil,
        acceptingShortfall: Bool = false
    ) throws -> FrameInput {
        if path != "-", PathKind(atPath: path) == .folder {
            let names = try frameNames(inFolder: path)
            guard !names.isEmpty else { throw CommandFailure("\(path): no PNG or JPEG frames in the folder") }
            let input = FrameInput(
                source: .folder(names.map { path + "/" + $0 }), path: path,
                framesPerSecond: folderFrameStepMicroseconds.map { 1_000_000 / Double($0) } ?? folderFramesPerSecond,
                frameCount: names.count)
            input.folderFrameStepMicroseconds = folderFrameStepMicroseconds
            return input
        }
        do {
            if path == "-" || URL(fileURLWithPath: path).pathExtension.lowercased() == "y4m" {
                let reader = try Y4MReader(path: path)
                return FrameInput(
                    source: .stream(reader), path: path, framesPerSecond: reader.framesPerSecond, frameCount: nil)
            }
            let reader = try FFmpegVideoReader(path: path, acceptingShortfall: acceptingShortfall)
            return FrameInput(
                source: .videoFile(reader), path: path, framesPerSecond: reader.probe.framesPerSecond ?? 25,
                frameCount: reader.probe.frameCount)
        } catch let error as VideoFileError {
            throw CommandFailure(error.description)
        } catch {
            throw CommandFailure("\(path): \(errorText(error))")
        }
    }

    /// The frames of the folder at `path`, by file name, sorted: its files named `*.png`, `*.jpg`
    /// or `*.jpeg` (any case). Subfolders, whatever their names, and hidden files (`.*`) are no
    /// frames. `landmarker pose|hand|face FOLDER` and `extract` (which hashes these files) read
    /// the same frames.
    /// - Throws: `CommandFailure` when the folder cannot be read.
    static func frameNames(inFolder path: String) throws -> [String] {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CommandFailure("\(path): the folder cannot be read: \(errorText(error))")
        }
        return entries.filter { name in
            !name.hasPrefix(".") && frameExtensions.contains(URL(fileURLWithPath: name).pathExtension.lowercased())
                && PathKind(atPath: path + "/" + name) == .file
        }.sorted()
    }

    /// The extensions of frame files, lower case.
    private static let frameExtensions: Set<String> = ["png", "jpg", "jpeg"]

    /// Calls `body` with every frame (as an upright `MPImage`) in order, reporting progress on
    /// standard error (`ProgressReport`, unlabelled).
    func forEachFrame(quiet: Bool, _ body: (Frame, MPImage) throws -> Void) throws {
        try forEachFrame(reporting: ProgressReport(total: frameCount, quiet: quiet), body)
    }

    /// Calls `body` with every frame (as an upright `MPImage`) in order, counting each one done
    /// in `progress`.
    func forEachFrame(reporting progress: ProgressReport, _ body: (Frame, MPImage) throws -> Void) throws {
        while let frame = try next() {
            try body(frame, try MPImage(rgbImage: frame.image))
            progress.frameDone()
        }
        progress.finish()
    }

    /// Decodes every frame of a folder (sorted by name, EXIF orientation applied) into memory.
    static func decodeFolder(_ path: String) throws -> [MPImage] {
        guard PathKind(atPath: path) == .folder else {
            throw CommandFailure("\(path): not a folder of PNG/JPEG frames")
        }
        // The frame rate only sets `Frame.timestampMs`, which is not used here.
        let input = try FrameInput.open(path, folderFramesPerSecond: 25)
        var images: [MPImage] = []
        while let frame = try input.next() {
            do {
                images.append(try MPImage(rgbImage: frame.image))
            } catch {
                throw CommandFailure("\(frame.name): \(errorText(error))")
            }
        }
        return images
    }

    /// Decodes an image file, with the path in the error message.
    static func loadImage(_ path: String) throws -> MPImage {
        do {
            return try MPImage(contentsOfFile: path)
        } catch {
            throw CommandFailure("\(path): \(errorText(error))")
        }
    }

    /// How far a video file fell short of its container's promise, once read to its end with
    /// the shortfall accepted; `nil` otherwise (and for folders and Y4M streams, which promise
    /// no frame count).
    var shortfall: VideoShortfall? {
        guard case .videoFile(let reader) = source else { return nil }
        return reader.shortfall
    }

    /// The next frame, or nil at the end.
    /// - Throws: `CommandFailure` naming the input or the frame, among them a video file's
    ///   `VideoFileError.noFrames` and `.cutShort` and a Y4M stream's `noFrames`.
    func next() throws -> Frame? {
        let timestamp = folderFrameStepMicroseconds.map { Int64(index + 1) * $0 }
            ?? Int64((Double(index) * 1000 / framesPerSecond).rounded()) * 1000
        defer { index += 1 }
        switch source {
        case .folder(let paths):
            guard index < paths.count else { return nil }
            do {
                let decoded = try ImageDecoder.decode(contentsOfFile: paths[index])
                let image = decoded.exifOrientation.map { decoded.image.applyingExifOrientation($0) } ?? decoded.image
                return Frame(name: paths[index], image: image, timestampMicroseconds: timestamp)
            } catch {
                throw CommandFailure("\(paths[index]): \(errorText(error))")
            }
        case .stream(let reader):
            do {
                guard let image = try reader.nextFrame() else {
                    if index == 0 { throw VideoFileError.noFrames(path: path == "-" ? "standard input" : path) }
                    return nil
                }
                return Frame(name: "frame \(index)", image: image, timestampMicroseconds: timestamp)
            } catch let error as VideoFileError {
                throw CommandFailure(error.description)
            } catch {
                throw CommandFailure("frame \(index): \(errorText(error))")
            }
        case .videoFile(let reader):
            do throws(VideoFileError) {
                guard let frame = try reader.nextFrame() else { return nil }
                return Frame(
                    name: "frame \(frame.index)", image: frame.image, timestampMicroseconds: Int64(frame.timestampMs) * 1000)
            } catch {
                switch error {
                case .noFrames, .cutShort, .decoderFailed: throw CommandFailure(error.description)  // they name the file
                default: throw CommandFailure("\(reader.path): \(error.description)")
                }
            }
        }
    }
}
