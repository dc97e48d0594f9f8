import Foundation
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

/// The fast kernels against LiteRT's XNNPACK (its AVX2 + FMA kernels) on
/// inputs the golden fixtures do not cover: `Tests/References/xnnpack_outputs.json`,
/// made by `scripts/make_xnnpack_references.py` (see there), holds XNNPACK's
/// LOGISTIC on a list of values and both hand landmark models' outputs on
/// their fixture input (`Fixtures.modelInput`) transformed five ways.
@Suite struct XNNPACKReferenceTests {
    /// The committed references.
    static func references() throws -> [String: Any] {
        try Fixtures.reference("xnnpack_outputs.json") as! [String: Any]
    }

    /// Floats from their bit patterns: eight hex digits each, separated by spaces.
    static func floats(_ bits: String) -> [Float] {
        bits.split(separator: " ").map { Float(bitPattern: UInt32($0, radix: 16)!) }
    }

    /// A `[1, 224, 224, 3]` image `x` mirrored left-right, upside down,
    /// rotated by 180°, with rows and columns swapped, or with every value
    /// `v` replaced by `1 - v`, as the script makes its inputs.
    static func transformed(_ x: [Float], _ name: String) -> [Float] {
        let side = 224, channels = 3
        if name == "inverse" { return x.map { 1 - $0 } }
        var y = [Float](repeating: 0, count: x.count)
        for row in 0..<side {
            for column in 0..<side {
                let (sourceRow, sourceColumn) = switch name {
                case "mirror": (row, side - 1 - column)
                case "flip": (side - 1 - row, column)
                case "rotate180": (side - 1 - row, side - 1 - column)
                default: (column, row)  // transpose
                }
                for c in 0..<channels {
                    y[(row * side + column) * channels + c] = x[(sourceRow * side + sourceColumn) * channels + c]
                }
            }
        }
        return y
    }

    @Test(.enabled(if: KernelInstructionSet.fusesMultiplyAdd, "needs the native build's fused multiply-adds"))
    func logisticGivesXNNPACKSigmoidBitForBit() throws {
        let logistic = try Self.references()["logistic"] as! [String: String]
        let input = Self.floats(logistic["input"]!), expected = Self.floats(logistic["xnnpack"]!)
        let kernel = try Logistic.prepare(inputs: [Operand(shape: try TensorShape([input.count]))])
        // KernelIO lets kernels read a SIMD16<Float> past the end.
        let padded = input + [Float](repeating: 0, count: 16)
        var output = [Float](repeating: .nan, count: input.count)
        padded.withUnsafeBufferPointer { x in
            output.withUnsafeMutableBufferPointer { y in
                kernel.run(
                    KernelIO(inputs: [x.baseAddress!], outputs: [y.baseAddress!]), runner: ParallelRunner(threadCount: 1))
            }
        }
        for (i, (actual, wanted)) in zip(output, expected).enumerated() where actual.bitPattern != wanted.bitPattern {
            Issue.record("LOGISTIC(\(input[i])): \(actual), XNNPACK \(wanted)")
        }
    }

    @Test(.enabled(if: KernelInstructionSet.fusesMultiplyAdd, "needs the native build's fused multiply-adds"),
          arguments: ["hand_landmark_full", "hand_landmark_lite"])
    func handLandmarkModelsGiveXNNPACKOutputsOnHeldOutInputs(model: String) throws {
        let entry = (try Self.references()["hand_landmarks"] as! [String: Any])[model] as! [String: [String: String]]
        let fixtureInput = try Fixtures.modelInput(model)
        for instructionSet in KernelInstructionSet.supported {
            for threads in [1, 2] {
                let interpreter = try Interpreter(
                    contentsOfFile: try Fixtures.model(model),
                    options: .init(threadCount: threads, instructionSet: instructionSet))
                for (name, outputs) in entry.sorted(by: { $0.key < $1.key }) {
                    try interpreter.setInput(Self.transformed(fixtureInput, name))
                    interpreter.invoke()
                    for (k, output) in interpreter.outputs.enumerated() {
                        let expected = Self.floats(try #require(outputs[output.name]))
                        let actual = try interpreter.output(at: k)
                        let differing = zip(actual, expected).filter { $0.bitPattern != $1.bitPattern }.count
                        #expect(
                            differing == 0 && actual.count == expected.count,
                            "\(model) \(name) output \(output.name), \(instructionSet), \(threads) threads: \(differing) values differ")
                    }
                }
            }
        }
    }
}
