import ArgumentParser
import Foundation
import ImageIO
import Pipeline

struct HandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hand",
        abstract: "Detect 21 hand landmarks and the handedness of each hand in images or a video.",
        discussion: """
            Images: one result per image (image mode). Video: --video takes a folder of frames
            (PNG/JPEG, sorted by name, timestamps from --fps) or a YUV4MPEG2 stream (a .y4m file, or -
            for standard input, e.g. `ffmpeg -i clip.mp4 -f yuv4mpegpipe - | landmarker hand --video -`),
            runs in video mode with tracking and prints one JSON line per frame.
            With several images, --annotate names a folder that receives <image name>.png.
            Handedness names the subject's actual hand in a non-mirrored image (MediaPipe Tasks
            convention); mirrored (selfie) images give the opposite label.
            """)

    @Argument(help: "PNG or JPEG files.")
    var images: [String] = []

    @Option(help: "A folder of frames, a .y4m file, or - for a YUV4MPEG2 stream on standard input.")
    var video: String?

    @Option(help: "Frame rate of a folder of frames (timestamps = frame index / fps).")
    var fps: Double = 30

    @Option(help: """
        The hand landmarker bundle (.task) holding hand_detector.tflite and \
        hand_landmarks_detector.tflite: a path, or a name looked up in the model folders \
        (default \(ModelLocation.handBundle); see landmarker --version).
        """)
    var model: String?

    @Flag(help: "Use the lite models (\(ModelLocation.liteHandBundle)).")
    var lite = false

    @Flag(help: "Print the result as JSON (one object per image; one line per frame for video).")
    var json = false

    @Option(help: "Write the image with each hand's skeleton and handedness drawn over it (PNG).")
    var annotate: String?

    @Option(help: "Maximum number of hands.")
    var numHands = 1

    @Option(help: "Minimum palm detector score.")
    var minDetectionConfidence: Float = 0.5

    @Option(help: "Minimum hand presence score.")
    var minPresenceConfidence: Float = 0.5

    @Option(help: "IoU above which a new palm counts as an already tracked hand (video).")
    var minTrackingConfidence: Float = 0.5

    @Option(help: "Threads for the model kernels.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard images.isEmpty != (video == nil) else {
            throw ValidationError("give either image files or --video, not both")
        }
        guard fps > 0 && fps <= 10_000 else { throw ValidationError("--fps must be in (0, 10000]") }
        guard !(lite && model != nil) else { throw ValidationError("give --lite or --model, not both") }
    }

    private var modelArgument: String { model ?? (lite ? ModelLocation.liteHandBundle : ModelLocation.handBundle) }

    func run() throws {
        try reportingFailures {
            if let video {
                let landmarker = try makeLandmarker(mode: .video)
                try makeRun(landmarker).runVideo(video, folderFramesPerSecond: fps)
            } else {
                try makeRun(try makeLandmarker(mode: .image)).runImages(images, json: json)
            }
        }
    }

    private func makeLandmarker(mode: RunningMode) throws -> HandLandmarker {
        let modelPath = try ModelLocation.resolve(modelArgument)
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numHands = numHands
        options.minHandDetectionConfidence = minDetectionConfidence
        options.minHandPresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        do {
            return try HandLandmarker(options: options)
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
    }

    private func makeRun(_ landmarker: HandLandmarker) -> LandmarkerRun<HandLandmarkerResult> {
        LandmarkerRun(
            detectImage: { try landmarker.detect(image: $0) },
            detectFrame: { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) },
            describe: { result, image in
                ("\(result.landmarks.count) hand(s)", result.landmarks.enumerated().map { k, hand in
                    let label = result.handedness[k].first.map(LandmarkDrawing.handLabel(for:)) ?? "?"
                    return String(format: "  hand %d: %@, wrist at (%.1f, %.1f) px", k, label,
                                  hand[0].x * Float(image.width), hand[0].y * Float(image.height))
                })
            },
            writeOutputs: { result, image, path, multiple in
                if let annotate {
                    try AnnotatedOutput.writeHands(
                        image: image, result: result, to: OutputPath.resolve(annotate, for: path, multiple: multiple))
                }
            })
    }
}
