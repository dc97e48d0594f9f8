import Foundation
import Testing

@testable import MediaPipeTasksVision

@Suite("Model asset bundles")
struct ModelAssetBundleTests {
    /// The package root, three levels above this file (Tests/MediaPipeTasksVisionTests/<file>).
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func bundle(_ entries: [(String, [UInt8])]) throws -> [UInt8] {
        var writer = StoredZipWriter()
        for (name, contents) in entries { try writer.addEntry(named: name, contents: contents) }
        return try writer.finish()
    }

    /// A temporary file holding `bytes`, removed by the caller.
    private static func temporaryFile(_ bytes: [UInt8]) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("model-asset-\(UUID().uuidString).task")
        try Data(bytes).write(to: url)
        return url
    }

    @Test("member names of the two landmarker bundles")
    func memberNames() {
        #expect(LandmarkerBundleKind.poseLandmarker.detectorModelName == "pose_detector.tflite")
        #expect(LandmarkerBundleKind.poseLandmarker.landmarksDetectorModelName == "pose_landmarks_detector.tflite")
        #expect(LandmarkerBundleKind.handLandmarker.detectorModelName == "hand_detector.tflite")
        #expect(LandmarkerBundleKind.handLandmarker.landmarksDetectorModelName == "hand_landmarks_detector.tflite")
    }

    /// Only the pose landmark model of the pose and holistic landmarkers has an output its
    /// graph may not read: the segmentation mask, when no masks are asked for.
    @Test("outputs left uncomputed: the pose landmark model's mask, unless asked for")
    func skippedOutputs() {
        for kind in [LandmarkerBundleKind.poseLandmarker, .handLandmarker, .faceLandmarker, .holisticLandmarker] {
            for name in kind.modelNames {
                let skipsMask = [(LandmarkerBundleKind.poseLandmarker, 1), (.holisticLandmarker, 1)]
                    .contains { $0.0 == kind && kind.modelNames[$0.1] == name }
                let expected: Set<Int> = skipsMask ? [2] : []
                #expect(kind.skippedOutputs(ofModelNamed: name, segmentationMasks: false) == expected, "\(kind) \(name)")
                #expect(kind.skippedOutputs(ofModelNamed: name, segmentationMasks: true).isEmpty, "\(kind) \(name)")
            }
        }
    }

    @Test("models come out of a bundle in memory, extra members ignored")
    func fromBuffer() throws {
        let bytes = try Self.bundle([
            ("metadata.json", Array("{}".utf8)),
            ("hand_landmarks_detector.tflite", [4, 5, 6]),
            ("hand_detector.tflite", [1, 2, 3]),
        ])
        let models = try LandmarkerModels(kind: .handLandmarker, source: .buffer(bytes))
        #expect(models.detectorModel == [1, 2, 3])
        #expect(models.landmarksDetectorModel == [4, 5, 6])
        #expect(try ModelAssetBundle(source: .buffer(bytes)).modelNames
            == ["metadata.json", "hand_landmarks_detector.tflite", "hand_detector.tflite"])
    }

    @Test("models come out of a bundle file")
    func fromPath() throws {
        let url = try Self.temporaryFile(try Self.bundle([
            ("pose_detector.tflite", [7]), ("pose_landmarks_detector.tflite", [8, 9]),
        ]))
        defer { try? FileManager.default.removeItem(at: url) }
        let models = try LandmarkerModels(kind: .poseLandmarker, source: .path(url.path))
        #expect(models.detectorModel == [7])
        #expect(models.landmarksDetectorModel == [8, 9])
    }

    @Test("a bundle for the other landmarker lacks the models")
    func missingModel() throws {
        let bytes = try Self.bundle([("pose_detector.tflite", [7]), ("pose_landmarks_detector.tflite", [8])])
        #expect(throws: ModelAssetError.missingModel(
            name: "hand_detector.tflite",
            available: ["pose_detector.tflite", "pose_landmarks_detector.tflite"])) {
            try LandmarkerModels(kind: .handLandmarker, source: .buffer(bytes))
        }
    }

    @Test("unreadable files and invalid bundles")
    func failures() throws {
        let missingPath = "/nonexistent-\(UUID().uuidString)/pose_landmarker.task"
        do {
            _ = try ModelAssetBundle(source: .path(missingPath))
            Issue.record("reading \(missingPath) succeeded")
        } catch {
            guard case .unreadableFile(let path, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == missingPath)
            #expect(!reason.isEmpty)
            #expect(error.description.contains(missingPath))
        }

        let tflite = try Self.temporaryFile([0x1C, 0, 0, 0, 0x54, 0x46, 0x4C, 0x33])
        defer { try? FileManager.default.removeItem(at: tflite) }
        #expect(throws: ModelAssetError.invalidBundle(.endOfCentralDirectoryNotFound)) {
            try ModelAssetBundle(source: .path(tflite.path))
        }

        var corrupt = try Self.bundle([("hand_detector.tflite", [1, 2, 3]), ("hand_landmarks_detector.tflite", [4])])
        corrupt[30 + "hand_detector.tflite".utf8.count] = 9
        #expect(throws: ModelAssetError.invalidBundle(.checksumMismatch(
            name: "hand_detector.tflite", expected: CRC32.checksum([1, 2, 3]), actual: CRC32.checksum([9, 2, 3])))) {
            try LandmarkerModels(kind: .handLandmarker, source: .buffer(corrupt))
        }
    }

    @Test("bundles of the real models round-trip byte for byte")
    func realModels() throws {
        let models = Self.packageRoot.appendingPathComponent("models")
        func load(_ name: String) throws -> [UInt8] {
            let url = models.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                Issue.record("Missing model file \(url.path): run models/fetch_models.sh")
                throw CocoaError(.fileNoSuchFile)
            }
            return [UInt8](data)
        }
        let cases: [(LandmarkerBundleKind, String, String)] = [
            (.poseLandmarker, "pose_detection.tflite", "pose_landmark_full.tflite"),
            (.handLandmarker, "palm_detection_full.tflite", "hand_landmark_full.tflite"),
        ]
        for (kind, detectorFile, landmarksFile) in cases {
            let detector = try load(detectorFile)
            let landmarks = try load(landmarksFile)
            let url = try Self.temporaryFile(try Self.bundle([
                (kind.detectorModelName, detector), (kind.landmarksDetectorModelName, landmarks),
            ]))
            defer { try? FileManager.default.removeItem(at: url) }
            let loaded = try LandmarkerModels(kind: kind, source: .path(url.path))
            #expect(loaded.detectorModel == detector)
            #expect(loaded.landmarksDetectorModel == landmarks)
        }
    }

    @Test("members are read in place, from a mapped file as from memory")
    func membersInPlace() throws {
        let bytes = try Self.bundle([
            ("metadata.json", Array("{}".utf8)), ("a.tflite", [1, 2, 3]), ("b.tflite", []), ("c.tflite", [4]),
        ])
        let url = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        for source in [ModelAssetSource.buffer(bytes), .path(url.path)] {
            let bundle = try ModelAssetBundle(source: source)
            #expect(try bundle.withModels(named: ["c.tflite", "a.tflite", "b.tflite"]) { $0.map(Array.init) }
                == [[4], [1, 2, 3], []])
            #expect(throws: ModelAssetError.missingModel(
                name: "d.tflite", available: ["metadata.json", "a.tflite", "b.tflite", "c.tflite"])) {
                try bundle.withModels(named: ["a.tflite", "d.tflite"]) { _ in }
            }
        }

        // "a.tflite" holds 1, 2, 3: make its first byte 9.
        var corrupt = bytes
        let data = try #require((0..<(corrupt.count - 2)).first { Array(corrupt[$0..<($0 + 3)]) == [1, 2, 3] })
        corrupt[data] = 9
        let corruptURL = try Self.temporaryFile(corrupt)
        defer { try? FileManager.default.removeItem(at: corruptURL) }
        #expect(throws: ModelAssetError.invalidBundle(.checksumMismatch(
            name: "a.tflite", expected: CRC32.checksum([1, 2, 3]), actual: CRC32.checksum([9, 2, 3])))) {
            try ModelAssetBundle(source: .path(corruptURL.path)).withModels(named: ["c.tflite", "a.tflite"]) { _ in }
        }
    }

    @Test("an empty file is no bundle, and a folder cannot be read")
    func emptyFileAndFolder() throws {
        let empty = try Self.temporaryFile([])
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: ModelAssetError.invalidBundle(.endOfCentralDirectoryNotFound)) {
            try ModelAssetBundle(source: .path(empty.path))
        }
        let folder = FileManager.default.temporaryDirectory.path
        #expect(throws: ModelAssetError.unreadableFile(path: folder, reason: "not a regular file")) {
            try ModelAssetBundle(source: .path(folder))
        }
    }
}
