import Foundation
import Inference
import TestSupport
import Testing

/// Replays every input the model fuzzer saved in `Fuzz/crashes/`: each must
/// now give a typed error or a loaded model, never a trap.
@Suite struct FuzzRegressionTests {
    static var savedInputs: [URL] {
        let folder = Fixtures.packageRoot.appendingPathComponent("Fuzz/crashes")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0 != "README.md" }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test func crashFolderExists() {
        let readme = Fixtures.packageRoot.appendingPathComponent("Fuzz/crashes/README.md")
        #expect(FileManager.default.fileExists(atPath: readme.path), "Fuzz/crashes/ is missing")
    }

    @Test(arguments: savedInputs)
    func savedInputLoadsOrThrows(file: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: file))
        do {
            let interpreter = try Interpreter(bytes: bytes, options: .init(mode: .reference))
            interpreter.invoke()
        } catch let error as InterpreterError {
            #expect(!error.description.isEmpty)
        }
    }
}
