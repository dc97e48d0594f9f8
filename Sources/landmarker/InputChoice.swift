import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The input arguments of `landmarker pose` and `landmarker hand`, and how a batch names its
/// outputs.
struct InputOptions: ParsableArguments {
    @Argument(help: """
        Images (PNG, JPEG), or one video: a video file (MP4, MKV, WebM, MOV, AVI, ..., read through \
        ffmpeg), a .y4m file, - for a YUV4MPEG2 stream on standard input, or a folder of frames.
        """)
    var inputs: [String] = []

    @Option(help: "A video, as the argument would name it.")
    var video: String?

    @Option(
        parsing: .unconditional,
        help: "Frame rate of a folder of frames (timestamps = frame index / fps; default 30).")
    var fps: Double?

    @Flag(help: "No progress report on standard error (video).")
    var quiet = false

    @Flag(help: """
        Accept a video file that ends before its container says it would (cut short or \
        corrupt): the run succeeds with a warning instead of failing (video).
        """)
    var allowShort = false

    @Flag(help: """
        Several images: name each output after the image's path relative to the images' common \
        folder (a/x.jpg → DIR/a/x.png), so that images of the same name in different folders \
        can be written into one folder (without it, such a batch is refused).
        """)
    var keepPaths = false

    func validate() throws {
        if let fps { guard fps > 0 && fps <= 10_000 else { throw ValidationError("--fps must be in (0, 10000]") } }
    }

    /// What the arguments choose (`InputChoice.choose`) and the files the run writes for the
    /// file options' `requests` (`OutputPlan`), with every option checked against the input.
    /// - Throws: `ValidationError` (a usage error) for options or paths the run refuses.
    func plan(_ requests: [OutputKind: String]) throws -> (choice: InputChoice, outputs: OutputPlan) {
        let choice = try InputChoice.choose(arguments: inputs, video: video)
        try choice.checkOptions(fps: fps, quiet: quiet, allowShort: allowShort)
        return (choice, try OutputPlan(for: choice, requests: requests, keepPaths: keepPaths))
    }
}

/// What `landmarker pose|hand` runs on: image files (image mode), or one video (video mode:
/// a video file ffmpeg reads, a `.y4m` file or `-` for a YUV4MPEG2 stream on standard input,
/// or a folder of frames).
enum InputChoice: Equatable {
    case images([String])
    case video(String)

    /// Extensions taken as video files (decoded through ffmpeg), lower case.
    static let videoExtensions: Set<String> = [
        "mp4", "m4v", "mkv", "webm", "mov", "avi", "mpg", "mpeg", "ts", "m2ts", "mts", "flv", "wmv", "ogv", "3gp",
    ]

    /// The choice the positional arguments and `--video` make.
    /// - Throws: `ValidationError` (a usage error) for nothing, both, or a video among several
    ///   arguments.
    static func choose(arguments: [String], video: String?) throws -> InputChoice {
        if let video {
            guard arguments.isEmpty else { throw ValidationError("give image files or --video, not both") }
            return .video(video)
        }
        guard !arguments.isEmpty else { throw ValidationError("give image files, a video file or a folder of frames") }
        let videos = arguments.filter(isVideo)
        if videos.isEmpty { return .images(arguments) }
        guard arguments.count == 1 else {
            throw ValidationError("\(videos[0]) is a video: give one video (file or folder of frames), or image files")
        }
        return .video(arguments[0])
    }

    /// Whether `path` names a video rather than an image: `-`, a folder, `.y4m`, or a video
    /// file extension.
    static func isVideo(_ path: String) -> Bool {
        if path == "-" { return true }
        if PathKind(atPath: path) == .folder { return true }
        let pathExtension = URL(fileURLWithPath: path).pathExtension.lowercased()
        return pathExtension == "y4m" || videoExtensions.contains(pathExtension)
    }

    /// Refuses the options that do not apply to this input: `--fps` outside a folder of frames
    /// (video files and Y4M streams carry their own timing), `--quiet` and `--allow-short` for
    /// images (they concern the video progress report and a video's length). A usage error
    /// (`ValidationError`).
    func checkOptions(fps: Double?, quiet: Bool, allowShort: Bool) throws {
        switch self {
        case .images:
            if fps != nil { throw ValidationError("--fps applies to a folder of frames, not to images") }
            if quiet { throw ValidationError("--quiet applies to video input (it silences the progress report)") }
            if allowShort { throw ValidationError("--allow-short applies to video input (a video cut short)") }
        case .video(let source):
            if fps != nil && PathKind(atPath: source) != .folder {
                throw ValidationError("--fps applies to a folder of frames: \(source) carries its own timing")
            }
        }
    }
}
