import FlatBufferReader
import Inference
import Kernels
import TestSupport
import Testing

/// face_landmark_with_attention, whose MediaPipe custom operators (Landmarks2TransformMatrix,
/// TransformTensorBilinear, TransformLandmarks) LiteRT cannot run, so it has no golden: it
/// loads and runs with every kernel configuration on face_landmark's real input (the same
/// 192×192 face crop, values in [0, 1]), every output finite and of its declared shape, the
/// fast kernels within a small tolerance of the reference kernels, and the refined lips and
/// eyes landing on the mesh landmarks they refine, which the custom operators carry from each
/// crop back to the image.
@Suite struct CustomOperatorModelTests {
    static let model = "face_landmark_with_attention"

    /// The outputs the model declares, in order, with their shapes.
    static let declaredOutputs: [(String, [Int])] = [
        ("output_mesh_identity", [1, 1, 1, 1404]), ("output_lips", [1, 1, 1, 160]),
        ("output_left_eye", [1, 1, 1, 142]), ("output_right_eye", [1, 1, 1, 142]),
        ("output_left_iris", [1, 1, 1, 10]), ("output_right_iris", [1, 1, 1, 10]), ("conv_faceflag", [1, 1, 1, 1]),
    ]

    static func outputs(_ options: Interpreter.Options) throws -> [[Float]] {
        let interpreter = try Interpreter(contentsOfFile: try Fixtures.model(model), options: options)
        #expect(interpreter.outputs.map(\.name) == declaredOutputs.map(\.0))
        #expect(interpreter.outputs.map(\.shape.dimensions) == declaredOutputs.map(\.1))
        try interpreter.setInput(try Fixtures.modelInput("face_landmark"))
        interpreter.invoke()
        return try (0..<declaredOutputs.count).map { try interpreter.output(at: $0) }
    }

    @Test(arguments: ModelGoldenTests.configurations)
    func runsWithFiniteOutputsNearTheReference(options: Interpreter.Options) throws {
        let outputs = try Self.outputs(options)
        let reference = try Self.outputs(.init(threadCount: 1, mode: .reference, instructionSet: .baseline))
        for (k, (name, shape)) in Self.declaredOutputs.enumerated() {
            #expect(outputs[k].count == shape.reduce(1, *), "\(name)")
            #expect(outputs[k].allSatisfy { $0.isFinite }, "\(name)")
            // Landmarks are in pixels of the 192×192 input; the flag is a logit.
            let worst = zip(outputs[k], reference[k]).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= 1e-3, "\(name): fast and reference differ by \(worst), \(options)")
        }
        #expect(outputs[6][0] > 0, "the face flag's logit says there is a face")
    }

    @Test func refinedLandmarksLieOnTheMesh() throws {
        let outputs = try Self.outputs(.init(threadCount: 1, mode: .reference, instructionSet: .baseline))
        let mesh = outputs[0]  // 468 landmarks of (x, y, z)
        // Each region's crop matrix is fitted to the mesh landmarks of its operator's subset,
        // which the region's refined landmarks are, in order.
        let file = try TFLiteModel(contentsOfFile: try Fixtures.model(Self.model))
        let graph = file.subgraphs[0]
        let subsets = try graph.operators.enumerated().compactMap { index, op -> [Int32]? in
            guard file.operatorCodes[op.opcodeIndex].name == "Landmarks2TransformMatrix" else { return nil }
            return try file.optionsTable(of: op, location: "operator \(index)").customOptions()?.int32s("subset_idxs")
        }
        try #require(subsets.map(\.count) == [80, 71, 71])
        for (region, (output, subset)) in zip(["lips", "left eye", "right eye"], zip(outputs[1...3], subsets)) {
            let distances = subset.enumerated().map { i, landmark in
                let dx = output[2 * i] - mesh[3 * Int(landmark)], dy = output[2 * i + 1] - mesh[3 * Int(landmark) + 1]
                return (dx * dx + dy * dy).squareRoot()
            }
            let mean = distances.reduce(0, +) / Float(distances.count)
            #expect(mean < 2.5 && distances.max()! < 6, "\(region): mean \(mean) px, max \(distances.max()!) px")
        }
    }
}
