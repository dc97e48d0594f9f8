import Kernels
import Tensor
import TestSupport
import Testing

@Suite struct DepthwiseConv2DTests {
    typealias S = ConvTestSupport

    static func depthwise(
        input: [Int], filter: [Int], _ filterValues: [Float], bias: [Float]? = nil,
        _ options: DepthwiseConv2D.Options
    ) throws -> DepthwiseConv2D {
        var operands = [S.activation(input), S.constant(filter, filterValues)]
        if let bias { operands.append(S.constant([bias.count], bias)) }
        return try DepthwiseConv2D.prepare(inputs: operands, options: options)
    }

    // MARK: Hand-computed cases

    @Test func depthMultiplierTwoWithBias() throws {
        // Pixels (0,0) [1, 10], (0,1) [2, 20], (1,0) [3, 30], (1,1) [4, 40].
        // Filter taps (ky, kx) → [oc0, oc1, oc2, oc3]; oc0, oc1 read channel 0,
        // oc2, oc3 read channel 1:
        //   (0,0) [1,0,0,1]  (0,1) [0,1,1,0]  (1,0) [1,1,0,0]  (1,1) [0,0,1,1]
        // oc0 = 1 + 3 = 4, oc1 = 2 + 3 = 5, oc2 = 20 + 40 = 60, oc3 = 10 + 40 = 50.
        let filter: [Float] = [1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1]
        let input: [Float] = [1, 10, 2, 20, 3, 30, 4, 40]
        let kernel = try Self.depthwise(
            input: [1, 2, 2, 2], filter: [1, 2, 2, 4], filter, bias: [1, 2, 3, 4],
            .init(padding: .valid, depthMultiplier: 2))
        #expect(kernel.outputShapes == [S.shape([1, 1, 1, 4])])
        #expect(kernel.depthMultiplier == 2)
        #expect(kernel.multiplyAccumulates == 4 * 4)
        #expect(runReference(kernel, [input]) == [5, 7, 63, 54])

        let clamped = try Self.depthwise(
            input: [1, 2, 2, 2], filter: [1, 2, 2, 4], filter, bias: [1, 2, 3, 4],
            .init(padding: .valid, depthMultiplier: 2, activation: .relu6))
        #expect(runReference(clamped, [input]) == [5, 6, 6, 6])
    }

    @Test func sameWithEvenFilterPadsOnlyBottomAndRight() throws {
        // One channel: the same sums as a plain convolution, 1 2 / 3 4 over 1…9.
        let kernel = try Self.depthwise(
            input: [1, 3, 3, 1], filter: [1, 2, 2, 1], [1, 2, 3, 4], .init(padding: .same))
        #expect(runReference(kernel, [(1...9).map(Float.init)]) == [37, 47, 21, 67, 77, 33, 23, 26, 9])
    }

    @Test func strideAndDilation() throws {
        // 5×5 input 5r + c + 1, 2×2 ones at dilation 2, stride 2: out(y, x) =
        // 20·(2y) + 4·(2x) + 28 over the VALID 3×3 grid subsampled to 2×2.
        let kernel = try Self.depthwise(
            input: [1, 5, 5, 1], filter: [1, 2, 2, 1], [1, 1, 1, 1],
            .init(padding: .valid, strideH: 2, strideW: 2, dilationH: 2, dilationW: 2))
        #expect(kernel.outputShapes == [S.shape([1, 2, 2, 1])])
        #expect(runReference(kernel, [(1...25).map(Float.init)]) == [28, 36, 68, 76])
    }

    @Test func filterShapeDecidesTheMultiplierOverTheOption() throws {
        // TFLite derives M = Cout / Cin from the filter and ignores the option.
        let kernel = try Self.depthwise(
            input: [1, 1, 1, 2], filter: [1, 1, 1, 4], [1, 2, 3, 4], .init(padding: .valid, depthMultiplier: 3))
        #expect(kernel.depthMultiplier == 2)
        #expect(kernel.outputShapes == [S.shape([1, 1, 1, 4])])
        #expect(runReference(kernel, [[10, 100]]) == [10, 20, 300, 400])
    }

    // MARK: Properties

    @Test func oneHotFiltersShiftEachChannel() throws {
        // Channel c has a single 1 at tap (c / 3, c % 3) of a 3×3 filter, so its
        // output is its input shifted by that tap (zeros where it leaves the input).
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        let (n, h, w, c) = (2, 5, 6, 9)
        var filter = [Float](repeating: 0, count: 9 * c)
        for ch in 0..<c { filter[ch * c + ch] = 1 }  // tap index ch = ky·3 + kx
        let input = S.randomFloats(n * h * w * c, using: &g)
        for padding in [Padding.valid, .same] {
            let kernel = try Self.depthwise(input: [n, h, w, c], filter: [1, 3, 3, c], filter, .init(padding: padding))
            let output = runReference(kernel, [input])
            let shift = padding == .same ? 1 : 0  // SAME 3×3 stride 1 pads one pixel each side
            let (oh, ow) = padding == .same ? (h, w) : (h - 2, w - 2)
            #expect(kernel.outputShapes == [S.shape([n, oh, ow, c])])
            var expected: [Float] = []
            for b in 0..<n {
                for y in 0..<oh {
                    for x in 0..<ow {
                        for ch in 0..<c {
                            let iy = y - shift + ch / 3, ix = x - shift + ch % 3
                            let inside = iy >= 0 && iy < h && ix >= 0 && ix < w
                            expected.append(inside ? input[((b * h + iy) * w + ix) * c + ch] : 0)
                        }
                    }
                }
            }
            #expect(output == expected, "\(padding), seed \(seed)")
        }
    }

    @Test func singleChannelEqualsConvolutionWithMultiplierOutputs() throws {
        // With Cin = 1, depthwise [1, KH, KW, M] is CONV_2D with [M, KH, KW, 1]:
        // the same taps summed in the same order, so bit-identical.
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        for trial in 0..<30 {
            let m = Int.random(in: 1...4, using: &g), kh = Int.random(in: 1...3, using: &g)
            let kw = Int.random(in: 1...3, using: &g)
            let inputDims = [1, Int.random(in: 3...7, using: &g), Int.random(in: 3...7, using: &g), 1]
            let padding: Padding = Bool.random(using: &g) ? .same : .valid
            let (sh, sw) = (Int.random(in: 1...2, using: &g), Int.random(in: 1...2, using: &g))
            let depthwiseFilter = S.randomFloats(kh * kw * m, using: &g)
            var convFilter = [Float](repeating: 0, count: m * kh * kw)
            for tap in 0..<(kh * kw) {
                for o in 0..<m { convFilter[o * kh * kw + tap] = depthwiseFilter[tap * m + o] }
            }
            let bias = S.randomFloats(m, using: &g)
            let input = S.randomFloats(inputDims.reduce(1, *), using: &g)
            let depthwise = try Self.depthwise(
                input: inputDims, filter: [1, kh, kw, m], depthwiseFilter, bias: bias,
                .init(padding: padding, strideH: sh, strideW: sw, depthMultiplier: m, activation: .relu6))
            let conv = try Conv2D.prepare(
                inputs: [S.activation(inputDims), S.constant([m, kh, kw, 1], convFilter), S.constant([m], bias)],
                options: .init(padding: padding, strideH: sh, strideW: sw, activation: .relu6))
            let context = "trial \(trial), seed \(seed)"
            #expect(depthwise.outputShapes == conv.outputShapes, "\(context)")
            #expect(depthwise.multiplyAccumulates == conv.multiplyAccumulates, "\(context)")
            #expect(runReference(depthwise, [input]) == runReference(conv, [input]), "\(context)")
        }
    }

    @Test func randomSweepMatchesPaddedDilatedOracle() throws {
        // The oracle expands the depthwise filter into a full convolution filter
        // [Cout, KH, KW, Cin] that is zero except where ic = oc / M.
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .relu6, .reluN1To1]
        for trial in 0..<150 {
            let n = Int.random(in: 1...2, using: &g)
            let h = Int.random(in: 1...7, using: &g), w = Int.random(in: 1...7, using: &g)
            let cin = Int.random(in: 1...5, using: &g), m = Int.random(in: 1...3, using: &g)
            let cout = cin * m
            let kh = Int.random(in: 1...3, using: &g), kw = Int.random(in: 1...3, using: &g)
            let options = DepthwiseConv2D.Options(
                padding: Bool.random(using: &g) ? .same : .valid,
                strideH: Int.random(in: 1...3, using: &g), strideW: Int.random(in: 1...3, using: &g),
                dilationH: Int.random(in: 1...2, using: &g), dilationW: Int.random(in: 1...2, using: &g),
                depthMultiplier: m, activation: activations.randomElement(using: &g)!)
            let inputDims = [n, h, w, cin], filterDims = [1, kh, kw, cout]
            let input = S.randomFloats(inputDims.reduce(1, *), using: &g)
            let filter = S.randomFloats(filterDims.reduce(1, *), using: &g)
            let bias = S.randomFloats(cout, using: &g)
            var fullFilter = [Float](repeating: 0, count: cout * kh * kw * cin)
            for oc in 0..<cout {
                for tap in 0..<(kh * kw) {
                    fullFilter[(oc * kh * kw + tap) * cin + oc / m] = filter[tap * cout + oc]
                }
            }
            let context = "trial \(trial), seed \(seed), input \(inputDims), filter \(filterDims), \(options)"
            let oracle = S.convolutionOracle(
                input: input, inputDims: inputDims, filter: fullFilter, filterDims: [cout, kh, kw, cin], bias: bias,
                padding: options.padding, strideH: options.strideH, strideW: options.strideW,
                dilationH: options.dilationH, dilationW: options.dilationW,
                clamp: S.clampRange(options.activation))
            let operands = [S.activation(inputDims), S.constant(filterDims, filter), S.constant([cout], bias)]
            guard let oracle else {
                #expect(throws: KernelError.self, "\(context)") {
                    try DepthwiseConv2D.prepare(inputs: operands, options: options)
                }
                continue
            }
            let kernel = try DepthwiseConv2D.prepare(inputs: operands, options: options)
            let output = runReference(kernel, [input])
            let mismatch = S.firstMismatch(output, oracle, tolerance: S.summationTolerance(terms: kh * kw))
            #expect(mismatch == nil, "\(context): \(mismatch ?? "")")
            #expect(kernel.multiplyAccumulates == oracle.count * kh * kw, "\(context)")
        }
    }

    // MARK: Prepare errors

    @Test func rejectsBadOperands() {
        let op = "DEPTHWISE_CONV_2D"
        let input = S.activation([1, 4, 4, 2])
        let filter = S.constant([1, 2, 2, 4], [Float](repeating: 1, count: 16))
        let options = DepthwiseConv2D.Options(padding: .same, depthMultiplier: 2)
        S.expectKernelError(op: op, mentioning: ["2 or 3 inputs", "got 1"]) {
            try DepthwiseConv2D.prepare(inputs: [input], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["input must be 4-D"]) {
            try DepthwiseConv2D.prepare(inputs: [S.activation([16, 2]), filter], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["filter must be 4-D [1, KH, KW, Cout]", "[2, 2, 2, 2]"]) {
            try DepthwiseConv2D.prepare(
                inputs: [input, S.constant([2, 2, 2, 2], [Float](repeating: 1, count: 16))], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["filter must be 4-D"]) {
            try DepthwiseConv2D.prepare(
                inputs: [input, S.constant([2, 2, 4], [Float](repeating: 1, count: 16))], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["filter channels 3", "input channels 2"]) {
            try DepthwiseConv2D.prepare(
                inputs: [input, S.constant([1, 1, 1, 3], [1, 1, 1])], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["filter channels 1", "input channels 2"]) {
            try DepthwiseConv2D.prepare(inputs: [input, S.constant([1, 1, 1, 1], [1])], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["filter must be a constant"]) {
            try DepthwiseConv2D.prepare(inputs: [input, S.activation([1, 2, 2, 4])], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["bias has 2 elements", "expected 4"]) {
            try DepthwiseConv2D.prepare(inputs: [input, filter, S.constant([2], [0, 0])], options: options)
        }
        S.expectKernelError(op: op, mentioning: ["filter shape [1, 0, 2, 4]"]) {
            try DepthwiseConv2D.prepare(inputs: [input, S.constant([1, 0, 2, 4], [])], options: options)
        }
    }

    @Test func rejectsBadOptionsAndEmptyOutput() {
        let op = "DEPTHWISE_CONV_2D"
        let operands = [S.activation([1, 4, 4, 2]), S.constant([1, 3, 3, 2], [Float](repeating: 1, count: 18))]
        S.expectKernelError(op: op, mentioning: ["strideH must be in 1...2147483647, got 0"]) {
            try DepthwiseConv2D.prepare(inputs: operands, options: .init(padding: .same, strideH: 0))
        }
        S.expectKernelError(op: op, mentioning: ["strideW must be in 1...2147483647, got 0"]) {
            try DepthwiseConv2D.prepare(inputs: operands, options: .init(padding: .same, strideW: 0))
        }
        S.expectKernelError(op: op, mentioning: ["dilationW must be in 1...2147483647, got 0"]) {
            try DepthwiseConv2D.prepare(inputs: operands, options: .init(padding: .same, dilationW: 0))
        }
        S.expectKernelError(op: op, mentioning: ["dilationH must be in 1...2147483647, got -1"]) {
            try DepthwiseConv2D.prepare(inputs: operands, options: .init(padding: .same, dilationH: -1))
        }
        S.expectKernelError(op: op, mentioning: ["VALID padding gives an empty output", "input height 4"]) {
            try DepthwiseConv2D.prepare(inputs: operands, options: .init(padding: .valid, dilationH: 2))
        }
    }
}
