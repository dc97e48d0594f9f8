import Foundation
import Kernels
import Tensor
import Testing

// Sweeps of the fast element-wise kernels (PRELU, ADD) against their
// reference kernels, plus the comparison helper the other Fast*Tests use.
// Seeds come from `sweepSeed()` (replay with LANDMARKER_TEST_SEED).

/// What the comparison helpers fill outputs with before a kernel runs: a NaN
/// with a payload no kernel computes, so an unwritten element shows.
private let unwrittenElement = Float(bitPattern: 0x7FC0_1234)

/// Runs `kernel.runReference` once and `kernel.run` with 1, 2, 3 and 7
/// threads on copies of `inputs` (one array per input, in order), and
/// expects every fast output to be bit-identical to the reference, every
/// element written and nothing written past the end. `context` (which
/// includes the seed) is printed with any failure.
func expectFastMatchesReference(
    _ kernel: some PreparedKernel, _ inputs: [[Float]], _ context: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let inputBuffers = inputs.map { AlignedBuffer($0) }
    let output = GuardedBuffer(count: kernel.outputShapes[0].elementCount)
    for i in 0..<output.count { output.pointer[i] = unwrittenElement }
    withExtendedLifetime(inputBuffers) {
        kernel.runReference(
            KernelIO(inputs: inputBuffers.map { UnsafePointer($0.baseAddress) }, outputs: [output.pointer]))
    }
    expectFastOutput(kernel, inputs, equals: output.values, "reference", context(), sourceLocation: sourceLocation)
}

/// Runs `kernel.run` with 1, 2, 3 and 7 threads on copies of `inputs` (one
/// array per input, in order), and expects its first output to be
/// bit-identical to `expected` (which `name` names in messages), every
/// element written and nothing written past the end. `context` (which
/// includes the seed) is printed with any failure.
func expectFastOutput(
    _ kernel: some PreparedKernel, _ inputs: [[Float]], equals expected: [Float], _ name: String,
    _ context: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let inputBuffers = inputs.map { AlignedBuffer($0) }
    let count = kernel.outputShapes[0].elementCount
    let reference = expected.map(\.bitPattern)
    for threads in [1, 2, 3, 7] {
        let fast = GuardedBuffer(count: count)
        for i in 0..<count { fast.pointer[i] = unwrittenElement }
        let io = KernelIO(inputs: inputBuffers.map { UnsafePointer($0.baseAddress) }, outputs: [fast.pointer])
        withExtendedLifetime(inputBuffers) { kernel.run(io, runner: ParallelRunner(threadCount: threads)) }
        #expect(fast.guardIntact, "wrote past the end with \(threads) threads: \(context())", sourceLocation: sourceLocation)
        let values = fast.values.map(\.bitPattern)
        let differing = values.indices.filter { values[$0] != reference[$0] }
        let first = differing.first.map {
            "first at \($0): fast \(Float(bitPattern: values[$0])), \(name) \(Float(bitPattern: reference[$0]))"
        } ?? ""
        let mismatches = differing.count
        #expect(
            mismatches == 0,
            "\(mismatches) of \(count) elements differ with \(threads) threads, \(first): \(context())",
            sourceLocation: sourceLocation)
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
        let seed = sweepSeed()
        print("FastElementwiseTests.prelu: seed \(seed)")
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
        let seed = sweepSeed()
        print("FastElementwiseTests.add: seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let activations: [FusedActivation] = [.none, .relu, .reluN1To1, .relu6]
        for _ in 0..<150 {
            let output = randomElementwiseShape(using: &rng)
            var (lhs, rhs) = randomBroadcastPair(output, using: &rng)
            if Bool.random(using: &rng) { swap(&lhs, &rhs) }
            let activation = activations.randomElement(using: &rng)!
            let kernel = try Add.prepare(
                inputs: [ElementwiseTestSupport.operand(lhs), ElementwiseTestSupport.operand(rhs)],
                options: .init(activation: activation))
            let lhsValues = sweepValues(lhs.reduce(1, *), specialEvery: 17, using: &rng)
            var rhsValues = sweepValues(rhs.reduce(1, *), specialEvery: 17, using: &rng)
            // Sums that overflow to infinity, which the kernel clamps to finite.
            if let first = rhsValues.indices.first { rhsValues[first] = Float.greatestFiniteMagnitude }
            expectFastMatchesReference(
                kernel, [lhsValues, rhsValues], "lhs \(lhs) rhs \(rhs) \(activation), seed \(seed)")
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
