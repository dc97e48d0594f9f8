import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import MediaPipeTasksVision

/// `landmarker extract pose|hand|face`: landmarks of every video of a dataset, one NDJSON file per
/// video, resumable and split into shards (see `Extraction`).
struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Extract landmarks from every video of a manifest into DIR/<name>.ndjson (resumable, sharded).",
        subcommands: [Pose.self, Hand.self, Face.self, Holistic.self])

    /// The options of a dataset run, shared by every task.
    struct DatasetOptions: ParsableArguments {
        @Option(help: """
            A text file with one video file or folder of frames per line (relative paths from \
            the manifest's folder; empty lines and # comments skipped).
            """)
        var manifest: String

        @Option(help: "The folder that receives <name>.ndjson per video (and <name>.error.json per failure).")
        var out: String

        @Option(
            parsing: .unconditional,
            help: "Run shard I of N (0-based): the entries whose position k in the manifest has k mod N = I.",
            transform: Shard.parse)
        var shard = Shard(index: 0, count: 1)

        @Flag(help: "No per-video lines and no progress within videos on standard error (the summary stays).")
        var quiet = false

        @Flag(help: """
            Accept video files that end before their containers say they would (cut short or \
            corrupt): such an entry is done, with a warning and the shortfall in its header, \
            instead of failed.
            """)
        var allowShort = false
    }

    /// Runs the extraction of `task` ("pose", "hand" or "face") with its options. The output
    /// folder and the manifest are checked first: a usage error (`ValidationError`) when either
    /// is refused, before the model is looked for or anything is written.
    static func extract(_ dataset: DatasetOptions, task: String, options: some LandmarkerTaskOptions) throws {
        try OutputPlan.checkWritableFolder(dataset.out, option: "--out \(dataset.out)")
        let manifest = try readManifest(dataset.manifest)
        let modelPath = try ModelLocation.resolve(options.modelArgument)
        let extraction = try Extraction(
            manifest: manifest, dataset: dataset, task: task, options: options.recorded, modelPath: modelPath)
        try extraction.run { try options.makeEntryRun(modelPath: modelPath) }
    }

    /// The manifest at `path`.
    /// - Throws: `ValidationError` (a usage error) when it is refused (`DatasetManifest.Refusal`);
    ///   `CommandFailure` when libcrypto, needed to hash a long entry name, cannot be loaded.
    static func readManifest(_ path: String) throws -> DatasetManifest {
        do {
            return try DatasetManifest(contentsOf: path)
        } catch let refusal as DatasetManifest.Refusal {
            throw ValidationError(refusal.description)
        }
    }

    struct Pose: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pose", abstract: "Pose landmarks of every video of the manifest (video mode).")

        @OptionGroup var dataset: DatasetOptions
        @OptionGroup var task: PoseTaskOptions

        func run() throws { try ExtractCommand.extract(dataset, task: "pose", options: task) }
    }

    struct Hand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hand", abstract: "Hand landmarks of every video of the manifest (video mode).")

        @OptionGroup var dataset: DatasetOptions
        @OptionGroup var task: HandTaskOptions

        func run() throws { try ExtractCommand.extract(dataset, task: "hand", options: task) }
    }

    struct Holistic: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "holistic",
            abstract: "Body, face and hand landmarks of every video of the manifest (video mode).")

        @OptionGroup var dataset: DatasetOptions
        @OptionGroup var task: HolisticTaskOptions

        func run() throws { try ExtractCommand.extract(dataset, task: "holistic", options: task) }
    }

    struct Face: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "face", abstract: "Face landmarks of every video of the manifest (video mode).")

        @OptionGroup var dataset: DatasetOptions
        @OptionGroup var task: FaceTaskOptions

        func run() throws { try ExtractCommand.extract(dataset, task: "face", options: task) }
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
