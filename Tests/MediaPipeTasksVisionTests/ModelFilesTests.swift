import Foundation
import MediaPipeTasksVision
import Testing

/// Where `ModelFiles` looks for a model, in which order, and what it says when none has it.
@Suite struct ModelFilesTests {
    /// A fresh folder tree for one test: `root/prefix/bin`, `root/env`, `root/work`, `root/home`;
    /// removed by `remove()`.
    private struct Tree {
        let root: URL
        var executable: String { root.path + "/prefix/bin/landmarker" }
        var installed: String { root.path + "/prefix/share/landmarker/models" }
        var besideExecutable: String { root.path + "/prefix/bin/models" }
        var environmentFolder: String { root.path + "/env" }
        var work: String { root.path + "/work" }
        var home: String { root.path + "/home" }

        init() throws {
            root = FileManager.default.temporaryDirectory
                .appendingPathComponent("landmarker-model-files-\(UInt64.random(in: 0...UInt64.max))")
            for folder in ["prefix/bin", "env", "work", "home"] {
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
        }

        /// Writes an empty file at `folder/name`, creating the folder.
        func put(_ name: String, in folder: String) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data()))
        }

        func search(environment: [String: String] = [:]) -> ModelFiles {
            ModelFiles(environment: environment.merging(["HOME": home]) { given, _ in given },
                       executablePath: executable, currentDirectory: work)
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    @Test func searchesTheFoldersInOrder() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let search = tree.search(environment: ["LANDMARKER_MODELS": tree.environmentFolder])
        #expect(search.folders.map(\.path) == [
            tree.environmentFolder, tree.installed, tree.besideExecutable, tree.work + "/models",
            tree.home + "/.cache/landmarker/models",
        ])
        // Each folder, from last to first, takes over once it holds the file.
        let name = "pose_landmarker_full.task"
        let folders = search.folders.compactMap(\.path)
        for folder in folders.reversed() {
            try tree.put(name, in: folder)
            #expect(try search.locate(name) == folder + "/" + name)
            #expect(search.folder(holding: name) == folder)
        }
    }

    @Test func aBareModelNameMeansTheTfliteOrTheTaskFile() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try tree.put("pose_detection.tflite", in: tree.installed)
        try tree.put("hand_landmarker_lite.task", in: tree.installed)
        let search = tree.search()
        #expect(try search.locate("pose_detection") == tree.installed + "/pose_detection.tflite")
        #expect(try search.locate("hand_landmarker_lite") == tree.installed + "/hand_landmarker_lite.task")
        #expect(throws: ModelNotFoundError.self) { try search.locate("pose_detection.task") }
    }

    @Test func aPathIsUsedAsGiven() throws {
        let tree = try Tree()
        defer { tree.remove() }
        try tree.put("pose_detection.tflite", in: tree.installed)
        let search = tree.search()
        // Holding a slash, it is a path even when it does not exist: the loader then names it.
        #expect(try search.locate("elsewhere/pose_detection.tflite") == "elsewhere/pose_detection.tflite")
        #expect(try search.locate("/missing/pose_detection.tflite") == "/missing/pose_detection.tflite")
    }

    @Test func theCacheFollowsXDGCacheHome() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let cache = tree.root.path + "/xdg"
        #expect(tree.search(environment: ["XDG_CACHE_HOME": cache]).folders.last?.path == cache + "/landmarker/models")
        // A relative XDG_CACHE_HOME is invalid by the specification: ignored.
        #expect(tree.search(environment: ["XDG_CACHE_HOME": "relative"]).folders.last?.path
            == tree.home + "/.cache/landmarker/models")
        let homeless = ModelFiles(environment: [:], executablePath: nil, currentDirectory: tree.work)
        #expect(homeless.folders.last?.path == nil)
    }

    @Test func theErrorListsEveryFolderAndHowToFetch() throws {
        let tree = try Tree()
        defer { tree.remove() }
        let search = tree.search()
        let error = try #require(throws: ModelNotFoundError.self) { try search.locate("pose_landmarker_full.task") }
        #expect(error.name == "pose_landmarker_full.task")
        #expect(error.searched == search.folders)
        let message = error.description
        #expect(message.contains("$LANDMARKER_MODELS"))
        for folder in search.folders.compactMap(\.path) {
            #expect(message.contains(folder))
        }
        #expect(message.contains("from the landmarker sources:\n  models/fetch_models.sh \(tree.home)/.cache/landmarker/models\n"))

        // Once installed, the fetch script beside the installed models is the one named.
        try tree.put("fetch_models.sh", in: tree.installed)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tree.installed + "/fetch_models.sh")
        let installed = try #require(throws: ModelNotFoundError.self) { try tree.search().locate("hand_landmark_full") }
        #expect(installed.description.contains("run:\n  \(tree.installed)/fetch_models.sh \(tree.home)/.cache/landmarker/models\n"))
    }
}
