import Dispatch
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
import Synchronization
import SystemInterface
import VideoFiles

/// The files this process is writing under a temporary name, and the end of the process on
/// SIGINT or SIGTERM: the writers (ffmpeg children) killed, the temporary files removed, a one-line
/// message, and the conventional status (128 + the signal: 130, 143).
///
/// A file is recorded while its creation runs (`creating(_:_:)`), under the same lock the
/// signal's handler takes, so that a file is either recorded or not yet created when the
/// handler runs; a writer child is recorded with its file and killed before the file is removed,
/// so that it cannot create the file after its removal.
final class PartialFiles: Sendable {
    /// The process's one record, which `Landmarker.main()` connects to the signals.
    static let shared = PartialFiles()

    private struct State {
        /// Temporary path → the child process writing it, if another process writes it.
        var files: [String: pid_t?] = [:]
        /// The signal sources; kept so that they stay installed.
        var sources: [any DispatchSourceSignal] = []
    }

    private let state = Mutex(State())

    /// Ends the process on SIGINT and SIGTERM (`interrupted(by:)`) from now on, instead of
    /// letting the signal kill it with the temporary files in place.
    func handleInterrupts() {
        let queue = DispatchQueue(label: "landmarker.interrupts")
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            state.withLock { state in
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler { [self] in interrupted(by: signalNumber) }
                source.resume()
                state.sources.append(source)
            }
        }
    }

    /// Runs `create`, which creates the file at `temporaryPath`, with the path recorded as a
    /// file to remove on an interrupt; `writer` gives the id of a child process that writes it
    /// (killed before the file is removed).
    func creating<Created, Failure: Error>(
        _ temporaryPath: String, writer: (Created) -> pid_t? = { _ in nil }, _ create: () throws(Failure) -> Created
    ) throws(Failure) -> Created {
        try state.withLock { state throws(Failure) -> Created in
            state.files.updateValue(nil, forKey: temporaryPath)
            do throws(Failure) {
                let created = try create()
                state.files.updateValue(writer(created), forKey: temporaryPath)
                return created
            } catch {
                state.files.removeValue(forKey: temporaryPath)
                throw error
            }
        }
    }

    /// Forgets `temporaryPath`: it was renamed to its output's name or removed.
    func finished(_ temporaryPath: String) {
        _ = state.withLock { $0.files.removeValue(forKey: temporaryPath) }
    }

    /// Kills the writer children, waits until each has stopped (without reaping it, which is
    /// left to its owner), removes the temporary files, prints one line and exits with
    /// 128 + `signalNumber`. Holds the lock to the end, so that nothing new is created meanwhile.
    private func interrupted(by signalNumber: Int32) -> Never {
        state.withLock { state in
            for case let child? in state.files.values {
                kill(child, SIGKILL)
                SystemCalls.waitUntilEnded(child)
            }
            let removed = state.files.keys.filter { unlink($0) == 0 }.count
            let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
            let files = removed == 1 ? "1 partial file removed" : "\(removed) partial files removed"
            // On a terminal, the progress report's line is cleared first.
            let clear = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K" : ""
            writeStandardError("\(clear)landmarker: interrupted by \(name): \(files)\n")
            _exit(128 + signalNumber)
        }
    }
}

/// Removal of the temporary files that stopped runs left behind.
enum StalePartialFiles {
    /// Removes the files of `folder` that `writer` attributes to a process of this host that no
    /// longer runs (`SystemCalls.processRuns`: a zombie no longer runs) (`writer` gives nil for the files that are not partial files of the output in
    /// question, and for those of other hosts).
    static func remove(in folder: String, writer: (String) -> pid_t?) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let process = writer(name), process != getpid() else { continue }
            if !SystemCalls.processRuns(process) { unlink(folder + "/" + name) }
        }
    }

    /// Removes the partial files of `output` (`PartialFileName`) whose process no longer runs.
    static func remove(of output: String) {
        let folder = output.lastIndex(of: "/").map { String(output[..<$0]) } ?? "."
        remove(in: folder.isEmpty ? "/" : folder) { PartialFileName.writer(ofName: $0, partialOf: output) }
    }
}

/// Whole-file writes of the CLI's outputs: written under the output's partial name
/// (`PartialFileName`, recorded in `PartialFiles`), then renamed, so that a file under the
/// output's name is always whole; a dead run's partial files of the same output are removed first.
enum OutputFile {
    /// Writes `bytes` as the file at `path`, creating its folder when missing.
    static func write(_ bytes: [UInt8], to path: String) throws {
        try createFolder(of: path)
        StalePartialFiles.remove(of: path)
        let temporary = PartialFileName.path(for: path)
        defer {
            unlink(temporary)
            PartialFiles.shared.finished(temporary)
        }
        let file = try PartialFiles.shared.creating(temporary) { try PosixFile(creatingAtPath: temporary) }
        try bytes.withUnsafeBytes { try file.writeAll($0) }
        file.closeFile()
        guard rename(temporary, path) == 0 else { throw CommandFailure("\(path): cannot be written: \(systemErrorText())") }
    }

    /// Starts an ffmpeg video writer for `path` (`FFmpegVideoWriter`), creating its folder when
    /// missing, with its partial file recorded in `PartialFiles` until `finish(_:)` or
    /// `cancel(_:)`; a dead run's partial files of the same output are removed first.
    static func startVideo(
        at path: String, width: Int, height: Int, framesPerSecond: Double, layout: FFmpegVideoWriter.PixelLayout
    ) throws -> FFmpegVideoWriter {
        try createFolder(of: path)
        StalePartialFiles.remove(of: path)
        return try PartialFiles.shared.creating(PartialFileName.path(for: path), writer: { $0.processIdentifier }) {
            try FFmpegVideoWriter(path: path, width: width, height: height, framesPerSecond: framesPerSecond, layout: layout)
        }
    }

    /// Ends `video`'s stream and renames its file to its output's name (`FFmpegVideoWriter.finish()`).
    static func finish(_ video: FFmpegVideoWriter) throws {
        defer { PartialFiles.shared.finished(video.temporaryPath) }
        try video.finish()
    }

    /// Stops `video` and removes its partial file (`FFmpegVideoWriter.cancel()`).
    static func cancel(_ video: FFmpegVideoWriter) {
        video.cancel()
        PartialFiles.shared.finished(video.temporaryPath)
    }

    /// Creates the folder `path` goes into, with its parents, when it does not exist.
    private static func createFolder(of path: String) throws {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let folder = String(path[..<slash])
        guard PathKind(atPath: folder) != .folder else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("\(folder): cannot create the folder: \(errorText(error))")
        }
    }
}
