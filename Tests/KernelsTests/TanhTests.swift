import FlatBufferReader
import Foundation
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("TANH")
struct TanhTests {
    private func kernel(_ count: Int) throws -> Tanh {
        try Tanh.prepare(inputs: [Support.operand([count])], options: NoOptions())
    }

    /// `kernel.run` on `input` with `threads` threads.
    private func runFast(_ kernel: Tanh, _ input: [Float], threads: Int = 1) -> [Float] {
        let x = AlignedBuffer(input), y = AlignedBuffer(count: input.count)
        withExtendedLifetime(x) {
            kernel.run(
                KernelIO(inputs: [UnsafePointer(x.baseAddress)], outputs: [y.baseAddress]),
                runner: ParallelRunner(threadCount: threads))
        }
        return y.toArray()
    }

    /// Units in the last place between `a` and `b` (0 when both are NaN, `Int.max` when one is).
    private func ulps(_ a: Float, _ b: Float) -> Int {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN ? 0 : .max }
        func ordered(_ x: Float) -> Int {
            let bits = Int(Int32(bitPattern: x.bitPattern))
            return bits < 0 ? Int(Int32.min) - bits : bits
        }
        return abs(ordered(a) - ordered(b))
    }

    @Test func specialValues() throws {
        let input: [Float] = [0, -0.0, .infinity, -.infinity, .nan, 20, -20, 9.5, 1e-30, -1e-30, .leastNonzeroMagnitude]
        let tanhKernel = try kernel(input.count)
        for values in [runReference(tanhKernel, [input]), runFast(tanhKernel, input)] {
            #expect(values[0] == 0 && values[0].sign == .plus)
            #expect(values[1] == 0 && values[1].sign == .minus)
            #expect(values[2] == 1 && values[3] == -1)
            #expect(values[4].isNaN)
            #expect(values[5] == 1 && values[6] == -1 && values[7] == 1)
            #expect(values[8] == 1e-30 && values[9] == -1e-30)
            #expect(values[10] == .leastNonzeroMagnitude)
        }
    }

    /// The fast kernel against the reference (`tanhf`) on every 2^10-th float and on random
    /// values in -10...10: within `Tanh.maximumUlpsFromReference`.
    @Test func fastIsWithinTheStatedUlpsOfTheReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let everyTenth = stride(from: UInt32(0), to: UInt32.max, by: 1 << 10).map { Float(bitPattern: $0) }
        let random = (0..<(1 << 20)).map { _ in Float.random(in: -10...10, using: &rng) }
        let input = everyTenth + random
        let tanhKernel = try kernel(input.count)
        let reference = runReference(tanhKernel, [input])
        let fast = runFast(tanhKernel, input, threads: 2)
        var worst = (ulps: 0, at: Float(0))
        for i in input.indices {
            let distance = ulps(fast[i], reference[i])
            if distance > worst.ulps { worst = (distance, input[i]) }
        }
        print("TANH: fast kernel at most \(worst.ulps) ulps from tanhf (at \(worst.at)), seed \(seed)")
        #expect(worst.ulps <= Tanh.maximumUlpsFromReference, "at \(worst.at), seed \(seed)")
    }

    /// Every thread count gives the single-thread result, every element written, nothing past the end.
    @Test func fastIsTheSameForAnySplit() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<40 {
            let shape = randomElementwiseShape(using: &rng)
            let input = sweepValues(shape.reduce(1, *), specialEvery: 13, using: &rng).map { $0 * 3 }
            let tanhKernel = try Tanh.prepare(inputs: [Support.operand(shape)], options: NoOptions())
            expectFastOutput(
                tanhKernel, [input], equals: runFast(tanhKernel, input), "one thread", "shape \(shape), seed \(seed)")
        }
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("TANH", "expects 1 input, got 2") {
            try Tanh.prepare(inputs: [Support.operand([2]), Support.operand([2])], options: NoOptions())
        }
    }

    @Test func runsInAModel() throws {
        var rng = SeededGenerator.announced()
        let input = sweepValues(3 * 4 * 17, specialEvery: 11, using: &rng).map { $0 * 3 }
        let tanhKernel = try Tanh.prepare(inputs: [Support.operand([3, 4, 17])], options: NoOptions())
        let bytes = SingleOperatorModel.bytes(.tanh, inputs: [.init(shape: [3, 4, 17])], outputShape: [3, 4, 17])
        let reference = try SingleOperatorModel.run(bytes, inputs: [input], mode: .reference)
        #expect(reference.map(\.bitPattern) == runReference(tanhKernel, [input]).map(\.bitPattern))
        let fast = try SingleOperatorModel.run(bytes, inputs: [input], mode: .fast, threads: 2)
        #expect(fast.map(\.bitPattern) == runFast(tanhKernel, input).map(\.bitPattern))
    }

    @Test func badModelsGiveTypedErrors() {
        let twoInputs = SingleOperatorModel.bytes(.tanh, inputs: [.init(shape: [4]), .init(shape: [4])], outputShape: [4])
        SingleOperatorModel.expectInvalidOperator(twoInputs, "expects 1 input, got 2")
        // The schema gives TANH no options table.
        let withOptions = SingleOperatorModel.bytes(
            .tanh, inputs: [.init(shape: [4])], outputShape: [4], optionsType: BuiltinOptionsType.mul,
            options: [0: .int8(0)])
        SingleOperatorModel.expectInvalidOperator(withOptions, "expected none")
    }
}
