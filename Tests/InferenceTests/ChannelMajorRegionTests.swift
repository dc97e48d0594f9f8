import Kernels
import Tensor
import TestSupport
import Testing

@testable import Inference

/// Where `ChannelMajorRegions` runs sparse 1×1 convolutions channel-major:
/// on small hand-made graphs (which operators move, where conversions go)
/// and on pose_detection (all 38 sparse filters, outputs that do not depend
/// on the thread count). Accuracy against LiteRT is ModelGoldenTests'; the
/// kernels themselves are swept in KernelsTests.
@Suite struct ChannelMajorRegionTests {
    // Tensors of the hand-made graphs: 0 input x [1, 4, 4, 8]; 1 sparse
    // filter [8, 1, 1, 8], 2 dense filter, 3 bias [8]; 4... activations of x's shape.
    static let shape = TensorShape(validated: [1, 4, 4, 8])

    /// A 1×1 convolution with a filter at 25 % density (or dense).
    func pointwise(sparse: Bool) throws -> Conv2D {
        var filter = [Float](repeating: 0, count: 64)
        for i in filter.indices where !sparse || i % 4 == 0 { filter[i] = Float(i % 7) - 3 }
        return try Conv2D.prepare(
            inputs: [
                Operand(shape: Self.shape),
                Operand(shape: TensorShape(validated: [8, 1, 1, 8]), constant: .float32(filter)),
                Operand(shape: TensorShape(validated: [8]), constant: .float32([Float](repeating: 0.5, count: 8))),
            ],
            options: .init(padding: .valid))
    }

    /// A 3×3 depthwise convolution, without a bias or with `bias`.
    func depthwise(bias: [Float]? = nil) throws -> DepthwiseConv2D {
        try DepthwiseConv2D.prepare(
            inputs: [
                Operand(shape: Self.shape),
                Operand(shape: TensorShape(validated: [1, 3, 3, 8]), constant: .float32((0..<72).map { Float($0 % 5) })),
            ] + (bias.map { [Operand(shape: TensorShape(validated: [8]), constant: .float32($0))] } ?? []),
            options: .init(padding: .same, depthMultiplier: 1))
    }

    func apply(_ nodes: [PreparedNode], outputs: [Int]) throws -> (nodes: [PreparedNode], shapes: [TensorShape]) {
        var shapes = [TensorShape](repeating: Self.shape, count: 12)
        let constants: Set<Int> = [1, 2, 3]
        let result = try ChannelMajorRegions.apply(
            nodes, shapes: &shapes, isConstant: constants.contains, graphOutputs: outputs,
            compressedRows: { _ in nil })
        return (result, shapes)
    }

    @Test func aChainOfSparseConvolutionsRunsChannelMajorWithConversionsAtItsBorders() throws {
        // x → sparse → dw → sparse → y (graph output)
        let nodes: [PreparedNode] = [
            (try pointwise(sparse: true), [0, 1, 3], [4]),
            (try depthwise(), [4, 3], [5]),
            (try pointwise(sparse: true), [5, 1, 3], [6]),
        ]
        let (result, shapes) = try apply(nodes, outputs: [6])
        #expect(result.map { "\(type(of: $0.kernel))" } == [
            "LayoutConversion", "SparsePointwiseConv2DCHW", "DepthwiseConv2DCHW", "SparsePointwiseConv2DCHW",
            "LayoutConversion",
        ])
        // x is copied to a new tensor, the inner tensors stay in place, and
        // the last convolution writes a copy that is converted back into y.
        #expect(shapes.count == 14)
        #expect(result[0].inputs == [0] && result[0].outputs == [12])
        #expect(result[1].inputs == [12, 1, 3] && result[1].outputs == [4])
        #expect(result[2].inputs[0] == 4 && result[2].outputs == [5])
        #expect(result[3].inputs == [5, 1, 3] && result[3].outputs == [13])
        #expect(result[4].inputs == [13] && result[4].outputs == [6])
        #expect((result[0].kernel as? LayoutConversion)?.direction == .toChannelMajor)
        #expect((result[4].kernel as? LayoutConversion)?.direction == .toChannelLast)
    }

    /// A depthwise convolution with a `−0` bias stays channel-last: its channel-major kernel
    /// would add `+0` for padding taps and could turn a `−0` sum into `+0`. Without it the two
    /// sparse convolutions are a region each, too small to convert to.
    @Test func aDepthwiseConvolutionWithANegativeZeroBiasStaysChannelLast() throws {
        let bias = (0..<8).map { $0 == 5 ? Float(-0.0) : 1 }
        let nodes: [PreparedNode] = [
            (try pointwise(sparse: true), [0, 1, 3], [4]),
            (try depthwise(bias: bias), [4, 3], [5]),
            (try pointwise(sparse: true), [5, 1, 3], [6]),
        ]
        #expect(DepthwiseConv2DCHW(try depthwise(bias: bias.map { $0 == 0 ? 0 : $0 })) != nil)
        let (result, _) = try apply(nodes, outputs: [6])
        #expect(result.map(\.kernel.opName) == nodes.map(\.kernel.opName))
    }

    @Test func aTensorReadOutsideTheRegionIsConvertedBackOnce() throws {
        // x → sparse → t; t → sparse → y; t → dense conv → z
        let nodes: [PreparedNode] = [
            (try pointwise(sparse: true), [0, 1, 3], [4]),
            (try pointwise(sparse: true), [4, 1, 3], [5]),
            (try pointwise(sparse: false), [4, 2, 3], [6]),
        ]
        // Sparse 1×1 convolutions only: their kernel exists for every family.
        let (result, _) = try apply(nodes, outputs: [5, 6])
        let names = result.map { "\(type(of: $0.kernel))" }
        #expect(names == [
            "LayoutConversion", "SparsePointwiseConv2DCHW", "LayoutConversion", "SparsePointwiseConv2DCHW",
            "LayoutConversion", "Conv2D",
        ])
        // The dense convolution still reads t (index 4), written back channel-last.
        #expect(result[2].outputs == [4] && result[5].inputs == [4, 2, 3])
        #expect(result[3].inputs[0] == result[1].outputs[0])
    }

    @Test func aLoneSparseConvolutionIsLeftChannelLast() throws {
        let nodes: [PreparedNode] = [
            (try pointwise(sparse: true), [0, 1, 3], [4]),
            (try pointwise(sparse: false), [4, 2, 3], [5]),
        ]
        let (result, shapes) = try apply(nodes, outputs: [5])
        #expect(result.map(\.kernel.opName) == nodes.map(\.kernel.opName))
        #expect(shapes.count == 12)
    }

    /// The op names of one profiled pass of pose_detection.
    func operatorNames(_ interpreter: Interpreter) -> [String] {
        var names: [String] = []
        interpreter.invokeProfiled { names.append($0.opName) }
        return names
    }

    @Test func poseDetectionRunsEverySparseFilterAsASparseKernel() throws {
        let interpreter = try Interpreter(contentsOfFile: try Fixtures.model("pose_detection"))
        let names = operatorNames(interpreter)
        let sparse = names.filter { $0.contains("sparse") }.count
        #expect(sparse == 38, "sparse convolutions among \(names)")
        // The 3-channel stem writes the region's first tensor channel-major itself; only the
        // two upsampled feature maps the decoder feeds back are converted into the region.
        #expect(names.first == "PAD+CONV_2D(to CHW)", "first operators \(names.prefix(3))")
        #expect(names.filter { $0 == "TO_CHANNEL_MAJOR" }.count == 2, "conversions among \(names)")
        let dense = try Interpreter(
            contentsOfFile: try Fixtures.model("pose_detection"), options: .init(usesSparseKernels: false))
        #expect(!operatorNames(dense).contains { $0.contains("sparse") || $0.contains("CHW") })
    }

    /// pose_detection with its sparse regions against the same model dense, bit for bit, on
    /// the fixtures' real input at 1 and 2 threads, in every kernel family this CPU runs: the
    /// channel-major kernels sum in the dense kernels' order.
    @Test(arguments: [1, 2], KernelInstructionSet.supported)
    func poseDetectionWithSparseKernelsEqualsDense(threads: Int, instructionSet: KernelInstructionSet) throws {
        var outputs: [[[Float]]] = []
        for sparse in [true, false] {
            let interpreter = try Interpreter(
                contentsOfFile: try Fixtures.model("pose_detection"),
                options: .init(threadCount: threads, instructionSet: instructionSet, usesSparseKernels: sparse))
            if sparse {
                #expect(operatorNames(interpreter).contains("DEPTHWISE_CONV_2D(CHW)"), "\(instructionSet): no region")
            }
            try interpreter.setInput(try Fixtures.modelInput("pose_detection"))
            interpreter.invoke()
            outputs.append(try interpreter.outputs.indices.map { try interpreter.output(at: $0) })
        }
        #expect(outputs[0].count == outputs[1].count && !outputs[0].isEmpty)
        for (k, (a, b)) in zip(outputs[0], outputs[1]).enumerated() {
            let differing = zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count
            #expect(
                differing == 0 && a.count == b.count,
                "output \(k): \(differing) of \(a.count) values differ between sparse and dense, \(instructionSet), \(threads) threads")
        }
    }

    @Test func poseDetectionOutputsDoNotDependOnTheThreadCount() throws {
        var outputs: [[[Float]]] = []
        for threads in [1, 2, 3] {
            let interpreter = try Interpreter(
                contentsOfFile: try Fixtures.model("pose_detection"), options: .init(threadCount: threads))
            try interpreter.setInput(try Fixtures.modelInput("pose_detection"))
            interpreter.invoke()
            outputs.append(try interpreter.outputs.indices.map { try interpreter.output(at: $0) })
        }
        for threads in 1..<outputs.count {
            for (k, (a, b)) in zip(outputs[0], outputs[threads]).enumerated() {
                let differing = zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "output \(k): \(differing) values differ between 1 and \(threads + 1) threads")
            }
        }
    }
}
