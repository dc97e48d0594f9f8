import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MediaPipeTasksVision

/// `landmarker soak`: runs one landmarker over many frames and checks that its resident memory
/// stays flat once warmed up.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Run a pose, hand, face or holistic landmarker over many frames and check that resident memory stays flat.",
        discussion: """
            The PNG/JPEG frames of --frames (sorted by name) are decoded into memory first, then fed
            in a cycle until --count frames have run, with timestamps 40 ms apart (25 fps). Video
            mode calls detect(videoFrame:timestampInMilliseconds:); live-stream mode calls
            detectAsync(image:timestampInMilliseconds:) with at most two frames outstanding and
            counts the frames the landmarker drops. The resident set size (/proc/self/statm) is
            printed every --every frames and after the last one. The command fails (exit status 1)
            when the size after the last frame exceeds the size after --warm-up frames by more
            than --max-growth-kib.
            """)

    enum Mode: String, ExpressibleByArgument, CaseIterable {
        case video, livestream
    }

    /// Milliseconds between two timestamps (25 fps).
    static let frameIntervalMs = 40

    @Argument(help: "pose, hand, face or holistic.")
    var task: PipelineBenchCommand.Task

    @Option(help: "A folder of PNG/JPEG frames, fed in a cycle.")
    var frames: String

    @Option(parsing: .unconditional, help: "Frames to run in all.")
    var count = 10_000

    @Option(help: "video: detect(videoFrame:timestampInMilliseconds:); livestream: detectAsync(image:timestampInMilliseconds:).")
    var mode: Mode = .video

    @Option(parsing: .unconditional, help: "Threads for the model kernels.")
    var threads = 1

    @Option(parsing: .unconditional, help: "Print the resident size every this many frames.")
    var every = 500

    @Option(parsing: .unconditional, help: "The frame after which the resident size is the baseline.")
    var warmUp = 500

    @Option(
        parsing: .unconditional,
        help: "The most the resident size may grow from the baseline to the last frame, in KiB.")
    var maxGrowthKib = 2048

    @Option(help: """
        The landmarker bundle (.task): a path, or a name looked up in the model folders; \
        default \(ModelLocation.poseBundle) for pose, \(ModelLocation.handBundle) for hand, \
        \(ModelLocation.faceBundle) for face, \(ModelLocation.holisticBundle) for holistic.
        """)
    var model: String?

    func validate() throws {
        guard count >= 1 && count <= 100_000_000 else { throw ValidationError("--count must be between 1 and 100000000") }
        guard warmUp >= 1 && warmUp <= count else { throw ValidationError("--warm-up must be between 1 and --count") }
        guard every >= 1 else { throw ValidationError("--every must be at least 1") }
        guard maxGrowthKib >= 0 else { throw ValidationError("--max-growth-kib must not be negative") }
        guard threads >= 1 && threads <= 256 else { throw ValidationError("--threads must be between 1 and 256") }
    }

    private var modelArgument: String { model ?? task.defaultBundle }

    func run() throws {
        let modelPath = try ModelLocation.resolve(modelArgument)
        let images = try FrameInput.decodeFolder(frames)
        let feeder = try makeFeeder(modelPath: modelPath)
        report("\(task.rawValue), \(mode.rawValue) mode, \(modelPath): \(count) frames cycling over "
              + "\(images.count) of \(images[0].width)x\(images[0].height), \(threads) thread(s)")
        var baseline: Int?
        var peakAfterWarmUp = 0
        var last = 0
        for index in 0..<count {
            try feeder.feed(images[index % images.count], timestampInMilliseconds: index * Self.frameIntervalMs)
            let done = index + 1
            guard done % every == 0 || done == warmUp || done == count else { continue }
            last = try ResidentMemory.currentBytes()
            if done == warmUp { baseline = last }
            if let baseline {
                peakAfterWarmUp = max(peakAfterWarmUp, last)
                report(formatted("frame %ld: resident %.3f MiB, %+.0f KiB since frame %ld",
                             done, Self.mebibytes(last), Double(last - baseline) / 1024, warmUp))
            } else {
                report(formatted("frame %ld: resident %.3f MiB", done, Self.mebibytes(last)))
            }
        }
        let outcome = try feeder.finish()
        report("processed \(outcome.processed), with a result \(outcome.withResult), dropped \(outcome.dropped), "
              + "errors \(outcome.errors)")
        // `warmUp` is in 1...count, so the baseline was taken.
        let start = baseline ?? last
        let growthKib = Double(last - start) / 1024
        report(formatted("resident after frame %ld: %.3f MiB; after frame %ld: %.3f MiB; growth %+.0f KiB "
                     + "(limit %ld KiB); peak after warm-up %.3f MiB",
                     warmUp, Self.mebibytes(start), count, Self.mebibytes(last), growthKib, maxGrowthKib,
                     Self.mebibytes(peakAfterWarmUp)))
        guard last - start <= maxGrowthKib * 1024 else {
            throw CommandFailure(formatted("resident memory grew by %.0f KiB between frame %ld and frame %ld, more than %ld KiB",
                                        growthKib, warmUp, count, maxGrowthKib))
        }
    }

    private static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }

    /// Writes a line to standard output at once (unbuffered), so that a long run shows its
    /// progress in a log as it goes.
    private func report(_ line: String) {
        printLine(line)
    }

    /// A landmarker of the chosen task and mode, wrapped in the feeder that drives it.
    private func makeFeeder(modelPath: String) throws -> any SoakFeeder {
        let runningMode: RunningMode = mode == .video ? .video : .liveStream
        let receiver = LiveStreamSoakReceiver()
        let liveStream = runningMode == .liveStream
        let landmarker: any TaskLandmarker
        do {
            switch task {
            case .pose:
                let options = PoseLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                if liveStream { options.poseLandmarkerLiveStreamDelegate = receiver }
                landmarker = try PoseLandmarker(options: options)
            case .hand:
                let options = HandLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                options.numHands = 2
                if liveStream { options.handLandmarkerLiveStreamDelegate = receiver }
                landmarker = try HandLandmarker(options: options)
            case .face:
                let options = FaceLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                options.numFaces = 2
                if liveStream { options.faceLandmarkerLiveStreamDelegate = receiver }
                landmarker = try FaceLandmarker(options: options)
            case .holistic:
                let options = HolisticLandmarkerOptions()
                options.baseOptions.modelAssetPath = modelPath
                options.baseOptions.numThreads = threads
                options.runningMode = runningMode
                if liveStream { options.holisticLandmarkerLiveStreamDelegate = receiver }
                landmarker = try HolisticLandmarker(options: options)
            }
        } catch {
            throw CommandFailure("\(modelPath): \(error)")
        }
        guard liveStream else {
            return VideoSoakFeeder(detect: { image, timestamp in
                try landmarker.findsAny(in: image, video: true, timestampInMilliseconds: timestamp)
            }, close: landmarker.close)
        }
        return LiveStreamSoakFeeder(receiver: receiver, submit: { image, timestamp in
            try landmarker.detectAsync(image: image, timestampInMilliseconds: timestamp)
        }, close: landmarker.close)
    }
}
