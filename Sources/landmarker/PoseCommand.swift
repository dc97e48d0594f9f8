import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect 33 body landmarks per person in images or a video.",
        discussion: """
            Images: one result per image (image mode); with several, one line per image as soon as \
            it is done, and an image that fails gives an error line while the rest go on. \
            Video: a video file (each frame's presentation time is its timestamp), a YUV4MPEG2 \
            stream or a folder of frames (PNG/JPEG, sorted by name, timestamps from --fps), run in \
            video mode with tracking: one line per frame, each pose with its track id (trackIds), \
            progress on standard error. \
            --annotate and --mask write a PNG for one image, a folder of <image name>.png for \
            several, and a video file (through ffmpeg, at the input's frame rate) for a video.
            """)

    @OptionGroup var input: InputOptions

    @OptionGroup var task: PoseTaskOptions

    @Flag(help: "Print results as JSON: one pretty object for one image, a line per image or frame otherwise.")
    var json = false

    @Option(help: "Write the image (or video) with the skeletons drawn over it.")
    var annotate: String?

    @Option(help: "Write the segmentation mask: an 8-bit grey PNG (or a grey video).")
    var mask: String?

    func run() throws {
        let (choice, outputs) = try plan()
        switch choice {
        case .video(let source):
            try makeRun(try makeLandmarker(mode: .video)).runVideo(
                source, folderFramesPerSecond: input.fps ?? 30, json: json, outputs: outputs, quiet: input.quiet,
                allowShort: input.allowShort)
        case .images(let paths):
            try makeRun(try makeLandmarker(mode: .image)).runImages(paths, json: json, outputs: outputs)
        }
    }

    /// The input and the files the run writes, with every option checked against them: a usage
    /// error (`ValidationError`) before any input is read. Not in `validate()`, which
    /// ArgumentParser runs before it reports unknown options.
    private func plan() throws -> (choice: InputChoice, outputs: OutputPlan) {
        let plan = try input.plan([.annotate: annotate, .mask: mask].compactMapValues { $0 })
        if case .images = plan.choice, task.smoothEachTrack {
            throw ValidationError("--smooth-each-track applies to video input: images have no tracks")
        }
        return plan
    }

    private func makeLandmarker(mode: RunningMode) throws -> PoseLandmarker {
        try task.makeLandmarker(modelPath: try ModelLocation.resolve(task.model), mode: mode, masks: mask != nil)
    }

    private func makeRun(_ landmarker: PoseLandmarker) -> LandmarkerRun<PoseLandmarkerResult> {
        LandmarkerRun(
            detectImage: { try landmarker.detect(image: $0) },
            detectFrame: { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: Int($1 / 1000)) },
            describe: { result, image in
                ("\(result.landmarks.count) pose(s)", result.landmarks.enumerated().map { k, pose in
                    "  pose \(k)" + trackDescription(result.trackIds, k)
                        + formatted(": nose at (%.1f, %.1f) px", pose[0].x * Float(image.width), pose[0].y * Float(image.height))
                })
            },
            draw: AnnotatedOutput.drawPoses(_:on:),
            maskPixels: { result, image in
                AnnotatedOutput.maskPixels(result.segmentationMasks, width: image.width, height: image.height)
            })
    }
}
