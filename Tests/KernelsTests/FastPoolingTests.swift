import Kernels
import Tensor
import TestSupport
import Testing

// Sweeps of the fast window and reduction kernels: MAX_POOL_2D against its
// reference kernel, bit for bit; the fast RESIZE_BILINEAR and MEAN kernels
// compute XNNPACK's arithmetic instead, checked against that arithmetic
// written out per element and against the reference within rounding.

@Suite struct FastPoolingTests {
    @Test func maxPoolMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .reluN1To1, .relu6]
        for trial in 0..<150 {
            let large = trial % 10 == 0
            let input = [
                Int.random(in: 1...2, using: &rng),
                Int.random(in: 1...(large ? 80 : 12), using: &rng), Int.random(in: 1...(large ? 80 : 12), using: &rng),
                sweepChannelCounts.randomElement(using: &rng)!,
            ]
            // Every fourth case is the models' 2×2 window with stride 2.
            let square = trial % 4 == 0
            let filterH = square ? 2 : Int.random(in: 1...4, using: &rng)
            let filterW = square ? 2 : Int.random(in: 1...4, using: &rng)
            let padding: Padding = filterH <= input[1] && filterW <= input[2] && Bool.random(using: &rng) ? .valid : .same
            let options = MaxPool2D.Options(
                padding: padding,
                strideH: square ? 2 : Int.random(in: 1...3, using: &rng),
                strideW: square ? 2 : Int.random(in: 1...3, using: &rng),
                filterH: filterH, filterW: filterW, activation: activations.randomElement(using: &rng)!)
            let kernel = try MaxPool2D.prepare(inputs: [ElementwiseTestSupport.operand(input)], options: options)
            expectFastMatchesReference(
                kernel, [sweepValues(input.reduce(1, *), specialEvery: 23, using: &rng)],
                "input \(input) \(options), seed \(seed)")
        }
    }

    @Test func resizeBilinearFollowsXNNPACKAndStaysNearTheReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let modes: [ResizeBilinear.Options] = [
            .init(), .init(alignCorners: true), .init(halfPixelCenters: true),
        ]
        for trial in 0..<150 {
            let large = trial % 10 == 0
            let input = [
                Int.random(in: 1...2, using: &rng), Int.random(in: 1...(large ? 48 : 9), using: &rng),
                Int.random(in: 1...(large ? 48 : 9), using: &rng), sweepChannelCounts.randomElement(using: &rng)!,
            ]
            let size: [Int32] = large
                ? [Int32(input[1] * 2), Int32(input[2] * 2)]
                : [Int32.random(in: 1...20, using: &rng), Int32.random(in: 1...20, using: &rng)]
            let options = modes.randomElement(using: &rng)!
            let kernel = try ResizeBilinear.prepare(
                inputs: [ElementwiseTestSupport.operand(input), ElementwiseTestSupport.int32Constant([2], size)],
                options: options)
            let values = sweepValues(input.reduce(1, *), using: &rng)
            let context = "input \(input) size \(size) \(options), seed \(seed)"
            let expected = Self.xnnpackResize(values, input: input, size: size.map(Int.init), options: options)
            let inputBuffer = AlignedBuffer(values)
            // XNNPACK's arithmetic takes the reference's place.
            TestSupport.expectFastMatchesReference(
                outputCount: expected.count, threadCounts: [1, 2, 3],
                reference: { $0.update(from: expected, count: expected.count) },
                fast: { threads, output in
                    kernel.run(
                        KernelIO(inputs: [UnsafePointer(inputBuffer.baseAddress)], outputs: [output]),
                        runner: ParallelRunner(threadCount: threads))
                },
                "against XNNPACK's arithmetic, \(context)")
            let reference = GuardedBuffer(count: expected.count)
            kernel.runReference(KernelIO(inputs: [UnsafePointer(inputBuffer.baseAddress)], outputs: [reference.pointer]))
            // Both blend four values in [-4, 4] with weights in [0, 1]: a few roundings of values below 4 apart.
            let tolerance = 16 * 4 * Float.ulpOfOne
            let worst = zip(reference.values, expected).map { abs($0 - $1) }.max() ?? 0
            #expect(worst <= tolerance, "reference \(worst) from the fast kernel: \(context)")
        }
    }

    /// XNNPACK's resize-bilinear (its indirection setup and f32 `ibilinear`
    /// microkernel), one element at a time: the sampling position in float
    /// (`y·scale + (0.5·scale − 0.5)` clamped, for half-pixel centres), the
    /// truncated index and fraction, then `top + (bottom − top)·ay` of the two
    /// horizontal blends, without fused multiply-add.
    static func xnnpackResize(_ x: [Float], input: [Int], size: [Int], options: ResizeBilinear.Options) -> [Float] {
        func sample(_ index: Int, inputSize: Int, outputSize: Int) -> (Int, Int, Float) {
            let corners = options.alignCorners && outputSize > 1
            let scale: Float = corners
                ? Float(inputSize - 1) / Float(outputSize - 1) : Float(inputSize) / Float(outputSize)
            var position: Float = Float(index) * scale
            if options.halfPixelCenters {
                let offset: Float = 0.5 * scale - 0.5
                position = min(max(position + offset, 0), Float(inputSize - 1))
            }
            let lower = Int(position)
            return (lower, min(lower + 1, inputSize - 1), position - Float(lower))
        }
        let (batches, height, width, channels) = (input[0], input[1], input[2], input[3])
        var y: [Float] = []
        for n in 0..<batches {
            for oy in 0..<size[0] {
                let (top, bottom, ay) = sample(oy, inputSize: height, outputSize: size[0])
                for ox in 0..<size[1] {
                    let (left, right, ax) = sample(ox, inputSize: width, outputSize: size[1])
                    func at(_ row: Int, _ column: Int, _ c: Int) -> Float {
                        x[((n * height + row) * width + column) * channels + c]
                    }
                    for c in 0..<channels {
                        let upper: Float = at(top, left, c) + (at(top, right, c) - at(top, left, c)) * ax
                        let lower: Float = at(bottom, left, c) + (at(bottom, right, c) - at(bottom, left, c)) * ax
                        y.append(upper + (lower - upper) * ay)
                    }
                }
            }
        }
        return y
    }

    @Test func meanFollowsXNNPACKAndStaysNearTheReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<200 {
            var input: [Int]
            var axes: [Int32]
            if trial % 3 == 0 {
                // The models' global average pool, sometimes large enough to split.
                let side = trial % 9 == 0 ? 32 : Int.random(in: 1...8, using: &rng)
                input = [1, side, side, trial % 9 == 0 ? 96 : sweepChannelCounts.randomElement(using: &rng)!]
                axes = Bool.random(using: &rng) ? [1, 2] : [-3, -2]
            } else {
                let rank = Int.random(in: 0...5, using: &rng)
                input = (0..<rank).map { _ in Int.random(in: 1...5, using: &rng) }
                axes = (0..<Int.random(in: 0...3, using: &rng)).compactMap { _ in
                    rank == 0 ? nil : Int32(Int.random(in: -rank..<rank, using: &rng))
                }
            }
            let kernel = try Mean.prepare(
                inputs: [
                    ElementwiseTestSupport.operand(input),
                    ElementwiseTestSupport.int32Constant([axes.count], axes),
                ],
                options: .init(keepDims: Bool.random(using: &rng)))
            let values = sweepValues(input.reduce(1, *), using: &rng)
            let context = "input \(input) axes \(axes), seed \(seed)"
            let (xnnpack, reference) = Self.means(values, input: input, axes: axes)
            // XNNPACK's order where the reduced axes form one block; the
            // reference's division elsewhere (the fast kernel runs it there).
            let reduced = Set(axes.map { Int($0) < 0 ? Int($0) + input.count : Int($0) })
            let significant = input.indices.filter { input[$0] > 1 }
            let positions = significant.indices.filter { reduced.contains(significant[$0]) }
            let oneBlock = positions.isEmpty || positions.last! - positions.first! + 1 == positions.count
            expectFastOutput(
                kernel, [values], equals: oneBlock ? xnnpack : reference, oneBlock ? "XNNPACK" : "reference", context)
            // Both scale the same sum: by 1/N rounded, or by a division.
            let worst = zip(xnnpack, reference).map { abs($0 - $1) / max($1.magnitude.ulp, Float.leastNonzeroMagnitude) }
                .max() ?? 0
            #expect(worst <= 2, "XNNPACK's mean \(worst) ulps from the reference: \(context)")
        }
    }

    /// The mean of `x` (shape `input`, row-major) over `axes`, with each
    /// output's inputs summed in increasing input order from +0 in Float:
    /// then multiplied by `1 / N` rounded to Float (XNNPACK's f32 mean, its
    /// `f32_rdsum` microkernels), and divided by N (TFLite's reference).
    static func means(_ x: [Float], input: [Int], axes: [Int32]) -> (xnnpack: [Float], reference: [Float]) {
        let reduced = Set(axes.map { Int($0) < 0 ? Int($0) + input.count : Int($0) })
        var strides = [Int](repeating: 0, count: input.count)
        var outputCount = 1
        for axis in input.indices.reversed() where !reduced.contains(axis) {
            strides[axis] = outputCount
            outputCount *= input[axis]
        }
        var sums = [Float](repeating: 0, count: outputCount)
        for (i, value) in x.enumerated() {
            var rest = i, output = 0
            for axis in input.indices.reversed() {
                output += (rest % input[axis]) * strides[axis]
                rest /= input[axis]
            }
            sums[output] += value
        }
        let n = Float(x.count / outputCount)
        return (sums.map { $0 * (1 / n) }, sums.map { $0 / n })
    }
}
