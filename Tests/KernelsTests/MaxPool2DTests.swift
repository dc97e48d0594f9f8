import Kernels
import Tensor
import TestSupport
import Testing

@Suite struct MaxPool2DTests {
    typealias S = ConvTestSupport

    static func pool(_ dims: [Int], _ options: MaxPool2D.Options) throws -> MaxPool2D {
        try MaxPool2D.prepare(inputs: [S.activation(dims)], options: options)
    }

    // MARK: Hand-computed cases

    @Test func paddingTapsAreIgnoredNotZero() throws {
        // −1 … −9 decrease along rows and columns, so with SAME 2×2 windows
        // (padding only after) each window's maximum is its own top-left pixel;
        // a zero padding tap would turn the last row and column into 0.
        let kernel = try Self.pool([1, 3, 3, 1], .init(padding: .same, strideH: 1, strideW: 1, filterH: 2, filterW: 2))
        let input = (1...9).map { -Float($0) }
        #expect(kernel.outputShapes == [S.shape([1, 3, 3, 1])])
        #expect(runReference(kernel, [input]) == input)
        #expect(kernel.multiplyAccumulates == 0)
    }

    @Test func validStrideTwoPerChannel() throws {
        // Channel 0 holds 1…16, channel 1 its negation; 2×2 windows, stride 2.
        let kernel = try Self.pool([1, 4, 4, 2], .init(padding: .valid, strideH: 2, strideW: 2, filterH: 2, filterW: 2))
        let input = (1...16).flatMap { [Float($0), -Float($0)] }
        #expect(kernel.outputShapes == [S.shape([1, 2, 2, 2])])
        #expect(runReference(kernel, [input]) == [6, -1, 8, -3, 14, -9, 16, -11])
    }

    @Test func sameStrideTwoPutsTheOddPaddingRowBelow() throws {
        // 3×3 windows over 4×4, stride 2: rows/cols {0,1,2} and {2,3}.
        let kernel = try Self.pool([1, 4, 4, 2], .init(padding: .same, strideH: 2, strideW: 2, filterH: 3, filterW: 3))
        let input = (1...16).flatMap { [Float($0), -Float($0)] }
        #expect(kernel.outputShapes == [S.shape([1, 2, 2, 2])])
        #expect(runReference(kernel, [input]) == [11, -1, 12, -3, 15, -9, 16, -11])
    }

    @Test func windowLargerThanInputTakesTheGlobalMaximum() throws {
        let kernel = try Self.pool([2, 2, 3, 1], .init(padding: .same, strideH: 1, strideW: 1, filterH: 9, filterW: 9))
        #expect(kernel.outputShapes == [S.shape([2, 2, 3, 1])])
        let output = runReference(kernel, [[3, -1, 7, 2, 0, 5, -4, -8, -2, -6, -3, -5]])
        #expect(output == [Float](repeating: 7, count: 6) + [Float](repeating: -2, count: 6))
    }

    @Test func activationClampsTheMaximum() throws {
        let input = (1...16).flatMap { [Float($0), -Float($0)] }
        let expected: [(FusedActivation, [Float])] = [
            (.relu, [6, 0, 8, 0, 14, 0, 16, 0]),
            (.relu6, [6, 0, 6, 0, 6, 0, 6, 0]),
            (.reluN1To1, [1, -1, 1, -1, 1, -1, 1, -1]),
        ]
        for (activation, values) in expected {
            let kernel = try Self.pool(
                [1, 4, 4, 2],
                .init(padding: .valid, strideH: 2, strideW: 2, filterH: 2, filterW: 2, activation: activation))
            #expect(runReference(kernel, [input]) == values, "activation \(activation)")
        }
    }

    // MARK: Properties

    @Test func randomSweepMatchesMinusInfinityPaddedPooling() throws {
        // The oracle pads with −∞ (which never wins a maximum) and pools densely.
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        for trial in 0..<150 {
            let dims = [
                Int.random(in: 1...2, using: &g), Int.random(in: 1...7, using: &g),
                Int.random(in: 1...7, using: &g), Int.random(in: 1...4, using: &g),
            ]
            let options = MaxPool2D.Options(
                padding: Bool.random(using: &g) ? .same : .valid,
                strideH: Int.random(in: 1...3, using: &g), strideW: Int.random(in: 1...3, using: &g),
                filterH: Int.random(in: 1...4, using: &g), filterW: Int.random(in: 1...4, using: &g),
                activation: [.none, .relu, .relu6, .reluN1To1].randomElement(using: &g)!)
            let input = S.randomFloats(dims.reduce(1, *), using: &g)
            let context = "trial \(trial), seed \(seed), input \(dims), \(options)"
            guard
                let rows = S.expectedWindow(
                    padding: options.padding, input: dims[1], filter: options.filterH, stride: options.strideH,
                    dilation: 1),
                let cols = S.expectedWindow(
                    padding: options.padding, input: dims[2], filter: options.filterW, stride: options.strideW,
                    dilation: 1)
            else {
                #expect(throws: KernelError.self, "\(context)") { try Self.pool(dims, options) }
                continue
            }
            let p = S.padded(
                input, dims, top: rows.padBefore, bottom: rows.padAfter, left: cols.padBefore, right: cols.padAfter,
                fill: -.infinity)
            let clamp = S.clampRange(options.activation)
            var expected: [Double] = []
            for b in 0..<dims[0] {
                for y in 0..<rows.size {
                    for x in 0..<cols.size {
                        for c in 0..<dims[3] {
                            var largest = -Double.infinity
                            for ky in 0..<options.filterH {
                                for kx in 0..<options.filterW {
                                    let iy = y * options.strideH + ky, ix = x * options.strideW + kx
                                    let index = ((b * p.dims[1] + iy) * p.dims[2] + ix) * dims[3] + c
                                    largest = max(largest, p.values[index])
                                }
                            }
                            expected.append(min(max(largest, clamp.lowerBound), clamp.upperBound))
                        }
                    }
                }
            }
            let kernel = try Self.pool(dims, options)
            #expect(kernel.outputShapes == [S.shape([dims[0], rows.size, cols.size, dims[3]])], "\(context)")
            let output = runReference(kernel, [input])
            let mismatch = S.firstMismatch(output, expected, tolerance: 0)
            #expect(mismatch == nil, "\(context): \(mismatch ?? "")")
        }
    }

    // MARK: Prepare errors

    @Test func rejectsBadOperandsAndOptions() {
        let op = "MAX_POOL_2D"
        let input = S.activation([1, 4, 4, 2])
        let good = MaxPool2D.Options(padding: .same, strideH: 1, strideW: 1, filterH: 2, filterW: 2)
        S.expectKernelError(op: op, mentioning: ["expects 1 input, got 2"]) {
            try MaxPool2D.prepare(inputs: [input, input], options: good)
        }
        S.expectKernelError(op: op, mentioning: ["input must be 4-D", "[4, 4]"]) {
            try MaxPool2D.prepare(inputs: [S.activation([4, 4])], options: good)
        }
        func options(_ padding: Padding, stride: (Int, Int), filter: (Int, Int)) -> MaxPool2D.Options {
            .init(padding: padding, strideH: stride.0, strideW: stride.1, filterH: filter.0, filterW: filter.1)
        }
        let badOptions: [(MaxPool2D.Options, String)] = [
            (options(.same, stride: (0, 1), filter: (2, 2)), "strideH must be in 1...2147483647, got 0"),
            (options(.same, stride: (1, 0), filter: (2, 2)), "strideW must be in 1...2147483647, got 0"),
            (options(.same, stride: (1, 1), filter: (0, 2)), "filterH must be in 1...2147483647, got 0"),
            (options(.same, stride: (1, 1), filter: (2, -3)), "filterW must be in 1...2147483647, got -3"),
            (options(.valid, stride: (1, 1), filter: (5, 2)), "VALID padding gives an empty output: input height 4"),
            (options(.valid, stride: (1, 1), filter: (5, 2)), "filterH 5"),
            (options(.valid, stride: (1, 1), filter: (2, 5)), "input width 4, filterW 5"),
        ]
        for (options, message) in badOptions {
            S.expectKernelError(op: op, mentioning: [message]) {
                try MaxPool2D.prepare(inputs: [input], options: options)
            }
        }
        S.expectKernelError(op: op, mentioning: ["input shape [1, 4, 4, 0] is empty"]) {
            try MaxPool2D.prepare(inputs: [S.activation([1, 4, 4, 0])], options: good)
        }
    }
}
