import Foundation
@testable import ImageIO
@testable import landmarker

/// A temporary folder for one test, removed by `remove()`.
struct TemporaryFolder {
    let path: String

    init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("landmarker-\(label)-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    subscript(_ name: String) -> String { path + "/" + name }

    /// Writes `text` as the file `name`, creating its folder.
    func write(_ text: String, to name: String) throws {
        try createFolder(URL(fileURLWithPath: self[name]).deletingLastPathComponent().path)
        try text.write(toFile: self[name], atomically: false, encoding: .utf8)
    }

    /// Writes a `width × height` PNG of one grey level as the file `name`, creating its folder.
    func writePNG(_ name: String, width: Int = 8, height: Int = 6, level: UInt8 = 128) throws {
        try createFolder(URL(fileURLWithPath: self[name]).deletingLastPathComponent().path)
        let image = RGBImage(validatedWidth: width, height: height,
                             pixels: [UInt8](repeating: level, count: width * height * 3))
        try Data(try PNGCodec.encode(image)).write(to: URL(fileURLWithPath: self[name]))
    }

    func createFolder(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The names in `subfolder` (hidden ones too), sorted; none when it does not exist.
    func files(in subfolder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: self[subfolder])) ?? []).sorted()
    }

    /// The lines of the text file `name`.
    func lines(of name: String) throws -> [Substring] {
        try String(contentsOfFile: self[name], encoding: .utf8).split(separator: "\n")
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A landmarker result with nothing found: no fields of its own in a record, so that tests of
/// the command line need no model.
struct NothingFound: RecordFields {
    func encodeRecordFields(into container: inout KeyedEncodingContainer<RecordKey>) throws {}
}

extension Extraction {
    /// The extraction `arguments` ask for (the options of `landmarker extract TASK`, before the
    /// task's own), of the pose task with no options, with a stand-in model file in `folder`.
    static func standIn(_ arguments: [String], in folder: TemporaryFolder) throws -> Extraction {
        let model = folder["stand-in-model.task"]
        if !FileManager.default.fileExists(atPath: model) { try folder.write("a stand-in model", to: "stand-in-model.task") }
        let dataset = try ExtractCommand.DatasetOptions.parse(arguments)
        return try Extraction(
            manifest: ExtractCommand.readManifest(dataset.manifest), dataset: dataset, task: "pose", options: [:],
            modelPath: model)
    }

    /// Runs every entry with a landmarker that finds nothing, after `perFrame` (a delay, say).
    func runFindingNothing(perFrame: @escaping () -> Void = {}) throws {
        try run { EntryRun { _, _ in perFrame(); return NothingFound() } }
    }
}
