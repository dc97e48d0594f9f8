import Kernels
import Tensor
import Testing

@testable import Inference

/// Which ADD, PRELU and RELU operators `OperatorFusion` folds into the CONV_2D
/// before them, on small hand-made graphs. (That the folded kernels compute
/// the same bits is checked in KernelsTests' ConvolutionFusionTests and on
/// the real models in ModelGoldenTests.)
@Suite struct OperatorFusionTests {
    // Tensors: 0 input x, 1 filter, 2 bias, 3 conv output t, 4 residual r,
    // 5 ADD output u, 6 alpha, 7 PRELU output y, 8 another output.
    static let shape = TensorShape(validated: [1, 3, 3, 4])
    static let shapes = [
        shape, TensorShape(validated: [4, 1, 1, 4]), TensorShape(validated: [4]), shape, shape, shape,
        TensorShape(validated: [4]), shape, shape,
    ]
    static let constants: [Int: ConstantData] = [
        1: .float32([Float](repeating: 0.5, count: 16)), 2: .float32([1, 2, 3, 4]),
        6: .float32([0.1, 0.2, 0.3, 0.4]),
    ]

    func conv() throws -> Conv2D {
        try Conv2D.prepare(
            inputs: [0, 1, 2].map { Operand(shape: Self.shapes[$0], constant: Self.constants[$0]) },
            options: .init(padding: .valid))
    }

    func add() throws -> Add {
        try Add.prepare(inputs: [Operand(shape: Self.shape), Operand(shape: Self.shape)], options: .init())
    }

    func prelu(alphaIsConstant: Bool = true) throws -> Prelu {
        try Prelu.prepare(inputs: [
            Operand(shape: Self.shape),
            Operand(shape: Self.shapes[6], constant: alphaIsConstant ? Self.constants[6] : nil),
        ])
    }

    func fuse(_ nodes: [PreparedNode], outputs: [Int], constants: [Int: ConstantData] = constants) -> [PreparedNode] {
        OperatorFusion.fuse(
            nodes, constantValue: { constants[$0] }, isConstant: { constants[$0] != nil }, shapes: Self.shapes,
            graphOutputs: outputs)
    }

    @Test func convolutionAbsorbsTheAddAndPreluThatFinishIt() throws {
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try add(), [3, 4], [5]), (try prelu(), [5, 6], [7]),
        ]
        let fused = fuse(nodes, outputs: [7])
        try #require(fused.count == 1)
        #expect(fused[0].kernel.opName == "CONV_2D+ADD+PRELU")
        #expect(fused[0].inputs == [0, 1, 2, 4] && fused[0].outputs == [7])
    }

    /// A RELU that alone reads a convolution's output, or its fused ADD's sum, is folded last;
    /// one whose input is a graph output, or that another op reads too, is not.
    @Test func convolutionAbsorbsTheReluThatAloneReadsIt() throws {
        let relu = try Relu.prepare(inputs: [Operand(shape: Self.shape)], options: NoOptions())
        let plain: [PreparedNode] = [(try conv(), [0, 1, 2], [3]), (relu, [3], [7])]
        let fused = fuse(plain, outputs: [7])
        try #require(fused.count == 1)
        #expect(fused[0].kernel.opName == "CONV_2D+RELU")
        #expect(fused[0].inputs == [0, 1, 2] && fused[0].outputs == [7])
        let residual: [PreparedNode] = [(try conv(), [0, 1, 2], [3]), (try add(), [3, 4], [5]), (relu, [5], [7])]
        #expect(fuse(residual, outputs: [7]).map(\.kernel.opName) == ["CONV_2D+ADD+RELU"])
        #expect(fuse(residual, outputs: [5, 7]).map(\.kernel.opName) == ["CONV_2D+ADD", "RELU"])
        let twoReaders: [PreparedNode] = plain + [(try prelu(), [3, 6], [8])]
        #expect(fuse(twoReaders, outputs: [7, 8]).map(\.kernel.opName) == ["CONV_2D", "RELU", "PRELU"])
    }

    /// An ADD that no convolution absorbs takes the RELU that alone reads it; one with another
    /// reader, or whose sum is a graph output, does not.
    @Test func anAddAbsorbsTheReluThatAloneReadsIt() throws {
        let relu = try Relu.prepare(inputs: [Operand(shape: Self.shape)], options: NoOptions())
        let nodes: [PreparedNode] = [(try add(), [4, 8], [5]), (relu, [5], [7])]
        let fused = fuse(nodes, outputs: [7])
        try #require(fused.count == 1)
        #expect(fused[0].kernel.opName == "ADD+RELU")
        #expect(fused[0].inputs == [4, 8] && fused[0].outputs == [7])
        #expect(fuse(nodes, outputs: [5, 7]).map(\.kernel.opName) == ["ADD", "RELU"])
        let twoReaders: [PreparedNode] = nodes + [(try prelu(), [5, 6], [3])]
        #expect(fuse(twoReaders, outputs: [7, 3]).map(\.kernel.opName) == ["ADD", "RELU", "PRELU"])
    }

    @Test func graphOutputsAreNeverFoldedAway() throws {
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try add(), [3, 4], [5]), (try prelu(), [5, 6], [7]),
        ]
        #expect(fuse(nodes, outputs: [3, 7]).map(\.kernel.opName) == ["CONV_2D", "ADD", "PRELU"])
        #expect(fuse(nodes, outputs: [5, 7]).map(\.kernel.opName) == ["CONV_2D+ADD", "PRELU"])
        // A convolution whose output only the graph reads.
        #expect(fuse([(try conv(), [0, 1, 2], [3])], outputs: [3]).map(\.kernel.opName) == ["CONV_2D"])
    }

    @Test func aTensorWithTwoReadersIsNotFolded() throws {
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try add(), [3, 4], [5]), (try prelu(), [3, 6], [8]),
        ]
        #expect(fuse(nodes, outputs: [5, 8]).map(\.kernel.opName) == ["CONV_2D", "ADD", "PRELU"])
    }

    @Test func theResidualMustBeComputedBeforeTheConvolution() throws {
        // conv₁ → t, conv₂ → r, ADD(t, r): conv₁ runs before r exists,
        // but conv₂ can take t as its residual.
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try conv(), [0, 1, 2], [4]), (try add(), [3, 4], [5]),
        ]
        let fused = fuse(nodes, outputs: [5])
        #expect(fused.map(\.kernel.opName) == ["CONV_2D", "CONV_2D+ADD"])
        #expect(fused.last?.inputs == [0, 1, 2, 3] && fused.last?.outputs == [5])
    }

    /// conv → t, PRELU(x) → r, ADD(t, r): the PRELU moves before the convolution, which then
    /// takes the ADD; a node that reads neither stays where it was.
    @Test func aResidualComputedAfterTheConvolutionMovesBeforeIt() throws {
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try prelu(), [0, 6], [8]), (try prelu(), [0, 6], [4]),
            (try add(), [3, 4], [5]),
        ]
        let fused = fuse(nodes, outputs: [5, 8])
        #expect(fused.map(\.kernel.opName) == ["PRELU", "CONV_2D+ADD", "PRELU"])
        #expect(fused[0].outputs == [4] && fused[2].outputs == [8])
        #expect(fused[1].inputs == [0, 1, 2, 4] && fused[1].outputs == [5])
        // With the convolution's output kept, nothing is folded and nothing moves.
        #expect(fuse(nodes, outputs: [3, 5, 8]).map(\.outputs) == [[3], [8], [4], [5]])
    }

    @Test func constantResidualsSelfAddsAndVariableAlphasAreNotFolded() throws {
        let constantResidual = Self.constants.merging([4: .float32([Float](repeating: 1, count: 36))]) { $1 }
        #expect(
            fuse([(try conv(), [0, 1, 2], [3]), (try add(), [3, 4], [5])], outputs: [5], constants: constantResidual)
                .count == 2)
        #expect(fuse([(try conv(), [0, 1, 2], [3]), (try add(), [3, 3], [5])], outputs: [5]).count == 2)
        let variableAlpha = Self.constants.filter { $0.key != 6 }
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try add(), [3, 4], [5]), (try prelu(alphaIsConstant: false), [5, 6], [7]),
        ]
        #expect(fuse(nodes, outputs: [7], constants: variableAlpha).map(\.kernel.opName) == ["CONV_2D+ADD", "PRELU"])
    }
}

/// Which PAD operators `OperatorFusion` folds into the convolutions after them.
@Suite struct PaddingFusionTests {
    // Tensors: 0 input [1, 4, 4, 2], 1 paddings, 2 padded [1, 6, 6, 2],
    // 3 depthwise filter, 4 and 5 outputs [1, 4, 4, 2].
    static let shapes = [
        TensorShape(validated: [1, 4, 4, 2]), TensorShape(validated: [4, 2]),
        TensorShape(validated: [1, 6, 6, 2]), TensorShape(validated: [1, 3, 3, 2]),
        TensorShape(validated: [1, 4, 4, 2]), TensorShape(validated: [1, 4, 4, 2]),
    ]
    static let constants: [Int: ConstantData] = [
        1: .int32([0, 0, 1, 1, 1, 1, 0, 0]), 3: .float32([Float](repeating: 0.5, count: 18)),
    ]

    func pad() throws -> Pad {
        try Pad.prepare(inputs: [0, 1].map { Operand(shape: Self.shapes[$0], constant: Self.constants[$0]) })
    }

    func depthwise() throws -> DepthwiseConv2D {
        try DepthwiseConv2D.prepare(
            inputs: [2, 3].map { Operand(shape: Self.shapes[$0], constant: Self.constants[$0]) },
            options: .init(padding: .valid))
    }

    func fuse(_ nodes: [PreparedNode], outputs: [Int]) -> [PreparedNode] {
        OperatorFusion.fuse(
            nodes, constantValue: { Self.constants[$0] }, isConstant: { Self.constants[$0] != nil }, shapes: Self.shapes,
            graphOutputs: outputs)
    }

    @Test func aPadThatOnlyConvolutionsReadIsFolded() throws {
        let nodes: [PreparedNode] = [
            (try pad(), [0, 1], [2]), (try depthwise(), [2, 3], [4]), (try depthwise(), [2, 3], [5]),
        ]
        let fused = fuse(nodes, outputs: [4, 5])
        #expect(fused.map(\.kernel.opName) == ["PAD+DEPTHWISE_CONV_2D", "PAD+DEPTHWISE_CONV_2D"])
        #expect(fused.map(\.inputs) == [[0, 3], [0, 3]])
    }

    @Test func aPadWithAnotherReaderOrThatIsAnOutputStays() throws {
        let padded = Operand(shape: Self.shapes[2])
        let withAdd: [PreparedNode] = [
            (try pad(), [0, 1], [2]), (try depthwise(), [2, 3], [4]),
            (try Add.prepare(inputs: [padded, padded], options: .init()), [2, 2], [5]),
        ]
        #expect(fuse(withAdd, outputs: [4, 5]).map(\.kernel.opName) == ["PAD", "DEPTHWISE_CONV_2D", "ADD"])
        let nodes: [PreparedNode] = [(try pad(), [0, 1], [2]), (try depthwise(), [2, 3], [4])]
        #expect(fuse(nodes, outputs: [2, 4]).map(\.kernel.opName) == ["PAD", "DEPTHWISE_CONV_2D"])
    }
}

/// Which 1×1 CONV_2D and DEPTHWISE_CONV_2D pairs `OperatorFusion.joiningExpansions` joins. (That
/// the joined kernel computes the same bits is checked in KernelsTests' ExpansionDepthwiseTests
/// and on the real models in ModelGoldenTests.)
@Suite struct ExpansionJoiningTests {
    // Tensors: 0 input x, 1 filter, 2 bias, 3 expanded e, 4 depthwise filter, 5 depthwise bias,
    // 6 depthwise output y, 7 another output.
    static let input = TensorShape(validated: [1, 6, 6, 4])
    static let expanded = TensorShape(validated: [1, 6, 6, 16])
    static let constants: [Int: ConstantData] = [
        1: .float32([Float](repeating: 0.5, count: 64)), 2: .float32([Float](repeating: 1, count: 16)),
        4: .float32([Float](repeating: 0.25, count: 144)), 5: .float32([Float](repeating: 2, count: 16)),
    ]

    func conv() throws -> Conv2D {
        try Conv2D.prepare(
            inputs: [
                Operand(shape: Self.input), Operand(shape: TensorShape(validated: [16, 1, 1, 4]), constant: Self.constants[1]),
                Operand(shape: TensorShape(validated: [16]), constant: Self.constants[2]),
            ],
            options: .init(padding: .valid))
    }

    func depthwise() throws -> DepthwiseConv2D {
        try DepthwiseConv2D.prepare(
            inputs: [
                Operand(shape: Self.expanded),
                Operand(shape: TensorShape(validated: [1, 3, 3, 16]), constant: Self.constants[4]),
                Operand(shape: TensorShape(validated: [16]), constant: Self.constants[5]),
            ],
            options: .init(padding: .same))
    }

    func add(_ shape: TensorShape) throws -> Add {
        try Add.prepare(inputs: [Operand(shape: shape), Operand(shape: shape)], options: .init())
    }

    func join(_ nodes: [PreparedNode], outputs: [Int], minimum: Int = 0) -> [PreparedNode] {
        OperatorFusion.joiningExpansions(
            nodes, isConstant: { Self.constants[$0] != nil }, graphOutputs: outputs, minimumExpandedFloats: minimum)
    }

    /// The depthwise layer joins the convolution where it was, past an operator between them.
    @Test func theDepthwiseLayerThatAloneReadsAnExpansionJoinsIt() throws {
        let nodes: [PreparedNode] = [
            (try conv(), [0, 1, 2], [3]), (try add(Self.input), [0, 0], [7]), (try depthwise(), [3, 4, 5], [6]),
        ]
        let joined = join(nodes, outputs: [6, 7])
        #expect(joined.map(\.kernel.opName) == ["CONV_2D+DEPTHWISE_CONV_2D", "ADD"])
        #expect(joined.map(\.inputs) == [[0, 1, 2], [0, 0]] && joined.map(\.outputs) == [[6], [7]])
    }

    /// An expanded map that another operator reads too, that is a graph output, or that is
    /// smaller than the default minimum stays written.
    @Test func anExpansionReadElsewhereOrSmallStaysApart() throws {
        let pair: [PreparedNode] = [(try conv(), [0, 1, 2], [3]), (try depthwise(), [3, 4, 5], [6])]
        let names = ["CONV_2D", "DEPTHWISE_CONV_2D"]
        #expect(join(pair + [(try add(Self.expanded), [3, 3], [7])], outputs: [6, 7]).map(\.kernel.opName) == names + ["ADD"])
        #expect(join(pair, outputs: [3, 6]).map(\.kernel.opName) == names)
        #expect(join(pair, outputs: [6], minimum: ExpansionDepthwise.minimumExpandedFloats).map(\.kernel.opName) == names)
        #expect(join(pair, outputs: [6]).map(\.kernel.opName) == ["CONV_2D+DEPTHWISE_CONV_2D"])
    }
}
