import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import SystemInterface
import VideoFiles

/// A dataset run of `landmarker extract`: for each manifest entry of the shard, in manifest
/// order, `DIR/<name>.ndjson`: a header line (`ExtractionHeader`), then one line per frame.
/// `<name>` is the entry's output name (`DatasetManifest.Entry.outputName`): its file name
/// without the extension, or, where that is too long for the file system, a prefix of it and a
/// hash, which the header records (`ShortenedName`).
///
/// - **Whole files only.** The frame lines go to a temporary file, then header and frames to a
///   second one, renamed to `<name>.ndjson` when complete; a file under that name is whole.
/// - **Resume.** An entry whose output exists with a header naming the same input (size and
///   SHA-256), task, options, model files and tool version is skipped; any other is redone.
/// - **Progress.** Within each video, frames done, frames per second and the time left go to
///   standard error (`ProgressReport`, labelled with the entry), as in `landmarker pose VIDEO`;
///   `--quiet` silences them with the per-entry lines.
/// - **Failures stay local.** An entry that fails gets `DIR/<name>.error.json` (what failed,
///   where) and the run goes on; a later success removes it. The last line on standard error
///   summarises done / skipped / failed; the exit status is 1 when any failed.
/// - **Whole videos only.** An entry without frames fails, and so does a video file that ends
///   before its container said it would (`VideoShortfall`), unless the run allows short videos
///   (`--allow-short`): then it is done, with a warning and the shortfall in its header
///   (`ShortfallRecord`), and only a run that allows short videos takes it as done on resume.
/// - **Same bytes for any split.** An output depends only on its entry, the options and the
///   models: not on the shard, the order shards run in, or the thread count (the landmarkers
///   give bit-identical results for every count), so 1 or N shards write identical files.
struct Extraction {
    let entries: [DatasetManifest.Entry]
    let shard: Shard
    let outputFolder: String
    let quiet: Bool
    /// Whether a video file that ends short of its container's promise is done rather than failed.
    let allowShort: Bool
    /// The header fields every output of this run shares.
    let task: String
    let options: [String: String]
    let models: [String: String]
    /// Where the progress within a video goes (standard error; tests collect it).
    var progressOutput = ProgressReport.Output.standardError

    /// The run of `dataset`'s shard of `manifest`, `task` with its recorded `options` and the
    /// model at `modelPath` (hashed here); creates the output folder.
    /// - Throws: `CommandFailure` when the model cannot be hashed or the folder created.
    init(manifest: DatasetManifest, dataset: ExtractCommand.DatasetOptions, task: String, options: [String: String],
         modelPath: String) throws {
        entries = manifest.shard(dataset.shard.index, of: dataset.shard.count)
        shard = dataset.shard
        outputFolder = dataset.out
        quiet = dataset.quiet
        allowShort = dataset.allowShort
        self.task = task
        self.options = options
        let modelName = URL(fileURLWithPath: modelPath).lastPathComponent
        models = [modelName: try FileDigest.sha256(ofFile: modelPath).hex]
        do {
            try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("\(outputFolder): cannot create the output folder: \(errorText(error))")
        }
    }

    /// Runs every entry of the shard; `makeRun` gives a fresh landmarker per video (each video
    /// starts its own tracking).
    func run(_ makeRun: () throws -> EntryRun) throws {
        var done = 0, skipped = 0, failed = 0
        for (position, entry) in entries.enumerated() {
            let label = "extract: [\(position + 1)/\(entries.count)] \(entry.path)"
            do {
                let input = try InputDescription(entry)
                let expected = ExtractionHeader(
                    input: input, shortenedName: try ShortenedName(entry), frames: nil, framesPerSecond: nil,
                    shortfall: nil, task: task, options: options, models: models, version: VersionReport.packageVersion)
                if let existing = ExtractionHeader.read(fromFirstLineOf: outputPath(entry)), existing.sameWork(as: expected),
                   existing.shortfall == nil || allowShort {
                    skipped += 1
                    if !quiet { printError("\(label): already done") }
                    continue
                }
                let (frames, shortfall) = try extract(entry, expecting: expected, with: makeRun(), label: label)
                try? FileManager.default.removeItem(atPath: errorPath(entry))
                done += 1
                if let shortfall { printError("\(label): warning: \(shortfall); accepted (--allow-short)") }
                if !quiet { printError("\(label): \(frames) frames") }
            } catch {
                failed += 1
                let message = (error as? CommandFailure)?.message ?? errorText(error)
                writeErrorFile(entry, message: message)
                printError("\(label): FAILED: \(message)")
            }
        }
        printError("extract: shard \(shard): \(done) done, \(skipped) skipped, \(failed) failed "
                   + "(\(entries.count) entries in this shard)")
        if failed > 0 { throw ExitCode.failure }
    }

    private func outputPath(_ entry: DatasetManifest.Entry) -> String {
        outputFolder + "/" + entry.outputName + ".ndjson"
    }

    private func errorPath(_ entry: DatasetManifest.Entry) -> String {
        outputFolder + "/" + entry.outputName + ".error.json"
    }

    /// The suffix of this process's temporary files: `.partial.<host>.<pid>`. The host name
    /// keeps runs on several machines that share the output folder from judging each other's
    /// process ids.
    private static let partialSuffix = ".partial.\(hostName).\(getpid())"

    /// The host name, at most 64 bytes (Linux's `HOST_NAME_MAX`, which
    /// `DatasetManifest.maxOutputNameBytes` counts on).
    private static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let bytes = buffer.prefix { $0 != 0 }.prefix(64).map { UInt8(bitPattern: $0) }
        let name = String(decoding: bytes, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }()

    /// The temporary file `<kind>` of `entry` (`.<name>.<kind>.partial.<host>.<pid>`).
    private func partialPath(_ entry: DatasetManifest.Entry, _ kind: String) -> String {
        outputFolder + "/." + entry.outputName + "." + kind + Self.partialSuffix
    }

    /// Removes the temporary files a stopped run on this host left for `entry`
    /// (`.<name>.*.partial.<host>.<pid>` of a process that no longer runs); those of other hosts
    /// are left alone.
    private func removeStalePartials(of entry: DatasetManifest.Entry) {
        let prefix = "." + entry.outputName + "."
        let thisHost = ".partial." + Self.hostName + "."
        StalePartialFiles.remove(in: outputFolder) { file in
            guard file.hasPrefix(prefix), let marker = file.ranges(of: thisHost).last else { return nil }
            return pid_t(file[marker.upperBound...])
        }
    }

    /// Writes `entry`'s output, reporting progress under `label`; returns its frame count and,
    /// for a video file that ended short of its container's promise (which only a run that
    /// allows short videos accepts), the shortfall.
    private func extract(
        _ entry: DatasetManifest.Entry, expecting header: ExtractionHeader, with run: EntryRun, label: String
    ) throws -> (frames: Int, shortfall: VideoShortfall?) {
        removeStalePartials(of: entry)
        let framesPath = partialPath(entry, "frames")
        let wholePath = partialPath(entry, "ndjson")
        defer {
            for path in [framesPath, wholePath] {
                unlink(path)
                PartialFiles.shared.finished(path)
            }
        }
        let input = try FrameInput.open(
            entry.resolvedPath, folderFramesPerSecond: Self.folderFramesPerSecond, acceptingShortfall: allowShort)
        let frames = try PartialFiles.shared.creating(framesPath) { try LineFile(creating: framesPath) }
        var count = 0
        // A folder's frames are named by their file names alone, so that outputs do not depend
        // on where the manifest lies.
        let folderPrefix = entry.resolvedPath + "/"
        let progress = ProgressReport(total: input.frameCount, quiet: quiet, label: label, output: progressOutput)
        // Also when a frame fails: the terminal's line is cleared before the entry's FAILED line.
        defer { progress.finish() }
        try input.forEachFrame(reporting: progress) { frame, image in
            let name = frame.name.hasPrefix(folderPrefix) ? String(frame.name.dropFirst(folderPrefix.count)) : frame.name
            do {
                try frames.append(try run.line(image, name, frame.timestampMs))
            } catch {
                throw CommandFailure("frame \(count) (\(frame.name)): \(errorText(error))")
            }
            count += 1
        }
        try frames.close()

        let complete = ExtractionHeader(
            input: header.input, shortenedName: header.shortenedName, frames: count, framesPerSecond: input.framesPerSecond,
            shortfall: input.shortfall.map(ShortfallRecord.init), task: task, options: options, models: models,
            version: header.version)
        let whole = try PartialFiles.shared.creating(wholePath) { try LineFile(creating: wholePath) }
        try whole.append(try JSONOutput.encode(complete, pretty: false))
        try whole.appendContents(ofFile: framesPath)
        try whole.close()
        guard rename(wholePath, outputPath(entry)) == 0 else {
            throw CommandFailure("\(outputPath(entry)): \(systemErrorText())")
        }
        return (count, input.shortfall)
    }

    /// Frame rate given to a folder of frames (timestamps = index / rate), as `landmarker pose`'s
    /// default `--fps`.
    static let folderFramesPerSecond = 30.0

    /// `<name>.error.json`: the entry, the message and the time, written through a temporary name.
    private func writeErrorFile(_ entry: DatasetManifest.Entry, message: String) {
        struct Failure: Encodable {
            let input: String
            let error: String
            let task: String
            let version: String
        }
        let failure = Failure(input: entry.path, error: message, task: task, version: VersionReport.packageVersion)
        guard let text = try? JSONOutput.encode(failure, pretty: true) else { return }
        let temporary = partialPath(entry, "error")
        defer { PartialFiles.shared.finished(temporary) }
        let created = PartialFiles.shared.creating(temporary) { () -> Bool in
            FileManager.default.createFile(atPath: temporary, contents: Data((text + "\n").utf8))
        }
        if created {
            rename(temporary, errorPath(entry))
        }
    }
}

/// What an entry's input is: its path as the manifest writes it, its size in bytes and its
/// SHA-256 (for a folder of frames: over the names and contents of the frame files
/// `FrameInput.frameNames(inFolder:)` lists, the frames the entry reads, in name order).
struct InputDescription: Codable, Equatable {
    let path: String
    let bytes: Int
    let sha256: String

    init(_ entry: DatasetManifest.Entry) throws {
        path = entry.path
        let kind = PathKind(atPath: entry.resolvedPath)
        guard kind != .missing else { throw CommandFailure("\(entry.path): no such file or folder") }
        if kind == .file {
            (sha256, bytes) = try FileDigest.sha256(ofFile: entry.resolvedPath)
            return
        }
        let digest = try FileDigest()
        var total = 0
        for name in try FrameInput.frameNames(inFolder: entry.resolvedPath) {
            Data((name + "\n").utf8).withUnsafeBytes { digest.update($0) }
            total += try digest.update(contentsOf: entry.resolvedPath + "/" + name)
        }
        (sha256, bytes) = (digest.finish(), total)
    }
}

/// How an output name was shortened (`DatasetManifest.outputName(for:sha256:)`): the entry's
/// full name and its SHA-256, whose first hex digits end the output's name.
struct ShortenedName: Codable, Equatable {
    let name: String
    let sha256: String

    /// The record of `entry`'s shortened output name; `nil` when its name is kept.
    /// - Throws: `CommandFailure` when libcrypto cannot be loaded.
    init?(_ entry: DatasetManifest.Entry) throws {
        guard entry.outputName != entry.name else { return nil }
        name = entry.name
        sha256 = try FileDigest.sha256(ofText: entry.name)
    }
}

/// The first line of an extraction output.
struct ExtractionHeader: Codable, Equatable {
    var format = "landmarker-extract/1"
    let input: InputDescription
    /// The entry's full name and its SHA-256, where its output name is a shortened one;
    /// absent where the output is named after the entry as it is.
    let shortenedName: ShortenedName?
    /// Frames in the output, and the rate the timestamps of a folder or the output videos use;
    /// `nil` only in the header a run expects before it has read the video.
    let frames: Int?
    let framesPerSecond: Double?
    /// How far a video file fell short of its container's promise, in a run that allows short
    /// videos; absent for a whole video (and so in every output of a run that does not).
    let shortfall: ShortfallRecord?
    let task: String
    /// The options that decide the results (`PoseTaskOptions.recorded`, `HandTaskOptions.recorded`).
    let options: [String: String]
    /// Model file name → SHA-256.
    let models: [String: String]
    /// The tool's version (`landmarker --version`).
    let version: String

    /// Whether `other` describes the same work: the same input, task, options, models, version.
    func sameWork(as other: ExtractionHeader) -> Bool {
        format == other.format && input == other.input && task == other.task && options == other.options
            && models == other.models && version == other.version
    }

    /// The header of the output at `path`, or `nil` when there is none or it does not parse.
    static func read(fromFirstLineOf path: String) -> ExtractionHeader? {
        guard PathKind(atPath: path) == .file, let file = try? PosixFile(readingAtPath: path) else { return nil }
        var line: [UInt8] = []
        while line.count < 1 << 20, let piece = try? file.readPiece(upTo: 4096), !piece.isEmpty {
            if let newline = piece.firstIndex(of: 0x0A) {
                line += piece[..<newline]
                return try? JSONDecoder().decode(ExtractionHeader.self, from: Data(line))
            }
            line += piece
        }
        return nil
    }
}

/// A file written line by line (each line's bytes, then a line feed).
final class LineFile {
    private let file: PosixFile

    init(creating path: String) throws {
        file = try PosixFile(creatingAtPath: path)
    }

    func append(_ line: String) throws {
        try file.writeAll(line + "\n")
    }

    /// Appends the bytes of the file at `source`, 1 MiB at a time.
    func appendContents(ofFile source: String) throws {
        let reader = try PosixFile(readingAtPath: source)
        while true {
            let piece = try reader.readPiece(upTo: 1 << 20)
            if piece.isEmpty { break }
            try piece.withUnsafeBytes { try file.writeAll($0) }
        }
    }

    /// Flushes the file to the disk and closes it.
    func close() throws {
        try file.synchronizeAndClose()
    }
}
