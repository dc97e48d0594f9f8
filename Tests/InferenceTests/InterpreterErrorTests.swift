import Foundation
import Inference
import TestSupport
import Testing

/// Bad models and bad calls give typed errors, never a crash.
@Suite struct InterpreterErrorTests {
    static let models = ModelGoldenTests.allModels

    @Test func garbageBytesAreRejected() {
        #expect(throws: InterpreterError.self) { try Interpreter(bytes: []) }
        #expect(throws: InterpreterError.self) { try Interpreter(bytes: Array("not a model at all".utf8)) }
    }

    @Test func missingFileIsRejected() {
        #expect(throws: InterpreterError.self) { try Interpreter(contentsOfFile: "/nonexistent/model.tflite") }
    }

    @Test(arguments: models)
    func truncatedModelsAreRejected(model: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.model(model))))
        for fraction in [0.0, 0.001, 0.1, 0.5, 0.9, 0.999] {
            let length = Int(Double(bytes.count) * fraction)
            #expect(throws: InterpreterError.self, "\(model) cut to \(length) bytes") {
                try Interpreter(bytes: Array(bytes[..<length]))
            }
        }
    }

    /// Random byte mutations of a real model either load (and then run) or
    /// throw; loading never traps. The seed is printed so a failure replays.
    @Test(arguments: models)
    func mutatedModelsNeverCrash(model: String) throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Fixtures.model(model))))
        var generator = SeededGenerator.announced("mutatedModelsNeverCrash(\(model))")
        // Mutations in the first 64 KiB hit the flatbuffer tables; the rest is weights.
        let tableRegion = min(original.count, 65_536)
        var loaded = 0
        for _ in 0..<40 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let position = Int.random(in: 0..<tableRegion, using: &generator)
                bytes[position] = UInt8.random(in: 0...255, using: &generator)
            }
            if let interpreter = try? Interpreter(bytes: bytes, options: .init(mode: .fast)) {
                loaded += 1
                _ = interpreter.summary
            }
        }
        print("  \(loaded) of 40 mutants loaded")
    }

    @Test func wrongInputSizeIsRejected() throws {
        let interpreter = try Interpreter(contentsOfFile: try Fixtures.model("hand_landmark_lite"))
        #expect(throws: InterpreterError.self) { try interpreter.setInput([1, 2, 3]) }
        #expect(throws: InterpreterError.self) { try interpreter.setInput([], at: 7) }
        #expect(throws: InterpreterError.self) { try interpreter.output(at: 99) }
        #expect(throws: InterpreterError.self) { try interpreter.inputIndex(named: "no such input") }
        #expect(try interpreter.inputIndex(named: "input_1") == 0)
        #expect(try interpreter.outputIndex(named: "Identity_3") == 3)
    }
}
