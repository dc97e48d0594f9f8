import ArgumentParser
import Foundation
import ImageIO
import Pipeline

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect 33 body landmarks per person in images or a video.",
        discussion: """
            Images: one result per image (image mode); with several, one line per image as soon as
            it is done, and an image that fails gives an error line while the rest go on.
            Video: a video file (each frame's presentation time is its timestamp), a YUV4MPEG2
            stream or a folder of frames (PNG/JPEG, sorted by name, timestamps from --fps), run in
            video mode with tracking: one line per frame, progress on standard error.
            --annotate and --mask write a PNG for one image, a folder of <image name>.png for
            several, and a video file (through ffmpeg, at the input's frame rate) for a video.
            """)

    @Argument(help: """
        Images (PNG, JPEG), or one video: a video file (MP4, MKV, WebM, MOV, AVI, ..., read through \
        ffmpeg), a .y4m file, - for a YUV4MPEG2 stream on standard input, or a folder of frames.
        """)
    var inputs: [String] = []

    @Option(help: "A video, as the argument would name it.")
    var video: String?

    @Option(help: "Frame rate of a folder of frames (timestamps = frame index / fps; default 30).")
    var fps: Double?

    @Flag(help: "No progress report on standard error (video).")
    var quiet = false

    @OptionGroup var task: PoseTaskOptions

    @Flag(help: "Print results as JSON: one pretty object for one image, a line per image or frame otherwise.")
    var json = false

    @Option(help: "Write the image (or video) with the skeletons drawn over it.")
    var annotate: String?

    @Option(help: "Write the segmentation mask: an 8-bit grey PNG (or a grey video).")
    var mask: String?

    func validate() throws {
        if let fps { guard fps > 0 && fps <= 10_000 else { throw ValidationError("--fps must be in (0, 10000]") } }
    }

    func run() throws {
        try reportingFailures {
            let input = try InputChoice.choose(arguments: inputs, video: video)
            try input.checkOptions(fps: fps, quiet: quiet, outputs: [("--annotate", annotate), ("--mask", mask)])
            switch input {
            case .video(let source):
                try makeRun(try makeLandmarker(mode: .video)).runVideo(
                    source, folderFramesPerSecond: fps ?? 30, json: json, annotate: annotate, mask: mask, quiet: quiet)
            case .images(let paths):
                try makeRun(try makeLandmarker(mode: .image)).runImages(paths, json: json, annotate: annotate, mask: mask)
            }
        }
    }

    private func makeLandmarker(mode: RunningMode) throws -> PoseLandmarker {
        try task.makeLandmarker(modelPath: try ModelLocation.resolve(task.model), mode: mode, masks: mask != nil)
    }

    private func makeRun(_ landmarker: PoseLandmarker) -> LandmarkerRun<PoseLandmarkerResult> {
        LandmarkerRun(
            detectImage: { try landmarker.detect(image: $0) },
            detectFrame: { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) },
            describe: { result, image in
                ("\(result.landmarks.count) pose(s)", result.landmarks.enumerated().map { k, pose in
                    String(format: "  pose %d: nose at (%.1f, %.1f) px", k,
                           pose[0].x * Float(image.width), pose[0].y * Float(image.height))
                })
            },
            draw: AnnotatedOutput.drawPoses(_:on:),
            maskPixels: { result, image in
                AnnotatedOutput.maskPixels(result.segmentationMasks, width: image.width, height: image.height)
            })
    }
}
