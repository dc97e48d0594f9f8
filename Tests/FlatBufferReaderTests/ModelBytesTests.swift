import Foundation
import Testing
import FlatBufferReader
import TestSupport

@Suite("Model bytes: mmap and owned storage")
struct ModelBytesTests {
    /// A fresh path in a fresh temporary folder, removed by `cleanup`.
    private func temporaryPath(_ name: String) throws -> (path: String, cleanup: () -> Void) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flatbuffer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (folder.appendingPathComponent(name).path, { try? FileManager.default.removeItem(at: folder) })
    }

    @Test("a mapped file exposes exactly its bytes")
    func mapsFile() throws {
        let (path, cleanup) = try temporaryPath("model.tflite")
        defer { cleanup() }
        let bytes = TestModel.valid.encode().bytes
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let mapped = try ModelBytes(contentsOfFile: path)
        #expect(mapped.count == bytes.count)
        #expect(mapped.path == path)
        #expect(mapped.withUnsafeBytes { Array($0) } == bytes)
        let model = try TFLiteModel(contentsOfFile: path)
        #expect(model.subgraphs[0].tensors.count == 7)
    }

    @Test("owned bytes are exposed as given")
    func ownsBytes() {
        let owned = ModelBytes(bytes: [1, 2, 3])
        #expect(owned.count == 3)
        #expect(owned.path == nil)
        #expect(owned.withUnsafeBytes { Array($0) } == [1, 2, 3])
    }

    @Test("a missing file is an error naming the path")
    func missingFile() throws {
        let (path, cleanup) = try temporaryPath("absent.tflite")
        defer { cleanup() }
        #expect(throws: ModelError.cannotOpen(path: path, errno: ENOENT)) { try ModelBytes(contentsOfFile: path) }
        do {
            _ = try TFLiteModel(contentsOfFile: path)
            Issue.record("loading a missing file succeeded")
        } catch {
            #expect("\(error)".contains(path))
        }
    }

    @Test("a directory is not a model file")
    func directory() throws {
        let (path, cleanup) = try temporaryPath("folder")
        defer { cleanup() }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(throws: ModelError.notARegularFile(path: path)) { try ModelBytes(contentsOfFile: path) }
    }

    @Test("an empty file is refused")
    func emptyFile() throws {
        let (path, cleanup) = try temporaryPath("empty.tflite")
        defer { cleanup() }
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: ModelError.emptyFile(path: path)) { try ModelBytes(contentsOfFile: path) }
    }

    @Test("a file over 2 GiB is refused before mapping")
    func hugeFile() throws {
        let (path, cleanup) = try temporaryPath("huge.tflite")
        defer { cleanup() }
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        // A sparse file: no disk blocks are written.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(ModelBytes.maximumSize) + 1)
        try handle.close()
        #expect(throws: ModelError.tooLarge(path: path, size: ModelBytes.maximumSize + 1, limit: ModelBytes.maximumSize)) {
            try ModelBytes(contentsOfFile: path)
        }
    }

    @Test("a file of garbage is rejected with a typed error")
    func garbageFile() throws {
        let (path, cleanup) = try temporaryPath("garbage.tflite")
        defer { cleanup() }
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: path))
        #expect(throws: ModelError.self) { try TFLiteModel(contentsOfFile: path) }
    }

    @Test("empty owned bytes are a truncated model")
    func emptyBytes() {
        #expect(throws: ModelError.truncated(size: 0, minimum: 16)) { try TFLiteModel(bytes: ModelBytes(bytes: [])) }
    }
}
