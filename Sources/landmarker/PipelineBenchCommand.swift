import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision

/// `landmarker pipeline-bench`: the whole landmarker's time per frame (detector, landmark model,
/// pre- and post-processing), on frames decoded into memory before the clock starts.
struct PipelineBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline-bench",
        abstract: "Time the whole pose, hand, face or holistic landmarker per frame: median, p10 and p90 in ms.",
        discussion: """
            The PNG/JPEG frames of --frames (sorted by name) are decoded into memory first; decoding
            is not timed. Image mode times detect(image:) on every frame; video mode times
            detect(videoFrame:timestampInMilliseconds:) over the frames in order with 25 fps
            timestamps (frame index x 40 ms), with a fresh landmarker for each pass, so every pass
            starts without tracking. --runs passes; the statistics are over every frame of every pass.
            """)

    enum Task: String, ExpressibleByArgument, CaseIterable {
        case pose, hand, face, holistic

        /// The bundle used without `--model`.
        var defaultBundle: String {
            switch self {
            case .pose: return ModelLocation.poseBundle
            case .hand: return ModelLocation.handBundle
            case .face: return ModelLocation.faceBundle
            case .holistic: return ModelLocation.holisticBundle
            }
        }
    }

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case image, video
    }

    /// Milliseconds between two video-mode timestamps (25 fps).
    static let frameIntervalMs = 40

    @Argument(help: "pose, hand, face or holistic.")
    var task: Task

    @Option(help: "A folder of PNG/JPEG frames.")
    var frames: String

    @Option(help: "image: detect(image:) per frame; video: detect(videoFrame:timestampInMilliseconds:) with tracking.")
    var mode: Mode = .image

    @Option(parsing: .unconditional, help: "Threads for the model kernels.")
    var threads = 1

    @Option(parsing: .unconditional, help: "Passes over all the frames.")
    var runs = 3

    @Option(parsing: .unconditional, help: "Pose: the most people per frame (numPoses).")
    var numPoses = 1

    @Option(help: """
        The landmarker bundle (.task): a path, or a name looked up in the model folders; \
        default \(ModelLocation.poseBundle) for pose, \(ModelLocation.handBundle) for hand, \
        \(ModelLocation.faceBundle) for face, \(ModelLocation.holisticBundle) for holistic.
        """)
    var model: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func validate() throws {
        guard threads >= 1 && threads <= 256 else { throw ValidationError("--threads must be between 1 and 256") }
        guard runs >= 1 && runs <= 100_000 else { throw ValidationError("--runs must be between 1 and 100000") }
        guard task == .pose || numPoses == 1 else { throw ValidationError("--num-poses applies to pose") }
    }

    private var modelArgument: String { model ?? task.defaultBundle }

    func run() throws {
        let modelPath = try ModelLocation.resolve(modelArgument)
        let images = try FrameInput.decodeFolder(frames)
        var milliseconds: [Double] = []
        milliseconds.reserveCapacity(images.count * runs)
        var framesWithResult = 0
        switch mode {
        case .image:
            let detect = try makeDetector(mode: .image, modelPath: modelPath)
            for _ in 0..<runs {
                framesWithResult = 0
                for (index, image) in images.enumerated() {
                    let found = try timed(into: &milliseconds) { try detect(image, index) }
                    if found { framesWithResult += 1 }
                }
            }
        case .video:
            for _ in 0..<runs {
                let detect = try makeDetector(mode: .video, modelPath: modelPath)
                framesWithResult = 0
                for (index, image) in images.enumerated() {
                    let found = try timed(into: &milliseconds) { try detect(image, index) }
                    if found { framesWithResult += 1 }
                }
            }
        }
        milliseconds.sort()
        func percentile(_ p: Double) -> Double {
            milliseconds[min(milliseconds.count - 1, Int((Double(milliseconds.count - 1) * p).rounded()))]
        }
        let report = PipelineBenchReport(
            task: task.rawValue, mode: mode.rawValue, model: modelPath, threads: threads, runs: runs, numPoses: numPoses,
            frames: images.count, width: images[0].width, height: images[0].height,
            medianMs: percentile(0.5), p10Ms: percentile(0.1), p90Ms: percentile(0.9),
            meanMs: milliseconds.reduce(0, +) / Double(milliseconds.count),
            framesWithResultLastRun: framesWithResult)
        if json {
            print(try JSONOutput.encode(report, pretty: true))
        } else {
            print("\(task.rawValue), \(mode.rawValue) mode, \(modelPath): \(images.count) frames "
                  + "\(images[0].width)x\(images[0].height), \(threads) thread(s), \(runs) run(s)"
                  + (task == .pose ? ", numPoses \(numPoses)" : ""))
            print(formatted("per frame: median %.3f ms  p10 %.3f ms  p90 %.3f ms  mean %.3f ms",
                         report.medianMs, report.p10Ms, report.p90Ms, report.meanMs))
            print("frames with a result (last run): \(framesWithResult) of \(images.count)")
        }
    }

    /// Runs `body`, appends its wall-clock time in milliseconds, and returns its result.
    private func timed<T>(into milliseconds: inout [Double], _ body: () throws -> T) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        let elapsed = clock.now - start
        milliseconds.append(Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) * 1e-15)
        return result
    }

    /// Creates a landmarker and returns a closure that runs one frame through it (in video mode
    /// the frame index gives the timestamp) and says whether it found at least one pose, hand or
    /// face (hand: `numHands` 2; face: `numFaces` 1; holistic: one person).
    private func makeDetector(mode runningMode: RunningMode, modelPath: String) throws -> (MPImage, Int) throws -> Bool {
        let landmarker: any TaskLandmarker
        do {
            switch task {
            case .pose:
                let options = PoseLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                options.numPoses = numPoses
                landmarker = try PoseLandmarker(options: options)
            case .hand:
                let options = HandLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                options.numHands = 2
                landmarker = try HandLandmarker(options: options)
            case .face:
                let options = FaceLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                landmarker = try FaceLandmarker(options: options)
            case .holistic:
                let options = HolisticLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                landmarker = try HolisticLandmarker(options: options)
            }
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
        return { image, index in
            try landmarker.findsAny(
                in: image, video: runningMode == .video, timestampInMilliseconds: index * Self.frameIntervalMs)
        }
    }
}

/// The JSON form of `landmarker pipeline-bench --json`; times in milliseconds per frame.
struct PipelineBenchReport: Encodable {
    let task: String
    let mode: String
    let model: String
    let threads: Int
    let runs: Int
    /// Pose: `numPoses` (1 for hand, which runs with `numHands` 2, and for face, `numFaces` 1).
    let numPoses: Int
    let frames: Int
    let width: Int
    let height: Int
    let medianMs: Double
    let p10Ms: Double
    let p90Ms: Double
    let meanMs: Double
    /// Frames of the last pass on which at least one pose (or hand, or face) was found.
    let framesWithResultLastRun: Int
}
