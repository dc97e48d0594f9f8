#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds the model files (`.tflite` models and `.task` bundles) wherever a program runs: in a
/// source checkout, under an install prefix, or in the user's cache.
///
/// An argument naming a file that exists, or holding a `/`, is a path and is used as given: an
/// explicit choice is never replaced by a search. A bare name (`pose_landmarker_full.task`, or
/// `pose_detection`, which means `pose_detection.tflite` or `pose_detection.task`) is looked up
/// in these folders, in order; the first that holds it wins:
/// 1. `$LANDMARKER_MODELS`, when set;
/// 2. `share/landmarker/models` of the install prefix, `../share/landmarker/models` from the
///    running executable's folder (`scripts/install.sh` puts the models there);
/// 3. `models/` beside the executable;
/// 4. `models/` in the current folder (a source checkout);
/// 5. the user's cache, `${XDG_CACHE_HOME:-$HOME/.cache}/landmarker/models`.
///
/// The iOS guides find a model with `Bundle.main.path(forResource:ofType:)`; here
/// `ModelFiles.path(forResource:ofType:)` plays that part.
///
/// Thread safety: a `Sendable` value.
public struct ModelFiles: Sendable, Equatable {
    /// One folder of the search, with where its path came from.
    public struct Folder: Sendable, Equatable, CustomStringConvertible {
        /// The folder's path, or `nil` when its source is unset (`$LANDMARKER_MODELS` not set).
        public let path: String?
        /// Where the path comes from, e.g. "install prefix" or "$LANDMARKER_MODELS".
        public let origin: String

        public var description: String { "\(origin): \(path ?? "not set")" }
    }

    /// The environment variable naming a folder searched before all others.
    public static let environmentVariable = "LANDMARKER_MODELS"

    /// The folders searched for a bare name, in order.
    public let folders: [Folder]

    /// The installed script that fetches the models (`share/landmarker/models/fetch_models.sh`
    /// of the install prefix), or `nil` when there is none: the error message then names the
    /// one in the source tree, `models/fetch_models.sh`.
    public let installedFetchScript: String?

    /// The search as seen by this process.
    public init() {
        self.init(
            environment: ProcessInfo.processInfo.environment,
            executablePath: Self.runningExecutablePath(),
            currentDirectory: FileManager.default.currentDirectoryPath)
    }

    /// The search for a given environment, executable and current folder (`executablePath` is
    /// `nil` when unknown: the two folders relative to it are then left out).
    public init(environment: [String: String], executablePath: String?, currentDirectory: String) {
        var folders = [Folder(path: environment[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 },
                              origin: "$\(Self.environmentVariable)")]
        var installedFetchScript: String?
        if let executablePath {
            let binFolder = URL(fileURLWithPath: executablePath).deletingLastPathComponent()
            let installed = binFolder.deletingLastPathComponent().appendingPathComponent("share/landmarker/models")
            folders.append(Folder(path: installed.path, origin: "install prefix"))
            folders.append(Folder(path: binFolder.appendingPathComponent("models").path, origin: "beside the executable"))
            let script = installed.appendingPathComponent("fetch_models.sh").path
            if FileManager.default.isExecutableFile(atPath: script) { installedFetchScript = script }
        }
        let current = URL(fileURLWithPath: currentDirectory).appendingPathComponent("models").path
        if !folders.contains(where: { $0.path == current }) {
            folders.append(Folder(path: current, origin: "current folder"))
        }
        let cacheHome = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : $0 + "/.cache" }
        folders.append(Folder(path: cacheHome.map { $0 + "/landmarker/models" }, origin: "user cache"))
        self.folders = folders
        self.installedFetchScript = installedFetchScript
    }

    /// The file an argument names: the argument itself when it is a path (it exists, or holds a
    /// `/`), otherwise the first match of the bare name in `folders`.
    /// - Throws: `ModelNotFoundError`, listing every folder searched, when no folder has it.
    public func locate(_ argument: String) throws(ModelNotFoundError) -> String {
        if argument.contains("/") || FileManager.default.fileExists(atPath: argument) { return argument }
        if let path = search(argument) { return path }
        throw ModelNotFoundError(name: argument, searched: folders, installedFetchScript: installedFetchScript)
    }

    /// The first folder of the search that holds the bare name `name`, or `nil`.
    public func folder(holding name: String) -> String? {
        search(name).map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    }

    /// The first file of `folders` named `name`, or `name` with `.tflite` or `.task` added
    /// when it has neither.
    private func search(_ name: String) -> String? {
        let names = name.hasSuffix(".tflite") || name.hasSuffix(".task") ? [name] : [name + ".tflite", name + ".task"]
        for folder in folders {
            guard let path = folder.path else { continue }
            for name in names {
                let candidate = path + "/" + name
                if let type = (try? FileManager.default.attributesOfItem(atPath: candidate))?[.type] as? FileAttributeType,
                   type != .typeDirectory {
                    return candidate
                }
            }
        }
        return nil
    }

    /// `locate("\(name).\(type)")` for this process: the counterpart of iOS's
    /// `Bundle.main.path(forResource:ofType:)`, which the guides use to find a model.
    /// - Throws: `ModelNotFoundError`, listing every folder searched.
    public static func path(forResource name: String, ofType type: String) throws(ModelNotFoundError) -> String {
        try ModelFiles().locate(name + "." + type)
    }

    /// The running executable's path, from `/proc/self/exe` (symbolic links resolved, so a
    /// link to an installed binary finds the prefix it was installed under), or `nil`.
    public static func runningExecutablePath() -> String? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        guard let first = CommandLine.arguments.first, first.contains("/") else { return nil }
        return URL(fileURLWithPath: first).standardizedFileURL.path
    }
}

/// No folder of the search holds a model.
///
/// Thread safety: a `Sendable` value.
public struct ModelNotFoundError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bare name looked for.
    public let name: String
    /// Every folder searched, in order.
    public let searched: [ModelFiles.Folder]
    /// The installed script that fetches the models, or `nil` (see `ModelFiles`).
    public let installedFetchScript: String?

    public var description: String {
        let destination = searched.last?.path ?? "FOLDER"
        let fetch = installedFetchScript.map { "To fetch the models, run:\n  \($0) \(destination)\n" }
            ?? "To fetch the models, run from the landmarker sources:\n  models/fetch_models.sh \(destination)\n"
        return "model '\(name)' not found; looked in:\n"
            + searched.map { "  \($0)\n" }.joined()
            + fetch
            + "or set $\(ModelFiles.environmentVariable) to a folder that holds them, or pass the model's path."
    }
}
