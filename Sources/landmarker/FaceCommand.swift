import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision

struct FaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "face",
        abstract: "Detect 468 face landmarks (478 with --refine) of each face in images or a video.",
        discussion: """
            MediaPipe's Face Mesh: the short-range face detector (faces within about 2 m of the \
            camera), then the face landmark model on each face. \
            Images: one result per image (image mode); with several, one line per image as soon as \
            it is done, and an image that fails gives an error line while the rest go on. \
            Video: a video file (each frame's presentation time is its timestamp), a YUV4MPEG2 \
            stream or a folder of frames (PNG/JPEG, sorted by name, timestamps from --fps), run in \
            video mode with tracking: one line per frame, each face with its track id (trackIds), \
            progress on standard error. \
            --annotate writes a PNG for one image, a folder of <image name>.png for several, and a \
            video file (through ffmpeg, at the input's frame rate) for a video, with each face's \
            mesh points and contours drawn.
            """)

    @OptionGroup var input: InputOptions

    @OptionGroup var task: FaceTaskOptions

    @Flag(help: "Print results as JSON: one pretty object for one image, a line per image or frame otherwise.")
    var json = false

    @Option(help: "Write the image (or video) with each face's mesh points and contours drawn over it.")
    var annotate: String?

    func run() throws {
        let (choice, outputs) = try input.plan([.annotate: annotate].compactMapValues { $0 })
        switch choice {
        case .video(let source):
            try makeRun(try makeLandmarker(mode: .video)).runVideo(
                source, folderFramesPerSecond: input.fps ?? 30, json: json, outputs: outputs, quiet: input.quiet,
                allowShort: input.allowShort)
        case .images(let paths):
            try makeRun(try makeLandmarker(mode: .image)).runImages(paths, json: json, outputs: outputs)
        }
    }

    private func makeLandmarker(mode: RunningMode) throws -> FaceLandmarker {
        try task.makeLandmarker(modelPath: try ModelLocation.resolve(task.modelArgument), mode: mode)
    }

    private func makeRun(_ landmarker: FaceLandmarker) -> LandmarkerRun<FaceLandmarkerResult> {
        LandmarkerRun(
            detectImage: { try landmarker.detect(image: $0) },
            detectFrame: { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: Int($1 / 1000)) },
            describe: { result, image in
                ("\(result.faceLandmarks.count) face(s)", result.faceLandmarks.enumerated().map { k, face in
                    // Landmark 1 is the nose tip.
                    "  face \(k)" + trackDescription(result.trackIds, k) + ": \(face.count) landmarks, "
                        + formatted("nose tip at (%.1f, %.1f) px",
                                    face[1].x * Float(image.width), face[1].y * Float(image.height))
                })
            },
            draw: AnnotatedOutput.drawFaces(_:on:),
            maskPixels: nil)
    }
}
