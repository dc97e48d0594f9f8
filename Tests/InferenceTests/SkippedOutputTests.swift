import Foundation
import Kernels
import TestSupport
import Testing

@testable import Inference

/// `Interpreter.Options.skippedOutputs`: the operators that only skipped outputs need are
/// neither prepared nor run, the other outputs stay bit for bit what a full load computes, and
/// a skipped output or a position the model lacks is a typed error.
@Suite struct SkippedOutputTests {
    /// Models and the outputs a landmarker may leave out: pose_landmark_full's segmentation
    /// head (a decoder of its own), and hand_landmark_full's handedness and world landmarks
    /// (small heads on a shared trunk).
    static let cases: [(model: String, skipped: Set<Int>)] = [
        ("pose_landmark_full", [2]), ("hand_landmark_full", [2, 3]),
    ]

    /// The outputs of `interpreter` for a seeded input, as bit patterns, nil where skipped.
    static func outputs(of interpreter: Interpreter, seed: UInt64) throws -> [[UInt32]?] {
        var rng = SeededGenerator(seed: seed)
        for k in interpreter.inputs.indices {
            try interpreter.setInput(rng.floats(interpreter.inputs[k].shape.elementCount), at: k)
        }
        interpreter.invoke()
        return try interpreter.outputs.indices.map { index in
            interpreter.options.skippedOutputs.contains(index) ? nil : try interpreter.output(at: index).map(\.bitPattern)
        }
    }

    @Test(arguments: cases.indices)
    func theOtherOutputsAreTheFullLoadsBitForBit(caseIndex: Int) throws {
        let (name, skipped) = Self.cases[caseIndex]
        let path = try Fixtures.model(name)
        let seed = SeededGenerator.seed()
        var configurations: [Interpreter.Options] = [.init(mode: .reference)]
        for family in KernelInstructionSet.allCases where family.isSupported {
            for threads in [1, 2] { configurations.append(.init(threadCount: threads, instructionSet: family)) }
        }
        for full in configurations {
            var skipping = full
            skipping.skippedOutputs = skipped
            let whole = try Interpreter(contentsOfFile: path, options: full)
            let partial = try Interpreter(contentsOfFile: path, options: skipping)
            let expected = try Self.outputs(of: whole, seed: seed)
            let got = try Self.outputs(of: partial, seed: seed)
            let what = "\(name), \(full.mode), \(full.instructionSet), \(full.threadCount) thread(s)"
            for index in expected.indices where !skipped.contains(index) {
                #expect(got[index] == expected[index], "\(what): output \(index) differs")
            }
            #expect(partial.summary.preparedOperatorCount < whole.summary.preparedOperatorCount, "\(what)")
            #expect(partial.summary.multiplyAccumulates < whole.summary.multiplyAccumulates, "\(what)")
            #expect(partial.summary.arenaBytes <= whole.summary.arenaBytes, "\(what)")
            #expect(partial.summary.operatorHistogram == whole.summary.operatorHistogram, "\(what): the file's operators")
        }
    }

    /// The operators that only a skipped output needs are not even prepared: a faulty one among
    /// them does not stop the load. Nor is one that feeds no output. `costOfEachOutput` says
    /// what each output alone costs.
    @Test func operatorsOnlySkippedOutputsNeedAreNotPrepared() throws {
        // Six chained convolutions; outputs: operator 1's, then operator 3's; operator 3 faulty,
        // operators 4 and 5 feeding no output.
        let bytes = ConcurrentLoadTests.chain(operatorCount: 6, faulty: [3], outputs: [1, 3])
        #expect(throws: InterpreterError.self) { try Interpreter(bytes: bytes) }
        #expect(try Interpreter(bytes: bytes, options: .init(skippedOutputs: [1])).summary.preparedOperatorCount == 2)
        let valid = ConcurrentLoadTests.chain(operatorCount: 6, outputs: [1, 3])
        let whole = try Interpreter(bytes: valid)
        #expect(whole.summary.preparedOperatorCount == 4)
        #expect(try Interpreter(bytes: valid, options: .init(skippedOutputs: [0])).summary.preparedOperatorCount == 4)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString).tflite")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(valid).write(to: file)
        let costs = try #require(try Interpreter.costOfEachOutput(contentsOfFile: file.path, maxOutputs: 2))
        // Output 0 is on the way to output 1; two 1×1 convolutions of 9 pixels, 4 → 4 channels.
        #expect(costs.map(\.operators) == [0, 2])
        #expect(costs.map(\.multiplyAccumulates) == [0, 2 * 9 * 4 * 4])
        // Past `maxOutputs` outputs, no cost is worked out (one validation an output).
        #expect(try Interpreter.costOfEachOutput(contentsOfFile: file.path, maxOutputs: 1) == nil)
    }

    /// Every output of a chain is costed up to the limit; each alone needs only its own
    /// operator once the next output reads past it (the last output: its operator alone).
    @Test func eachOutputOfAChainCostsNothingButTheLast() throws {
        let count = 8
        let bytes = ConcurrentLoadTests.chain(operatorCount: count, outputs: Array(0..<count))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chain-\(UUID().uuidString).tflite")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let costs = try #require(try Interpreter.costOfEachOutput(contentsOfFile: file.path, maxOutputs: count))
        #expect(costs.map(\.operators) == Array(repeating: 0, count: count - 1) + [1])
        #expect(try Interpreter.costOfEachOutput(contentsOfFile: file.path, maxOutputs: count - 1) == nil)
    }

    @Test func readingASkippedOutputThrows() throws {
        let interpreter = try Interpreter(
            contentsOfFile: try Fixtures.model("pose_landmark_full"), options: .init(skippedOutputs: [2]))
        interpreter.invoke()
        #expect(throws: InterpreterError.self) { try interpreter.output(at: 2) }
        do {
            _ = try interpreter.withOutputBuffer(at: 2) { $0.count }
            Issue.record("reading a skipped output did not throw")
        } catch InterpreterError.outputNotComputed(let output, let index) {
            #expect(index == 2)
            #expect(output == interpreter.outputs[2].name)
        }
        #expect(try interpreter.output(at: 0).count == 195)
    }

    @Test(arguments: [-1, 5, Int.max])
    func aPositionTheModelLacksIsRejected(position: Int) throws {
        let path = try Fixtures.model("pose_landmark_full")
        do {
            _ = try Interpreter(contentsOfFile: path, options: .init(skippedOutputs: [2, position]))
            Issue.record("skipping output \(position) of 5 loaded")
        } catch InterpreterError.noSuchTensor(let what) {
            #expect(what.contains("\(position)"), "\(what)")
        }
    }

    /// With every output skipped nothing is prepared or run, and nothing can be read.
    @Test func skippingEveryOutputRunsNothing() throws {
        let interpreter = try Interpreter(
            contentsOfFile: try Fixtures.model("hand_landmark_full"), options: .init(skippedOutputs: [0, 1, 2, 3]))
        #expect(interpreter.summary.preparedOperatorCount == 0)
        #expect(interpreter.summary.multiplyAccumulates == 0)
        interpreter.invoke()
        for index in interpreter.outputs.indices {
            #expect(throws: InterpreterError.self) { try interpreter.output(at: index) }
        }
        #expect(try interpreter.withInputBuffer(at: 0) { $0.count } == 224 * 224 * 3)
    }
}
