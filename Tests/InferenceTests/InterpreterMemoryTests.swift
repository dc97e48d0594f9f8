import Foundation
import Inference
import TestSupport
import Testing

/// What an interpreter keeps and shares: nothing of the model's bytes once it
/// is prepared, and one arena for the interpreters of `sharingMemory(_:)`.
@Suite struct InterpreterMemoryTests {
    /// A landmarker's two models: the detector and the landmark model.
    static let pairs = [("pose_detection", "pose_landmark_full"), ("palm_detection_full", "hand_landmark_full")]
    /// The options the landmarkers load their models with.
    static let options = Interpreter.Options(threadCount: 2, usesSparseKernels: false)

    /// `model` prepared from a copy of its file's bytes, which is overwritten
    /// and freed as soon as the preparation returns.
    static func preparedFromScratchBytes(_ model: String) throws -> PreparedModel {
        let file = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.model(model)))
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: file.count, alignment: 16)
        defer { bytes.deallocate() }
        file.copyBytes(to: bytes)
        defer { bytes.initializeMemory(as: UInt8.self, repeating: 0xFF) }
        return try Interpreter.prepare(borrowing: UnsafeRawBufferPointer(bytes), options: options)
    }

    /// Runs `interpreter` on `model`'s real input and returns every output.
    static func outputs(of interpreter: Interpreter, model: String) throws -> [[Float]] {
        try interpreter.setInput(try Fixtures.modelInput(model))
        interpreter.invoke()
        return try interpreter.outputs.indices.map { try interpreter.output(at: $0) }
    }

    /// Bit patterns, so that the comparison is exact (NaN and the sign of zero included).
    static func bits(_ outputs: [[Float]]) -> [[UInt32]] { outputs.map { $0.map(\.bitPattern) } }

    @Test(arguments: pairs)
    func sharingInterpretersComputeWhatSeparateOnesDo(detector: String, landmarkModel: String) throws {
        let shared = Interpreter.sharingMemory([
            try Self.preparedFromScratchBytes(detector), try Self.preparedFromScratchBytes(landmarkModel),
        ])
        try #require(shared.count == 2)
        let expected = try [detector, landmarkModel].map { model in
            Self.bits(try Self.outputs(of: try Interpreter(contentsOfFile: try Fixtures.model(model), options: Self.options), model: model))
        }
        // In turn, twice over: each run overwrites the other's tensors, and
        // each must still compute its outputs from its own input.
        for _ in 0..<2 {
            #expect(Self.bits(try Self.outputs(of: shared[0], model: detector)) == expected[0], "\(detector)")
            #expect(Self.bits(try Self.outputs(of: shared[1], model: landmarkModel)) == expected[1], "\(landmarkModel)")
        }
    }

    @Test func aPreparedModelNeedsNoneOfItsBytes() throws {
        // The bytes are overwritten and freed before the interpreter exists:
        // anything still reading them would compute wrong outputs (or crash
        // under the address sanitizer).
        let model = "pose_detection"
        let interpreter = Interpreter.sharingMemory([try Self.preparedFromScratchBytes(model)])[0]
        let expected = try Interpreter(contentsOfFile: try Fixtures.model(model), options: Self.options)
        #expect(Self.bits(try Self.outputs(of: interpreter, model: model))
            == Self.bits(try Self.outputs(of: expected, model: model)))
    }

    @Test func aPreparationFailureIsAnInvalidModel() throws {
        let bytes: [UInt8] = [0x1C, 0, 0, 0, 0x54, 0x46, 0x4C, 0x33]
        do {
            _ = try bytes.withUnsafeBytes { try Interpreter.prepare(borrowing: $0, options: Self.options) }
            Issue.record("eight bytes prepared as a model")
        } catch let error as InterpreterError {
            guard case .invalidModel = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
    }
}
