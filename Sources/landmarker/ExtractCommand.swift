import ArgumentParser
import Foundation
import Pipeline

/// `landmarker extract pose|hand`: landmarks of every video of a dataset, one NDJSON file per
/// video, resumable and split into shards (see `Extraction`).
struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Extract landmarks from every video of a manifest into DIR/<name>.ndjson (resumable, sharded).",
        subcommands: [Pose.self, Hand.self])

    /// The options of a dataset run, shared by both tasks.
    struct DatasetOptions: ParsableArguments {
        @Option(help: """
            A text file with one video file or folder of frames per line (relative paths from \
            the manifest's folder; empty lines and # comments skipped).
            """)
        var manifest: String

        @Option(help: "The folder that receives <name>.ndjson per video (and <name>.error.json per failure).")
        var out: String

        @Option(help: "Run shard I of N (0-based): the entries whose position k in the manifest has k mod N = I.")
        var shard = Shard(index: 0, count: 1)

        @Flag(help: "No per-video lines on standard error (the summary stays).")
        var quiet = false
    }

    struct Pose: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pose", abstract: "Pose landmarks of every video of the manifest (video mode).")

        @OptionGroup var dataset: DatasetOptions
        @OptionGroup var task: PoseTaskOptions

        func run() throws {
            try reportingFailures {
                let modelPath = try ModelLocation.resolve(task.model)
                let extraction = try Extraction(
                    dataset: dataset, task: "pose", options: task.recorded, modelPath: modelPath)
                try extraction.run {
                    let landmarker = try task.makeLandmarker(modelPath: modelPath, mode: .video)
                    return EntryRun { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) }
                }
            }
        }
    }

    struct Hand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hand", abstract: "Hand landmarks of every video of the manifest (video mode).")

        @OptionGroup var dataset: DatasetOptions
        @OptionGroup var task: HandTaskOptions

        func run() throws {
            try reportingFailures {
                let modelPath = try ModelLocation.resolve(task.modelArgument)
                let extraction = try Extraction(
                    dataset: dataset, task: "hand", options: task.recorded, modelPath: modelPath)
                try extraction.run {
                    let landmarker = try task.makeLandmarker(modelPath: modelPath, mode: .video)
                    return EntryRun { try landmarker.detect(videoFrame: $0, timestampInMilliseconds: $1) }
                }
            }
        }
    }
}

/// One video's landmarker: turns a frame into its NDJSON line (the same record as
/// `landmarker pose|hand VIDEO --json`).
struct EntryRun {
    /// The line of a frame, given its image, the name the record gives it and its timestamp in
    /// milliseconds.
    let line: (MPImage, _ name: String, _ timestampMs: Int) throws -> String

    /// `detect` runs the landmarker on a frame at its timestamp in milliseconds.
    init<Result: RecordFields>(detect: @escaping (MPImage, Int) throws -> Result) {
        line = { image, name, timestampMs in
            let result = try detect(image, timestampMs)
            return try JSONOutput.encode(
                ResultRecord(image: name, width: image.width, height: image.height, result: result,
                             timestampMs: timestampMs), pretty: false)
        }
    }
}
