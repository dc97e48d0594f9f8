import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision

struct HandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand",
        abstract: "Detect 21 hand landmarks and the handedness of each hand in images or a video.",
        discussion: """
            Images: one result per image (image mode); with several, one line per image as soon as \
            it is done, and an image that fails gives an error line while the rest go on. \
            Video: a video file (each frame's presentation time is its timestamp), a YUV4MPEG2 \
            stream or a folder of frames (PNG/JPEG, sorted by name, timestamps from --fps), run in \
            video mode with tracking: one line per frame, each hand with its track id (trackIds), \
            progress on standard error. \
            --annotate writes a PNG for one image, a folder of <image name>.png for several, and a \
            video file (through ffmpeg, at the input's frame rate) for a video. \
            Handedness names the subject's actual hand in a non-mirrored image (MediaPipe Tasks \
            convention); mirrored (selfie) images give the opposite label.
            """)

    @OptionGroup var input: InputOptions

    @OptionGroup var task: HandTaskOptions

    @Flag(help: "Print results as JSON: one pretty object for one image, a line per image or frame otherwise.")
    var json = false

    @Option(help: "Write the image (or video) with each hand's skeleton and handedness drawn over it.")
    var annotate: String?

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
        try input.plan([.annotate: annotate].compactMapValues { $0 })
    }

    private func makeLandmarker(mode: RunningMode) throws -> HandLandmarker {
        try task.makeLandmarker(modelPath: try ModelLocation.resolve(task.modelArgument), mode: mode)
    }

    private func makeRun(_ landmarker: HandLandmarker) -> LandmarkerRun<HandLandmarkerResult> {
        LandmarkerRun(
            detectImage: { try landmarker.detect(image: $0) },
            detectFrame: { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: Int($1 / 1000)) },
            describe: { result, image in
                ("\(result.landmarks.count) hand(s)", result.landmarks.enumerated().map { k, hand in
                    let label = result.handedness[k].first.map(LandmarkDrawing.handLabel(for:)) ?? "?"
                    return "  hand \(k)" + trackDescription(result.trackIds, k) + ": \(label), "
                        + formatted("wrist at (%.1f, %.1f) px",
                                  hand[0].x * Float(image.width), hand[0].y * Float(image.height))
                })
            },
            draw: AnnotatedOutput.drawHands(_:on:),
            maskPixels: nil)
    }
}
