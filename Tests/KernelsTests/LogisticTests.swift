import Foundation
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("LOGISTIC")
struct LogisticTests {
    private func logistic(_ input: [Float]) throws -> [Float] {
        let kernel = try Logistic.prepare(inputs: [Support.operand([input.count])])
        #expect(kernel.outputShapes[0].dimensions == [input.count])
        return runReference(kernel, [input])
    }

    @Test func zeroAndSaturation() throws {
        let values = try logistic([0, -0.0, 100, -100, 1000, -1000, .infinity, -.infinity])
        #expect(values == [0.5, 0.5, 1, 0, 1, 0, 1, 0])
    }

    @Test func matchesTheDoublePrecisionFormula() throws {
        let input: [Float] = stride(from: -12, through: 12, by: 0.125).map { $0 }
        let values = try logistic(input)
        for (x, y) in zip(input, values) {
            let expected = 1 / (1 + Foundation.exp(-Double(x)))
            #expect(abs(Double(y) - expected) <= 1e-6 * max(expected, 1e-3), "at \(x)")
        }
        // Monotonic and symmetric about (0, 0.5).
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        for (a, b) in zip(values, values.reversed()) {
            #expect(abs(a + b - 1) <= 1e-6)
        }
    }

    /// XNNPACK's f32 sigmoid for AVX2 + FMA
    /// (`xnn_f32_vsigmoid_ukernel__avx2_rr1_p5_div`) on one value, written out
    /// with its flush-to-zero of subnormal results: `z = -|x|`, `n` rounded by
    /// a magic bias, `s = 2^n` from `n`'s bits, `t = z - n·ln2`, a degree-5
    /// polynomial, `e = (t·s)·p + s`, `f = e / (e + 1)` (0 below the cut-off),
    /// then `f` or `1 - f` by the sign bit of `x`.
    static func xnnpackSigmoid(_ x: Float) -> Float {
        func flushed(_ v: Float) -> Float { v.isSubnormal ? 0 : v }
        let z = -x.magnitude
        let magicBias: Float = 0x1.8000FEp23
        var n = magicBias.addingProduct(z, 0x1.715476p0)
        let s = Float(bitPattern: n.bitPattern << 23)
        n -= magicBias
        var t = z.addingProduct(n, -0x1.62E430p-1)
        var p = Float(0x1.573A1Ap-5).addingProduct(0x1.0F9F9Cp-7, t)
        p = Float(0x1.555A80p-3).addingProduct(p, t)
        p = Float(0x1.FFFDC6p-2).addingProduct(p, t)
        p = Float(0x1.FFFFF6p-1).addingProduct(p, t)
        t = flushed(t * s)
        let e = flushed(s.addingProduct(t, p))
        let f = z < -0x1.5D589Ep+6 ? 0 : e / (e + 1)
        return x.sign == .minus ? f : 1 - f
    }

    /// Random inputs for the fast kernel: most in -100...40, some where
    /// XNNPACK meets subnormal intermediates and flushes them (-88...-80),
    /// some special.
    static func fastInputs(_ count: Int, using rng: inout SeededGenerator) -> [Float] {
        let specials: [Float] = [
            0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, -0x1.5D589Ep+6,
        ]
        return (0..<count).map { _ in
            switch Int.random(in: 0..<16, using: &rng) {
            case 0: specials.randomElement(using: &rng)!
            case 1...3: Float.random(in: -88 ... -80, using: &rng)
            default: Float.random(in: -100...40, using: &rng)
            }
        }
    }

    @Test(.enabled(if: KernelInstructionSet.fusesMultiplyAdd, "needs the native build's fused multiply-adds"))
    func fastKernelComputesXNNPACKSigmoid() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for count in Array(1...33) + [1000, 100_003] {
            let input = Self.fastInputs(count, using: &rng)
            let kernel = try Logistic.prepare(inputs: [Support.operand([count])])
            expectFastOutput(kernel, [input], equals: input.map(Self.xnnpackSigmoid), "XNNPACK", "\(count) values, seed \(seed)")
        }
    }

    @Test func fastKernelStaysNearTheReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let input = Self.fastInputs(10_000, using: &rng) + [.nan, -.nan]
        let kernel = try Logistic.prepare(inputs: [Support.operand([input.count])])
        let inputBuffer = AlignedBuffer(input)
        let fast = GuardedBuffer(count: input.count)
        withExtendedLifetime(inputBuffer) {
            kernel.run(
                KernelIO(inputs: [UnsafePointer(inputBuffer.baseAddress)], outputs: [fast.pointer]),
                runner: ParallelRunner(threadCount: 2))
        }
        let reference = runReference(kernel, [input])
        for (i, (f, r)) in zip(fast.values, reference).enumerated() {
            // XNNPACK's sigmoid came within 2^-24 of the reference on
            // 300,000 inputs, and so did it with separate multiplies and
            // adds (the portable build) on 2,300,000.
            #expect(
                f.isNaN ? r.isNaN : abs(f - r) <= 0x1p-23,
                "at \(input[i]): fast \(f), reference \(r), seed \(seed)")
        }
    }

    @Test func prepareRejectsBadOperandCounts() {
        Support.expectError("LOGISTIC", "expects 1 input, got 2") {
            try Logistic.prepare(inputs: [Support.operand([2]), Support.operand([2])])
        }
        Support.expectError("LOGISTIC", "expects 1 input, got 0") {
            try Logistic.prepare(inputs: [])
        }
    }
}
