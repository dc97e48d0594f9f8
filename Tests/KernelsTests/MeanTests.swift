import Kernels
import Tensor
import TestSupport
import Testing

@Suite struct MeanTests {
    typealias S = ConvTestSupport

    static func mean(_ dims: [Int], axes: [Int32], axisShape: [Int]? = nil, keepDims: Bool) throws -> Mean {
        try Mean.prepare(
            inputs: [S.activation(dims), S.intConstant(axisShape ?? [axes.count], axes)],
            options: .init(keepDims: keepDims))
    }

    // MARK: Hand-computed cases

    /// `[1, 2, 2, 2]`: pixels [1, 10], [2, 20], [3, 30], [4, 40].
    static let image: [Float] = [1, 10, 2, 20, 3, 30, 4, 40]

    @Test func overHeightAndWidth() throws {
        let kept = try Self.mean([1, 2, 2, 2], axes: [1, 2], keepDims: true)
        #expect(kept.outputShapes == [S.shape([1, 1, 1, 2])])
        #expect(runReference(kept, [Self.image]) == [2.5, 25])

        let dropped = try Self.mean([1, 2, 2, 2], axes: [2, 1], keepDims: false)
        #expect(dropped.outputShapes == [S.shape([1, 2])])
        #expect(runReference(dropped, [Self.image]) == [2.5, 25])
    }

    @Test func negativeAxesCountFromTheEnd() throws {
        let kernel = try Self.mean([1, 2, 2, 2], axes: [-3, -2], keepDims: true)
        #expect(kernel.outputShapes == [S.shape([1, 1, 1, 2])])
        #expect(runReference(kernel, [Self.image]) == [2.5, 25])

        // [[1, 2, 3], [4, 5, 6]] over the last axis: row means.
        let rows = try Self.mean([2, 3], axes: [-1], keepDims: false)
        #expect(rows.outputShapes == [S.shape([2])])
        #expect(runReference(rows, [[1, 2, 3, 4, 5, 6]]) == [2, 5])
    }

    @Test func scalarAxisOperand() throws {
        // Axis 0 given as a 0-D tensor: column means.
        let kernel = try Self.mean([2, 3], axes: [0], axisShape: [], keepDims: true)
        #expect(kernel.outputShapes == [S.shape([1, 3])])
        #expect(runReference(kernel, [[1, 2, 3, 4, 5, 6]]) == [2.5, 3.5, 4.5])
    }

    @Test func repeatedAxesCountOnce() throws {
        let kernel = try Self.mean([2, 3], axes: [1, -1, 1], keepDims: false)
        #expect(kernel.outputShapes == [S.shape([2])])
        #expect(runReference(kernel, [[1, 2, 3, 4, 5, 6]]) == [2, 5])
    }

    @Test func everyAxisGivesAScalarOrOnes() throws {
        let scalar = try Self.mean([2, 3], axes: [0, 1], keepDims: false)
        #expect(scalar.outputShapes == [S.shape([])])
        #expect(runReference(scalar, [[1, 2, 3, 4, 5, 6]]) == [3.5])
        let ones = try Self.mean([2, 3], axes: [1, 0], keepDims: true)
        #expect(ones.outputShapes == [S.shape([1, 1])])
        #expect(runReference(ones, [[1, 2, 3, 4, 5, 6]]) == [3.5])
    }

    @Test func noAxesCopiesTheInput() throws {
        let kernel = try Self.mean([2, 3], axes: [], keepDims: false)
        #expect(kernel.outputShapes == [S.shape([2, 3])])
        #expect(runReference(kernel, [[1, -2, 3, 4.5, 5, 6]]) == [1, -2, 3, 4.5, 5, 6])
    }

    @Test func scalarInputIgnoresTheAxes() throws {
        // TFLite gives a scalar input's value back whatever the axes say.
        let kernel = try Self.mean([], axes: [3], keepDims: true)
        #expect(kernel.outputShapes == [S.shape([])])
        #expect(runReference(kernel, [[-7.5]]) == [-7.5])
    }

    @Test func sumsInFloatInInputOrder() throws {
        // In Float: 1e8 + 1 rounds back to 1e8 (spacing 8 there), − 1e8 gives 0,
        // + 1 gives 1, and 1 / 4 = 0.25. An exact (or Double) sum would give 0.5.
        let kernel = try Self.mean([4], axes: [0], keepDims: false)
        #expect(runReference(kernel, [[1e8, 1, -1e8, 1]]) == [0.25])
    }

    @Test func emptyReductionIsNaN() throws {
        // As TFLite fills the output of an empty input with NaN.
        let kernel = try Self.mean([2, 0], axes: [1], keepDims: false)
        #expect(kernel.outputShapes == [S.shape([2])])
        let output = runReference(kernel, [[]], prefill: 123)
        #expect(output.count == 2 && output.allSatisfy { $0.isNaN }, "\(output)")
    }

    // MARK: Properties

    @Test func randomSweepMatchesGatheringOracle() throws {
        // The oracle walks the output and, for each output element, gathers its
        // reduced sub-box in Double: the transpose of the kernel's scatter.
        let seed = SeededGenerator.seed()
        var g = SeededGenerator(seed: seed)
        for trial in 0..<120 {
            let rank = Int.random(in: 1...8, using: &g)
            let dims = (0..<rank).map { _ in Int.random(in: 1...(rank > 5 ? 2 : 4), using: &g) }
            let axes = (0..<Int.random(in: 0...rank, using: &g)).map { _ in
                Int32(Int.random(in: -rank..<rank, using: &g))
            }
            let keepDims = Bool.random(using: &g)
            let reduced = Set(axes.map { $0 < 0 ? Int($0) + rank : Int($0) })
            let input = S.randomFloats(dims.reduce(1, *), using: &g)
            let context = "trial \(trial), seed \(seed), input \(dims), axes \(axes), keepDims \(keepDims)"

            let unitDims = dims.indices.map { reduced.contains($0) ? 1 : dims[$0] }
            let expectedShape = keepDims ? unitDims : dims.indices.filter { !reduced.contains($0) }.map { dims[$0] }
            let boxDims = dims.indices.map { reduced.contains($0) ? dims[$0] : 1 }
            let boxCount = boxDims.reduce(1, *)
            var expected: [Double] = []
            for outputFlat in 0..<unitDims.reduce(1, *) {
                let outputCoords = Self.coordinates(outputFlat, unitDims)
                var sum = 0.0
                for boxFlat in 0..<boxCount {
                    let boxCoords = Self.coordinates(boxFlat, boxDims)
                    let coords = dims.indices.map { reduced.contains($0) ? boxCoords[$0] : outputCoords[$0] }
                    sum += Double(input[Self.flatIndex(coords, dims)])
                }
                expected.append(sum / Double(boxCount))
            }

            let kernel = try Self.mean(dims, axes: axes, keepDims: keepDims)
            #expect(kernel.outputShapes == [S.shape(expectedShape)], "\(context)")
            // Recursive Float summation of n terms in [−1, 1] errs by at most
            // n·ε·n before the division by n.
            let tolerance = Double(boxCount + 1) * Double(Float.ulpOfOne)
            let mismatch = S.firstMismatch(runReference(kernel, [input]), expected, tolerance: tolerance)
            #expect(mismatch == nil, "\(context): \(mismatch ?? "")")
        }
    }

    static func coordinates(_ flat: Int, _ dims: [Int]) -> [Int] {
        var rest = flat
        var coords = [Int](repeating: 0, count: dims.count)
        for axis in dims.indices.reversed() {
            coords[axis] = rest % dims[axis]
            rest /= dims[axis]
        }
        return coords
    }

    static func flatIndex(_ coords: [Int], _ dims: [Int]) -> Int {
        zip(coords, dims).reduce(0) { $0 * $1.1 + $1.0 }
    }

    // MARK: Prepare errors

    @Test func rejectsBadOperands() {
        let input = S.activation([2, 3])
        let options = Mean.Options(keepDims: false)
        S.expectKernelError(op: "MEAN", mentioning: ["expects 2 inputs", "got 1"]) {
            try Mean.prepare(inputs: [input], options: options)
        }
        S.expectKernelError(op: "MEAN", mentioning: ["axis must be a constant"]) {
            try Mean.prepare(inputs: [input, S.activation([1])], options: options)
        }
        S.expectKernelError(op: "MEAN", mentioning: ["axis must be an int32 constant"]) {
            try Mean.prepare(inputs: [input, S.constant([1], [1])], options: options)
        }
        S.expectKernelError(op: "MEAN", mentioning: ["axis must be 0-D or 1-D", "[1, 1]"]) {
            try Mean.prepare(inputs: [input, S.intConstant([1, 1], [1])], options: options)
        }
        S.expectKernelError(op: "MEAN", mentioning: ["axis constant holds 1 values", "needs 2"]) {
            try Mean.prepare(inputs: [input, S.intConstant([2], [1])], options: options)
        }
        for (axis, keepDims) in [(Int32(2), false), (-3, false), (2, true), (Int32.min, true)] {
            S.expectKernelError(op: "MEAN", mentioning: ["axis \(axis) is out of range", "rank 2", "-2..<2"]) {
                try Mean.prepare(inputs: [input, S.intConstant([1], [axis])], options: .init(keepDims: keepDims))
            }
        }
        S.expectKernelError(op: "MEAN", mentioning: ["output shape [0]", "is empty"]) {
            try Mean.prepare(inputs: [S.activation([0, 3]), S.intConstant([1], [1])], options: options)
        }
    }
}
