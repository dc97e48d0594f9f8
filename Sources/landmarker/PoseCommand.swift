import ArgumentParser
import Foundation
import ImageIO
import Pipeline

struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Detect 33 body landmarks per person in images or a video.",
        discussion: """
            Images: one result per image (image mode). Video: --video takes a folder of frames
            (PNG/JPEG, sorted by name, timestamps from --fps) or a YUV4MPEG2 stream (a .y4m file, or -
            for standard input, e.g. `ffmpeg -i clip.mp4 -f yuv4mpegpipe - | landmarker pose --video -`),
            runs in video mode with tracking and prints one JSON line per frame.
            With several images, --annotate and --mask name a folder that receives <image name>.png.
            """)

    @Argument(help: "PNG or JPEG files.")
    var images: [String] = []

    @Option(help: "A folder of frames, a .y4m file, or - for a YUV4MPEG2 stream on standard input.")
    var video: String?

    @Option(help: "Frame rate of a folder of frames (timestamps = frame index / fps).")
    var fps: Double = 30

    @Option(help: """
        The pose landmarker bundle (.task) holding pose_detector.tflite and pose_landmarks_detector.tflite: \
        a path, or a name looked up in the model folders (see landmarker --version).
        """)
    var model = ModelLocation.poseBundle

    @Flag(help: "Print the result as JSON (one object per image; one line per frame for video).")
    var json = false

    @Option(help: "Write the image with the skeleton drawn over it (PNG).")
    var annotate: String?

    @Option(help: "Write the segmentation mask as an 8-bit PNG.")
    var mask: String?

    @Option(help: "Maximum number of people.")
    var numPoses = 1

    @Option(help: "Minimum detector score.")
    var minDetectionConfidence: Float = 0.5

    @Option(help: "Minimum pose presence score.")
    var minPresenceConfidence: Float = 0.5

    @Option(help: "Minimum IoU to keep tracking a person (video).")
    var minTrackingConfidence: Float = 0.5

    @Option(help: "Threads for the model kernels.")
    var threads = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard images.isEmpty != (video == nil) else {
            throw ValidationError("give either image files or --video, not both")
        }
        guard fps > 0 && fps <= 10_000 else { throw ValidationError("--fps must be in (0, 10000]") }
    }

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

    private func makeLandmarker(mode: RunningMode) throws -> PoseLandmarker {
        let model = try ModelLocation.resolve(model)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = model
        options.baseOptions.numThreads = threads
        options.runningMode = mode
        options.numPoses = numPoses
        options.minPoseDetectionConfidence = minDetectionConfidence
        options.minPosePresenceConfidence = minPresenceConfidence
        options.minTrackingConfidence = minTrackingConfidence
        options.shouldOutputSegmentationMasks = mask != nil
        do {
            return try PoseLandmarker(options: options)
        } catch {
            throw CommandFailure("\(model): \(error)")
        }
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
            writeOutputs: { result, image, path, multiple in
                if let annotate {
                    try AnnotatedOutput.writePose(
                        image: image, result: result, to: OutputPath.resolve(annotate, for: path, multiple: multiple))
                }
                if let mask {
                    try AnnotatedOutput.writeMasks(
                        result.segmentationMasks ?? [], width: image.width, height: image.height,
                        to: OutputPath.resolve(mask, for: path, multiple: multiple))
                }
            })
    }
}
