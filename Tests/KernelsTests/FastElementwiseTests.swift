import Foundation
import Kernels
import Tensor
import TestSupport
import Testing

// Sweeps of the fast element-wise kernels (PRELU, ADD) against their
// reference kernels, plus the two kernel runners every kernel test uses:
// `runReference` and `expectFastMatchesReference`. Seeds come from
// `SeededGenerator.seed()` (replay with LANDMARKER_SEED).

/// Runs `kernel`'s reference kernel with `inputs` (one array per operand,
/// in operand order, each copied into an `AlignedBuffer`) and returns
/// output 0. The output is pre-filled with `prefill` (NaN unless a test
/// expects NaN) so unwritten values show.
func runReference(_ kernel: some PreparedKernel, _ inputs: [[Float]], prefill: Float = .nan) -> [Float] {
    let buffers = inputs.map { AlignedBuffer($0) }
    let output = AlignedBuffer(count: kernel.outputShapes[0].elementCount)
    output.buffer.update(repeating: prefill)
    let io = KernelIO(inputs: buffers.map { UnsafePointer($0.baseAddress) }, outputs: [output.baseAddress])
    withExtendedLifetime(buffers) { kernel.runReference(io) }
    return output.toArray()
}

/// TestSupport's fast-against-reference tester for a prepared kernel:
/// `kernel.runReference` once and `kernel.run` with 1, 2, 3 and 7 threads on
/// copies of `inputs` (one array per input, in order), every fast output
/// bit-identical to the reference, every element written and nothing
/// written past the end. `context` (which includes the seed) is printed with
/// any failure.
func expectFastMatchesReference(
    _ kernel: some PreparedKernel, _ inputs: [[Float]], _ context: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let inputBuffers = inputs.map { AlignedBuffer($0) }
    let inputPointers = inputBuffers.map { UnsafePointer($0.baseAddress) }
    withExtendedLifetime(inputBuffers) {
        TestSupport.expectFastMatchesReference(
            outputCount: kernel.outputShapes[0].elementCount,
            reference: { kernel.runReference(KernelIO(inputs: inputPointers, outputs: [$0])) },
            fast: { threads, output in
                kernel.run(KernelIO(inputs: inputPointers, outputs: [output]), runner: ParallelRunner(threadCount: threads))
            },
            context(), sourceLocation: sourceLocation)
    }
}

/// TestSupport's `expectFastOutput` for a prepared kernel: `kernel.run` with 1, 2, 3 and 7
/// threads on copies of `inputs` (one array per input, in order), its first output bit-identical
/// to `expected` (which `name` names in messages), every element written and nothing written
/// past the end. `context` (which includes the seed) is printed with any failure.
func expectFastOutput(
    _ kernel: some PreparedKernel, _ inputs: [[Float]], equals expected: [Float], _ name: String,
    _ context: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let inputBuffers = inputs.map { AlignedBuffer($0) }
    let inputPointers = inputBuffers.map { UnsafePointer($0.baseAddress) }
    withExtendedLifetime(inputBuffers) {
        TestSupport.expectFastOutput(
            outputCount: kernel.outputShapes[0].elementCount, equals: expected, name: name,
            fast: { threads, output in
                kernel.run(KernelIO(inputs: inputPointers, outputs: [output]), runner: ParallelRunner(threadCount: threads))
            },
            context(), sourceLocation: sourceLocation)
    }
}

/// Random values in -4...4 with about one in `specialEvery` replaced by
/// ±0, ±infinity or NaN (never when `specialEvery` is 0).
func sweepValues(_ count: Int, specialEvery: Int = 0, using rng: inout SeededGenerator) -> [Float] {
    let specials: [Float] = [0, -0.0, .infinity, -.infinity, .nan]
    return (0..<count).map { _ in
        if specialEvery > 0, Int.random(in: 0..<specialEvery, using: &rng) == 0 {
            return specials.randomElement(using: &rng)!
        }
        return Float.random(in: -4...4, using: &rng)
    }
}

/// Channel counts below, at and above one and two vectors.
let sweepChannelCounts = [1, 3, 7, 8, 9, 15, 16, 17, 24, 33]

/// A random pair of shapes that broadcast to `output`: each operand keeps
/// each dimension or sets it to 1, and may drop leading dimensions.
func randomBroadcastPair(_ output: [Int], using rng: inout SeededGenerator) -> ([Int], [Int]) {
    func operand() -> [Int] {
        var dims = output.map { Bool.random(using: &rng) ? $0 : 1 }
        dims.removeFirst(Int.random(in: 0...dims.count, using: &rng))
        return dims
    }
    switch Int.random(in: 0..<4, using: &rng) {
    case 0: return (output, output)
    case 1: return (output, [output.last ?? 1])  // channel broadcast
    default: return (Bool.random(using: &rng) ? output : operand(), operand())
    }
}

/// A random NHWC-like output shape of rank 1...5, sometimes large enough to
/// be split over threads.
func randomElementwiseShape(using rng: inout SeededGenerator) -> [Int] {
    let channels = sweepChannelCounts.randomElement(using: &rng)!
    if Int.random(in: 0..<6, using: &rng) == 0 {
        return [1, Int.random(in: 40...70, using: &rng), Int.random(in: 40...70, using: &rng), channels]
    }
    let rank = Int.random(in: 1...5, using: &rng)
    return (0..<(rank - 1)).map { _ in Int.random(in: 1...5, using: &rng) } + [channels]
}

@Suite struct FastElementwiseTests {
    @Test func preluMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<150 {
            let output = randomElementwiseShape(using: &rng)
            var (input, alpha) = randomBroadcastPair(output, using: &rng)
            if trial % 3 == 0 { (input, alpha) = (output, [1, 1, output.last!]) }  // the models' case
            guard max(input.count, alpha.count) <= Prelu.maxBroadcastRank else { continue }
            let kernel = try Prelu.prepare(inputs: [
                ElementwiseTestSupport.operand(input), ElementwiseTestSupport.operand(alpha),
            ])
            let inputValues = sweepValues(input.reduce(1, *), specialEvery: 17, using: &rng)
            let alphaValues = sweepValues(alpha.reduce(1, *), using: &rng)
            expectFastMatchesReference(
                kernel, [inputValues, alphaValues], "input \(input) alpha \(alpha), seed \(seed)")
        }
    }

    @Test func addMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .reluN1To1, .relu6]
        for _ in 0..<150 {
            let output = randomElementwiseShape(using: &rng)
            var (lhs, rhs) = randomBroadcastPair(output, using: &rng)
            if Bool.random(using: &rng) { swap(&lhs, &rhs) }
            let activation = activations.randomElement(using: &rng)!
            var kernel = try Add.prepare(
                inputs: [ElementwiseTestSupport.operand(lhs), ElementwiseTestSupport.operand(rhs)],
                options: .init(activation: activation))
            // Half of the cases with a fused RELU ("ADD+RELU").
            if Bool.random(using: &rng) {
                let relu = try Relu.prepare(inputs: [Operand(shape: kernel.outputShapes[0])], options: NoOptions())
                kernel = try #require(kernel.fusing(relu: relu))
            }
            let lhsValues = sweepValues(lhs.reduce(1, *), specialEvery: 17, using: &rng)
            var rhsValues = sweepValues(rhs.reduce(1, *), specialEvery: 17, using: &rng)
            // Sums that overflow to infinity, which the kernel clamps to finite.
            if let first = rhsValues.indices.first { rhsValues[first] = Float.greatestFiniteMagnitude }
            expectFastMatchesReference(
                kernel, [lhsValues, rhsValues], "\(kernel.opName) lhs \(lhs) rhs \(rhs) \(activation), seed \(seed)")
        }
    }

    @Test func emptyOperandsWriteNothing() throws {
        let prelu = try Prelu.prepare(inputs: [
            ElementwiseTestSupport.operand([2, 0, 8]), ElementwiseTestSupport.operand([8]),
        ])
        var rng = SeededGenerator(seed: 1)
        expectFastMatchesReference(prelu, [[], sweepValues(8, using: &rng)], "empty PRELU")
        let add = try Add.prepare(
            inputs: [ElementwiseTestSupport.operand([0, 3]), ElementwiseTestSupport.operand([0, 3])],
            options: .init())
        expectFastMatchesReference(add, [[], []], "empty ADD")
    }
}
