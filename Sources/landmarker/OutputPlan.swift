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

/// A file option of `pose` and `hand`.
enum OutputKind: String, CaseIterable {
    /// The image or video with the landmarks drawn over it.
    case annotate
    /// The segmentation mask (pose, holistic).
    case mask

    /// The option as the command line spells it.
    var flag: String { "--" + rawValue }
}

/// Every file a `pose` or `hand` run writes, worked out from its inputs and file options before
/// any input is read, and checked so that the run loses and overwrites nothing: each refusal is
/// a usage error (`ValidationError`) naming the paths in question.
///
/// - One image: each option names a `.png` file. Several: a folder, receiving
///   `<image name>.png` per image, or with `keepPaths` the image's path relative to the images'
///   common folder (`a/x.jpg` → `DIR/a/x.png`). A video: a video file, by a video extension.
/// - Refused: two inputs whose outputs would be the same file, an output that is an input, two
///   options naming the same file, an output whose name says another format, an output that is
///   a folder, and an output whose folder cannot be created or written.
///
/// Paths are compared as the file system resolves them (symbolic links and `..` followed), so
/// `./x.png`, `x.png` and a link to it are one file.
struct OutputPlan: Equatable {
    /// One file the run writes: what `kind` asks for, for `input`, at `path`.
    struct Output: Equatable {
        let kind: OutputKind
        let input: String
        let path: String
    }

    /// Every file the run writes, by input, then by kind in `OutputKind` order.
    let outputs: [Output]

    /// Extensions a video output may have: those ffmpeg writes as a video, lower case.
    static let videoExtensions = InputChoice.videoExtensions.union(["y4m"])

    /// The plan for `choice` with the paths the file options were given.
    /// - Throws: `ValidationError` for any of the refusals above, or `keepPaths` without
    ///   several images and a file option.
    init(for choice: InputChoice, requests: [OutputKind: String], keepPaths: Bool) throws {
        let asked = OutputKind.allCases.compactMap { kind in requests[kind].map { (kind: kind, path: $0) } }
        var outputs: [Output] = []
        let inputs: [String]
        switch choice {
        case .images(let paths) where paths.count > 1:
            guard !keepPaths || !asked.isEmpty else {
                throw ValidationError("--keep-paths applies to several images written into a folder (--annotate, --mask)")
            }
            inputs = paths
            let names = keepPaths ? Self.mirroredNames(of: paths) : paths.map { Self.stem(of: $0) + ".png" }
            for (kind, folder) in asked {
                guard PathKind(atPath: folder) != .file, !["png", "jpg", "jpeg"].contains(Self.extensionOf(folder)) else {
                    throw ValidationError("""
                        \(kind.flag) \(folder): with several images, \(kind.flag) names a folder \
                        (it receives <image name>.png per image), not an image file
                        """)
                }
                let prefix = folder.hasSuffix("/") ? folder : folder + "/"
                outputs += zip(paths, names).map { Output(kind: kind, input: $0, path: prefix + $1) }
            }
        case .images(let paths):
            guard !keepPaths else { throw ValidationError("--keep-paths applies to several images written into a folder") }
            inputs = paths
            for (kind, path) in asked {
                try Self.checkFile(path, kind: kind, extensions: ["png"], format: "a PNG image (a name ending in .png)")
                outputs.append(Output(kind: kind, input: paths[0], path: path))
            }
        case .video(let source):
            guard !keepPaths else { throw ValidationError("--keep-paths applies to several images written into a folder") }
            inputs = source == "-" ? [] : [source]
            for (kind, path) in asked {
                try Self.checkFile(
                    path, kind: kind, extensions: Self.videoExtensions,
                    format: "a video file for a video input (a name ending in .mp4, .mkv, .webm, …)")
                outputs.append(Output(kind: kind, input: source, path: path))
            }
        }
        try Self.checkDistinct(outputs, inputs: inputs, requests: requests, keepPaths: keepPaths)
        try Self.checkFolders(outputs, requests: requests)
        self.outputs = outputs
    }

    /// The file `kind` writes for `input`; nil when the option was not given.
    func path(_ kind: OutputKind, for input: String) -> String? {
        outputs.first { $0.kind == kind && $0.input == input }?.path
    }

    /// Refuses a file output (one image, a video) that is a folder or whose extension is not one
    /// of `extensions`.
    private static func checkFile(_ path: String, kind: OutputKind, extensions: Set<String>, format: String) throws {
        guard PathKind(atPath: path) != .folder else {
            throw ValidationError("\(kind.flag) \(path) is a folder: \(kind.flag) writes \(format)")
        }
        guard extensions.contains(extensionOf(path)) else {
            throw ValidationError("\(kind.flag) \(path): the name says another format: \(kind.flag) writes \(format)")
        }
    }

    /// Refuses an output that is an input, and two outputs that are the same file.
    private static func checkDistinct(
        _ outputs: [Output], inputs: [String], requests: [OutputKind: String], keepPaths: Bool
    ) throws {
        var inputByIdentity: [String: String] = [:]
        for input in inputs { inputByIdentity[canonicalPath(input)] = inputByIdentity[canonicalPath(input)] ?? input }
        var written: [String: Output] = [:]
        for output in outputs {
            let identity = canonicalPath(output.path)
            if let input = inputByIdentity[identity] {
                throw ValidationError("\(output.kind.flag) \(output.path) would overwrite the input \(input)")
            }
            if let other = written[identity] {
                if other.kind == output.kind {
                    let remedy = keepPaths ? "rename one" : "give --keep-paths to name the outputs after the inputs' paths"
                    throw ValidationError(
                        "\(other.input) and \(output.input) would both be written to \(output.path) (\(output.kind.flag)): \(remedy)")
                }
                throw ValidationError("""
                    \(other.kind.flag) \(requests[other.kind] ?? other.path) and \(output.kind.flag) \
                    \(requests[output.kind] ?? output.path) would both write \(output.path)
                    """)
            }
            written[identity] = output
        }
    }

    /// Refuses an output whose folder cannot be created (a file stands in the way) or written.
    private static func checkFolders(_ outputs: [Output], requests: [OutputKind: String]) throws {
        var checked: Set<String> = []
        for output in outputs where checked.insert(parent(of: output.path)).inserted {
            try checkWritableFolder(parent(of: output.path), option: "\(output.kind.flag) \(requests[output.kind] ?? output.path)")
        }
    }

    /// Refuses a folder that cannot be created (a file stands in its place or in its parents'),
    /// or whose nearest existing folder cannot be written: a usage error (`ValidationError`)
    /// starting with `option`, the option and path the folder comes from. Creates nothing.
    static func checkWritableFolder(_ folder: String, option: String) throws {
        var existing = folder
        while PathKind(atPath: existing) == .missing, existing != "/", existing != "." {
            existing = parent(of: existing)
        }
        guard PathKind(atPath: existing) == .folder else {
            throw ValidationError("\(option): the folder \(folder) cannot be created: \(existing) is a file")
        }
        guard access(existing, W_OK | X_OK) == 0 else {
            throw ValidationError("\(option): the folder \(existing) cannot be written: \(systemErrorText())")
        }
    }

    /// The output names of images under `keepPaths`: each image's path relative to the deepest
    /// folder holding them all, with `.png` for its extension.
    private static func mirroredNames(of paths: [String]) -> [String] {
        let folders = paths.map { canonicalPath(parent(of: $0)).split(separator: "/").map(String.init) }
        var common = folders[0]
        for folder in folders.dropFirst() {
            common = Array(zip(common, folder).prefix { $0 == $1 }.map(\.0))
        }
        return zip(paths, folders).map { path, folder in
            (folder.dropFirst(common.count) + [stem(of: path) + ".png"]).joined(separator: "/")
        }
    }

    /// The file name of `path` without its extension.
    private static func stem(of path: String) -> String {
        URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
    }

    /// The extension of `path`, lower case ("" without one).
    private static func extensionOf(_ path: String) -> String {
        URL(fileURLWithPath: path).pathExtension.lowercased()
    }

    /// The folder `path` is in, as written ("." for a bare name, "/" at the root).
    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `path` as an absolute path with symbolic links, `.` and `..` resolved as far as it exists,
    /// and the rest (what does not exist yet) normalised by its names: the identity of the file
    /// it names or would create.
    static func canonicalPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var existing = absolute.split(separator: "/").map(String.init)
        var rest: [String] = []
        while true {
            if let resolved = realpath("/" + existing.joined(separator: "/"), nil) {
                var names = String(cString: resolved).split(separator: "/").map(String.init)
                free(resolved)
                for name in rest where name != "." && !name.isEmpty {
                    if name == ".." { _ = names.popLast() } else { names.append(name) }
                }
                return "/" + names.joined(separator: "/")
            }
            guard let last = existing.popLast() else { return absolute }
            rest.insert(last, at: 0)
        }
    }
}
