import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision

struct HolisticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "holistic",
        abstract: "Detect the body, face and hand landmarks of a person in images or a video.",
        discussion: """
            MediaPipe's Holistic: 33 body landmarks, 468 face landmarks (478 with --refine) and 21 \
            landmarks for each hand, the face and hands found from the body. \
            Images: one result per image (image mode), each image on its own. \
            Video: a video file, a YUV4MPEG2 stream or a folder of frames (timestamps from --fps, \
            or --frame-step-us: frame k at (k + 1) · N µs, the clock of MediaPipe's legacy \
            solutions, 33333 µs, which reproduces their smoothing exactly), run in video mode: \
            the body tracked and smoothed, the face and hands tracked; one line per frame. \
            --json writes {"image", "width", "height", "people": [{"poseLandmarks", \
            "poseWorldLandmarks", "faceLandmarks", "leftHandLandmarks", "leftHandWorldLandmarks", \
            "rightHandLandmarks", "rightHandWorldLandmarks", "trackId" (video)}]}, a part null when \
            not found, "left" the person's own left. \
            --annotate draws each person's skeleton, face contours and hands; --mask writes the \
            people's segmentation masks (their per-pixel maximum), legacy Holistic's masks. Both write a PNG for one image, a folder of <image name>.png for \
            several, and a video file (through ffmpeg) for a video.
            """)

    @OptionGroup var input: InputOptions

    @OptionGroup var task: HolisticTaskOptions

    @Option(
        parsing: .unconditional,
        help: "Folder of frames: time frame k at (k + 1) · N microseconds instead of using --fps (33333: MediaPipe's legacy solutions).")
    var frameStepUs: Int64?

    @Flag(help: "Print results as JSON: one pretty object for one image, a line per image or frame otherwise.")
    var json = false

    @Option(help: "Write the image (or video) with each person's skeleton, face contours and hands drawn over it.")
    var annotate: String?

    @Option(help: "Write the people's segmentation mask: an 8-bit grey PNG (or a grey video).")
    var mask: String?

    func validate() throws {
        if let frameStepUs {
            guard (1...10_000_000).contains(frameStepUs) else {
                throw ValidationError("--frame-step-us must be in 1...10000000 (at most ten seconds a frame)")
            }
            guard input.fps == nil else { throw ValidationError("give --fps or --frame-step-us, not both") }
        }
    }

    func run() throws {
        let (choice, outputs) = try input.plan([.annotate: annotate, .mask: mask].compactMapValues { $0 })
        switch choice {
        case .video(let source):
            if frameStepUs != nil && PathKind(atPath: source) != .folder {
                throw ValidationError("--frame-step-us applies to a folder of frames: \(source) carries its own timing")
            }
            try makeRun(try makeLandmarker(mode: .video)).runVideo(
                source, folderFramesPerSecond: input.fps ?? 30, folderFrameStepMicroseconds: frameStepUs, json: json,
                outputs: outputs, quiet: input.quiet, allowShort: input.allowShort)
        case .images(let paths):
            if frameStepUs != nil { throw ValidationError("--frame-step-us applies to a folder of frames, not to images") }
            try makeRun(try makeLandmarker(mode: .image)).runImages(paths, json: json, outputs: outputs)
        }
    }

    private func makeLandmarker(mode: RunningMode) throws -> HolisticLandmarker {
        try task.makeLandmarker(modelPath: try ModelLocation.resolve(task.modelArgument), mode: mode, masks: mask != nil)
    }

    private func makeRun(_ landmarker: HolisticLandmarker) -> LandmarkerRun<HolisticLandmarkerResult> {
        LandmarkerRun(
            detectImage: { try landmarker.detect(image: $0) },
            detectFrame: { try landmarker.detect(videoFrame: $0, timestampInMicroseconds: $1) },
            describe: { result, _ in
                ("\(result.poseLandmarks.count) person(s)", result.poseLandmarks.indices.map { k in
                    let parts = [("face", result.faceLandmarks[k]), ("left hand", result.leftHandLandmarks[k]),
                                 ("right hand", result.rightHandLandmarks[k])]
                    let found = parts.filter { !$0.1.isEmpty }.map { "\($0.0) (\($0.1.count))" }
                    return "  person \(k)" + trackDescription(result.trackIds, k) + ": body (33)"
                        + found.map { ", " + $0 }.joined()
                })
            },
            draw: AnnotatedOutput.drawHolistic(_:on:),
            maskPixels: { result, image in
                AnnotatedOutput.maskPixels(result.poseSegmentationMasks, width: image.width, height: image.height)
            })
    }
}
