import Kernels
import Tensor
import TestSupport
import Testing

@Suite struct Conv2DTests {
    typealias S = ConvTestSupport

    /// `[1, H, W, 1]` input holding 1, 2, 3, … in row-major order.
    static func counting(_ h: Int, _ w: Int) -> [Float] {
        (1...(h * w)).map(Float.init)
    }

    static func conv(
        input: [Int], filter: [Int], _ filterValues: [Float], bias: [Float]? = nil,
        _ options: Conv2D.Options
    ) throws -> Conv2D {
        var operands = [S.activation(input), S.constant(filter, filterValues)]
        if let bias { operands.append(S.constant([bias.count], bias)) }
        return try Conv2D.prepare(inputs: operands, options: options)
    }

    // MARK: Hand-computed cases

    @Test func validTwoByTwoFilterOnThreeByThree() throws {
        // input 1 2 3 / 4 5 6 / 7 8 9, filter 1 2 / 3 4.
        let kernel = try Self.conv(input: [1, 3, 3, 1], filter: [1, 2, 2, 1], [1, 2, 3, 4], .init(padding: .valid))
        #expect(kernel.outputShapes == [S.shape([1, 2, 2, 1])])
        #expect(runReference(kernel, [Self.counting(3, 3)]) == [37, 47, 67, 77])
        #expect(kernel.multiplyAccumulates == 4 * 4)
    }

    @Test func sameWithEvenFilterPadsOnlyBottomAndRight() throws {
        // Total padding (3−1)·1 + 2 − 3 = 1 per axis: none before, one after,
        // so each window starts at its own output pixel.
        let kernel = try Self.conv(input: [1, 3, 3, 1], filter: [1, 2, 2, 1], [1, 2, 3, 4], .init(padding: .same))
        #expect(kernel.outputShapes == [S.shape([1, 3, 3, 1])])
        #expect(runReference(kernel, [Self.counting(3, 3)]) == [37, 47, 21, 67, 77, 33, 23, 26, 9])
        #expect(kernel.multiplyAccumulates == 9 * 4)
    }

    @Test func sameWithOddFilterPadsBothSides() throws {
        // A 3×3 box filter: each output is the sum of the 3×3 neighbourhood.
        let kernel = try Self.conv(
            input: [1, 3, 3, 1], filter: [1, 3, 3, 1], [Float](repeating: 1, count: 9), .init(padding: .same))
        #expect(runReference(kernel, [Self.counting(3, 3)]) == [12, 21, 16, 27, 45, 33, 24, 39, 28])
    }

    @Test func strideTwoSamePutsTheOddPaddingRowBelow() throws {
        // 4×4 input 1…16, 3×3 box, stride 2: out 2×2, total padding 1, all of it
        // after, so windows cover rows/cols {0,1,2} and {2,3}.
        let kernel = try Self.conv(
            input: [1, 4, 4, 1], filter: [1, 3, 3, 1], [Float](repeating: 1, count: 9),
            .init(padding: .same, strideH: 2, strideW: 2))
        #expect(kernel.outputShapes == [S.shape([1, 2, 2, 1])])
        #expect(runReference(kernel, [Self.counting(4, 4)]) == [54, 45, 72, 54])
    }

    @Test func dilationTwoSpreadsTheTaps() throws {
        // 5×5 input with value 5r + c + 1, 2×2 ones filter at dilation 2:
        // out(y, x) = in(y, x) + in(y, x+2) + in(y+2, x) + in(y+2, x+2) = 20y + 4x + 28.
        let kernel = try Self.conv(
            input: [1, 5, 5, 1], filter: [1, 2, 2, 1], [1, 1, 1, 1],
            .init(padding: .valid, dilationH: 2, dilationW: 2))
        #expect(kernel.outputShapes == [S.shape([1, 3, 3, 1])])
        #expect(runReference(kernel, [Self.counting(5, 5)]) == [28, 32, 36, 48, 52, 56, 68, 72, 76])
    }

    @Test func biasThenActivationClamp() throws {
        // One pixel [1, 2]; filters [1, 1] → 3, [−1, 0] → −1, [2, 3] → 8;
        // bias [0.5, 0.5, −1] → 3.5, −0.5, 7 before the clamp.
        let expected: [(FusedActivation, [Float])] = [
            (.none, [3.5, -0.5, 7]), (.relu, [3.5, 0, 7]), (.relu6, [3.5, 0, 6]), (.reluN1To1, [1, -0.5, 1]),
        ]
        for (activation, values) in expected {
            let kernel = try Self.conv(
                input: [1, 1, 1, 2], filter: [3, 1, 1, 2], [1, 1, -1, 0, 2, 3], bias: [0.5, 0.5, -1],
                .init(padding: .valid, activation: activation))
            #expect(runReference(kernel, [[1, 2]]) == values, "activation \(activation)")
        }
    }

    @Test func batchesAreIndependent() throws {
        // Two 1×2 images, a 1×2 filter [1, 10]: each output sees only its own image.
        let kernel = try Self.conv(input: [2, 1, 2, 1], filter: [1, 1, 2, 1], [1, 10], .init(padding: .valid))
        #expect(kernel.outputShapes == [S.shape([2, 1, 1, 1])])
        #expect(runReference(kernel, [[1, 2, 3, 4]]) == [21, 43])
    }

    // MARK: Properties

    @Test func identityOneByOneFilterCopiesTheInput() throws {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        for channels in [1, 3, 8, 17] {
            var identity = [Float](repeating: 0, count: channels * channels)
            for c in 0..<channels { identity[c * channels + c] = 1 }
            let dims = [2, 3, 5, channels]
            let kernel = try Self.conv(input: dims, filter: [channels, 1, 1, channels], identity, .init(padding: .same))
            let input = S.randomFloats(dims.reduce(1, *), using: &generator)
            #expect(kernel.outputShapes == [S.shape(dims)])
            #expect(runReference(kernel, [input]) == input, "channels \(channels), seed \(seed)")
        }
    }

    @Test func sameOutputSizeIsCeilOfInputOverStride() throws {
        for size in 1...9 {
            for stride in 1...4 {
                for filter in 1...4 {
                    for dilation in 1...3 {
                        let kernel = try Self.conv(
                            input: [1, size, size + 1, 1], filter: [1, filter, filter, 1],
                            [Float](repeating: 1, count: filter * filter),
                            .init(
                                padding: .same, strideH: stride, strideW: stride,
                                dilationH: dilation, dilationW: dilation))
                        let expected = [1, (size + stride - 1) / stride, (size + stride) / stride, 1]
                        #expect(kernel.outputShapes == [S.shape(expected)], "in \(size), stride \(stride)")
                    }
                }
            }
        }
    }

    @Test func randomSweepMatchesPaddedDilatedOracle() throws {
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .relu6, .reluN1To1]
        for trial in 0..<150 {
            let n = Int.random(in: 1...2, using: &g)
            let h = Int.random(in: 1...7, using: &g), w = Int.random(in: 1...7, using: &g)
            let cin = Int.random(in: 1...4, using: &g), cout = Int.random(in: 1...5, using: &g)
            let kh = Int.random(in: 1...3, using: &g), kw = Int.random(in: 1...3, using: &g)
            let options = Conv2D.Options(
                padding: Bool.random(using: &g) ? .same : .valid,
                strideH: Int.random(in: 1...3, using: &g), strideW: Int.random(in: 1...3, using: &g),
                dilationH: Int.random(in: 1...2, using: &g), dilationW: Int.random(in: 1...2, using: &g),
                activation: activations.randomElement(using: &g)!)
            let hasBias = Bool.random(using: &g)
            let inputDims = [n, h, w, cin], filterDims = [cout, kh, kw, cin]
            let input = S.randomFloats(inputDims.reduce(1, *), using: &g)
            let filter = S.randomFloats(filterDims.reduce(1, *), using: &g)
            let bias = hasBias ? S.randomFloats(cout, using: &g) : [Float](repeating: 0, count: cout)
            let context = "trial \(trial), seed \(seed), input \(inputDims), filter \(filterDims), \(options)"

            let oracle = S.convolutionOracle(
                input: input, inputDims: inputDims, filter: filter, filterDims: filterDims, bias: bias,
                padding: options.padding, strideH: options.strideH, strideW: options.strideW,
                dilationH: options.dilationH, dilationW: options.dilationW,
                clamp: S.clampRange(options.activation))
            let operands = [S.activation(inputDims), S.constant(filterDims, filter)]
                + (hasBias ? [S.constant([cout], bias)] : [])
            guard let oracle else {
                #expect(throws: KernelError.self, "\(context)") {
                    try Conv2D.prepare(inputs: operands, options: options)
                }
                continue
            }
            let kernel = try Conv2D.prepare(inputs: operands, options: options)
            let output = runReference(kernel, [input])
            let tolerance = S.summationTolerance(terms: kh * kw * cin)
            let mismatch = S.firstMismatch(output, oracle, tolerance: tolerance)
            #expect(mismatch == nil, "\(context): \(mismatch ?? "")")
            #expect(kernel.multiplyAccumulates == oracle.count * kh * kw * cin, "\(context)")
        }
    }

    // MARK: Prepare errors

    @Test func rejectsBadOperands() {
        let input = S.activation([1, 4, 4, 2])
        let filter = S.constant([3, 2, 2, 2], [Float](repeating: 1, count: 24))
        let options = Conv2D.Options(padding: .same)
        S.expectKernelError(op: "CONV_2D", mentioning: ["2 or 3 inputs", "got 1"]) {
            try Conv2D.prepare(inputs: [input], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["got 4"]) {
            try Conv2D.prepare(inputs: [input, filter, S.constant([3], [0, 0, 0]), input], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["input must be 4-D", "[4, 4, 2]"]) {
            try Conv2D.prepare(inputs: [S.activation([4, 4, 2]), filter], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["filter must be 4-D"]) {
            try Conv2D.prepare(
                inputs: [input, S.constant([3, 2, 2], [Float](repeating: 1, count: 12))], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["filter shape [0, 2, 2, 2]"]) {
            try Conv2D.prepare(inputs: [input, S.constant([0, 2, 2, 2], [])], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["input channels 2", "filter's input channels 3"]) {
            try Conv2D.prepare(inputs: [input, S.constant([1, 1, 1, 3], [1, 1, 1])], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["grouped convolution", "input channels 4", "2 groups"]) {
            try Conv2D.prepare(inputs: [S.activation([1, 4, 4, 4]), filter], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["filter must be a constant"]) {
            try Conv2D.prepare(inputs: [input, S.activation([3, 2, 2, 2])], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["filter must be a float32 constant"]) {
            try Conv2D.prepare(inputs: [input, S.intConstant([1, 1, 1, 2], [1, 1])], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["filter constant holds 3 values", "needs 24"]) {
            try Conv2D.prepare(inputs: [input, S.constant([3, 2, 2, 2], [1, 2, 3])], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["bias has 2 elements", "expected 3"]) {
            try Conv2D.prepare(inputs: [input, filter, S.constant([2], [0, 0])], options: options)
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["bias must be a constant"]) {
            try Conv2D.prepare(inputs: [input, filter, S.activation([3])], options: options)
        }
    }

    @Test func rejectsBadOptions() {
        let operands = [S.activation([1, 4, 4, 2]), S.constant([3, 2, 2, 2], [Float](repeating: 1, count: 24))]
        let cases: [(Conv2D.Options, String)] = [
            (.init(padding: .same, strideH: 0), "strideH must be in 1...2147483647, got 0"),
            (.init(padding: .same, strideW: -2), "strideW must be in 1...2147483647, got -2"),
            (.init(padding: .same, dilationH: 0), "dilationH must be in 1...2147483647, got 0"),
            (.init(padding: .same, dilationW: 0), "dilationW must be in 1...2147483647, got 0"),
            (.init(padding: .same, strideH: 1 << 40), "strideH must be in 1...2147483647"),
        ]
        for (options, message) in cases {
            S.expectKernelError(op: "CONV_2D", mentioning: [message]) {
                try Conv2D.prepare(inputs: operands, options: options)
            }
        }
    }

    @Test func rejectsEmptyInputAndOutput() {
        let filter = S.constant([1, 3, 3, 1], [Float](repeating: 1, count: 9))
        // VALID with a dilated 3×3 filter (span 5) over a 4-pixel-high input.
        S.expectKernelError(op: "CONV_2D", mentioning: ["VALID padding gives an empty output", "input height 4"]) {
            try Conv2D.prepare(
                inputs: [S.activation([1, 4, 9, 1]), filter], options: .init(padding: .valid, dilationH: 2))
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["input width 2"]) {
            try Conv2D.prepare(inputs: [S.activation([1, 3, 2, 1]), filter], options: .init(padding: .valid))
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["input shape [1, 0, 3, 1] is empty"]) {
            try Conv2D.prepare(inputs: [S.activation([1, 0, 3, 1]), filter], options: .init(padding: .same))
        }
        S.expectKernelError(op: "CONV_2D", mentioning: ["input shape [0, 3, 3, 1] is empty"]) {
            try Conv2D.prepare(inputs: [S.activation([0, 3, 3, 1]), filter], options: .init(padding: .same))
        }
    }
}
