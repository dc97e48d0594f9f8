import Foundation
import Inference
import Kernels
import TestSupport
import Testing

/// Whole-model tests: each model's real input from the fixtures
/// (`Tests/Fixtures/tensors`, made by `scripts/make_model_references.py`) through the
/// interpreter, every output compared with LiteRT's reference-kernel output:
/// the reference kernels, and the fast kernels with every microkernel family
/// this CPU runs (`KernelInstructionSet.supported`); and the fast kernels'
/// outputs with XNNPACK's, by the FNV-1a 64 hash of their bytes.
///
/// Tolerance per output: the larger of twice the XNNPACK-vs-reference
/// difference the manifest records for it (how far two correct
/// implementations differ) and 1e-5 × max |reference|.
@Suite struct ModelGoldenTests {
    static let models = [
        "pose_detection", "pose_landmark_full", "palm_detection_full",
        "palm_detection_lite", "hand_landmark_full", "hand_landmark_lite",
        "face_detection_short_range", "face_detection_full_range_sparse", "face_landmark", "hand_recrop",
    ]
    /// Models with MediaPipe's custom operators, which LiteRT cannot run: no golden here
    /// (`CustomOperatorModelTests` runs them).
    static let customOperatorModels = ["face_landmark_with_attention"]
    /// Every model the interpreter tests load.
    static let allModels = models + customOperatorModels

    struct Golden {
        let name: String
        /// LiteRT's reference-kernel output, raw float32.
        let file: String
        /// FNV-1a 64 of XNNPACK's output bytes (little-endian float32).
        let xnnpackHash: String
        let xnnpackVsReference: Float
    }

    /// The reference outputs, XNNPACK hashes and recorded differences of `model`'s real input.
    static func goldens(for model: String) throws -> [Golden] {
        let manifest = try Fixtures.json("tensors/manifest.json") as! [String: Any]
        let entry = (manifest["models"] as! [String: Any])[model] as! [String: Any]
        return (entry["outputs"] as! [[String: Any]]).map { output in
            Golden(
                name: output["name"] as! String, file: output["reference_file"] as! String,
                xnnpackHash: output["xnnpack_fnv1a64"] as! String,
                xnnpackVsReference: Float((output["xnnpack_vs_reference_max_abs"] as! NSNumber).doubleValue))
        }
    }

    /// The kernel configurations every model is checked with.
    static let configurations: [Interpreter.Options] =
        KernelInstructionSet.supported.map { .init(threadCount: 2, mode: .fast, instructionSet: $0) }
        + [.init(threadCount: 2, mode: .reference, instructionSet: .baseline)]

    @Test(arguments: models, configurations)
    func matchesLiteRTReference(model: String, options: Interpreter.Options) throws {
        let mode = "\(options.mode)" + (options.mode == .fast ? " \(options.instructionSet)" : "")
        let interpreter = try Interpreter(contentsOfFile: try Fixtures.model(model), options: options)
        try interpreter.setInput(try Fixtures.modelInput(model))
        interpreter.invoke()

        let goldens = try Self.goldens(for: model)
        #expect(goldens.map(\.name) == interpreter.outputs.map(\.name))
        for (k, golden) in goldens.enumerated() {
            let expected = try Fixtures.floats(golden.file)
            let actual = try interpreter.output(at: k)
            try #require(actual.count == expected.count, "output \(golden.name): element count")
            let maxReference = expected.map(abs).max() ?? 0
            let tolerance = max(2 * golden.xnnpackVsReference, 1e-5 * maxReference)
            var worst: Float = 0
            var worstIndex = 0
            for i in expected.indices where abs(actual[i] - expected[i]) > worst || actual[i].isNaN {
                worst = actual[i].isNaN ? .infinity : abs(actual[i] - expected[i])
                worstIndex = i
            }
            #expect(
                worst <= tolerance,
                "\(model) \(mode) output \(golden.name): max |diff| \(worst) at \(worstIndex) > tolerance \(tolerance)")
        }
    }

    /// The fast kernels give LiteRT's XNNPACK outputs bit for bit, with
    /// either microkernel family, at one and two threads: every operator's
    /// fast kernel computes what XNNPACK computes: bias first, one fused
    /// multiply-add per tap in XNNPACK's tap order (filter columns outer in
    /// depthwise convolutions, the input channels in order in
    /// FULLY_CONNECTED), its RESIZE_BILINEAR arithmetic, MEAN's sum in input
    /// order times the reciprocal of the count, LOGISTIC by XNNPACK's AVX2 +
    /// FMA sigmoid (both families: on AVX-512 CPUs XNNPACK picks another
    /// sigmoid, which gives the same bits on these inputs but not on all).
    /// With `usesSparseKernels` too: pose_detection's channel-major regions
    /// (sparse 1×1 convolutions, channel-major depthwise convolutions and
    /// stem) sum in the dense kernels' order.
    @Test(.enabled(if: KernelInstructionSet.fusesMultiplyAdd, "needs the native build's fused multiply-adds"),
          arguments: models)
    func fastKernelsGiveXNNPACKOutputsBitForBit(model: String) throws {
        let goldens = try Self.goldens(for: model)
        let references = try goldens.map { try Fixtures.floats($0.file) }
        for instructionSet in KernelInstructionSet.supported {
            for threads in [1, 2] {
                for sparse in [true, false] {
                    let interpreter = try Interpreter(
                        contentsOfFile: try Fixtures.model(model),
                        options: .init(threadCount: threads, instructionSet: instructionSet, usesSparseKernels: sparse))
                    try interpreter.setInput(try Fixtures.modelInput(model))
                    interpreter.invoke()
                    for (k, golden) in goldens.enumerated() {
                        let actual = try interpreter.output(at: k)
                        let worst = zip(actual, references[k]).map { abs($0 - $1) }.max() ?? 0
                        #expect(
                            FNV1a.hash(actual) == golden.xnnpackHash,
                            """
                            \(model) output \(golden.name), \(instructionSet), \(threads) threads, sparse \(sparse): \
                            not XNNPACK's bytes (max |diff| from LiteRT's reference kernels \(worst), \
                            XNNPACK's \(golden.xnnpackVsReference))
                            """)
                    }
                }
            }
        }
    }

    /// The kernels of both families, dense and with channel-major regions.
    @Test(
        .enabled(if: KernelInstructionSet.avx512.isSupported, "needs a CPU with AVX-512"),
        arguments: models, [false, true])
    func bothMicrokernelFamiliesGiveIdenticalOutputs(model: String, sparse: Bool) throws {
        var outputs: [[[Float]]] = []
        for instructionSet in KernelInstructionSet.allCases {
            let interpreter = try Interpreter(
                contentsOfFile: try Fixtures.model(model),
                options: .init(threadCount: 1, instructionSet: instructionSet, usesSparseKernels: sparse))
            try interpreter.setInput(try Fixtures.modelInput(model))
            interpreter.invoke()
            outputs.append(try interpreter.outputs.indices.map { try interpreter.output(at: $0) })
        }
        for (k, (wide, baseline)) in zip(outputs[1], outputs[0]).enumerated() {
            let differing = zip(wide, baseline).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(
                differing == 0, "\(model) output \(k), sparse \(sparse): \(differing) values differ between avx512 and baseline")
        }
    }

    @Test(arguments: models)
    func foldedOperatorsGiveIdenticalOutputs(model: String) throws {
        var outputs: [[[Float]]] = []
        var operators: [Int] = []
        for fuses in [false, true] {
            let interpreter = try Interpreter(
                contentsOfFile: try Fixtures.model(model),
                options: .init(threadCount: 1, fusesOperators: fuses, usesSparseKernels: false))
            try interpreter.setInput(try Fixtures.modelInput(model))
            interpreter.invoke()
            outputs.append(try interpreter.outputs.indices.map { try interpreter.output(at: $0) })
            operators.append(interpreter.summary.preparedOperatorCount)
        }
        #expect(operators[1] < operators[0], "\(model): nothing was folded")
        for (k, (folded, separate)) in zip(outputs[1], outputs[0]).enumerated() {
            let differing = zip(folded, separate).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(differing == 0, "\(model) output \(k): \(differing) values differ with operators folded")
        }
    }

    @Test func repeatedInvokeGivesIdenticalOutputs() throws {
        let interpreter = try Interpreter(contentsOfFile: try Fixtures.model("hand_landmark_lite"))
        try interpreter.setInput(try Fixtures.modelInput("hand_landmark_lite"))
        interpreter.invoke()
        let first = try interpreter.output(at: 0)
        interpreter.invoke()
        #expect(try interpreter.output(at: 0) == first)
    }
}
