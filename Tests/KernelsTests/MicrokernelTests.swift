import Foundation
import KernelTemplates
import Tensor
import TestSupport
import Testing

@testable import Kernels

// Shared support for the microkernel sweeps (tolerance checks, bit-identity
// across thread counts and instruction sets), and tests of the small SIMD
// helpers. Seeded data and guarded output buffers come from TestSupport.

/// The clamps of TFLite's fused activations: NONE, RELU, RELU_N1_TO_1, RELU6.
let activationClamps: [(lower: Float, upper: Float)] = [
    FusedActivation.none, .relu, .reluN1To1, .relu6,
].map(\.clampRange)

/// An expected output element: the exact (double) value before and after
/// the clamp, and the sum of the magnitudes of its terms.
struct Expected {
    var value: Double
    var magnitude: Double
}

/// Checks every element of `actual` against `expected` within
/// `1e-5 · Σ|terms|` and that nothing was written past the end. Reports the
/// first mismatch with `context` (which includes the seed).
func expectClose(
    _ actual: GuardedBuffer, _ expected: [Expected], _ context: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual.count == expected.count, "\(context())", sourceLocation: sourceLocation)
    #expect(actual.guardIntact, "wrote past the end: \(context())", sourceLocation: sourceLocation)
    var mismatches = 0
    var first = ""
    for i in 0..<min(actual.count, expected.count) {
        let got = Double(actual.pointer[i])
        let tolerance = 1e-5 * expected[i].magnitude + 1e-30
        if !(abs(got - expected[i].value) <= tolerance) {
            if mismatches == 0 {
                first = "element \(i): got \(got), expected \(expected[i].value) ± \(tolerance)"
            }
            mismatches += 1
        }
    }
    #expect(
        mismatches == 0, "\(mismatches) mismatches, first \(first): \(context())",
        sourceLocation: sourceLocation)
}

/// Clamps an exact value the way the kernels clamp.
func clamped(_ x: Double, _ range: (lower: Float, upper: Float)) -> Double {
    min(max(x, Double(range.lower)), Double(range.upper))
}

/// Runs `body` with runners of 1, 2, 3 and 7 threads and expects the
/// outputs it returns to be bit-identical.
func expectSameForThreadCounts(
    _ context: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (ParallelRunner) throws -> [Float]
) rethrows {
    let serial = try body(.serial).map(\.bitPattern)
    for threads in [2, 3, 7] {
        let parallel = try body(ParallelRunner(threadCount: threads)).map(\.bitPattern)
        let differing = zip(parallel, serial).filter { $0 != $1 }.count
        #expect(
            parallel.count == serial.count && differing == 0,
            "\(differing) elements differ between \(threads) threads and 1: \(context())",
            sourceLocation: sourceLocation)
    }
}

/// Runs `body` with the baseline and the AVX-512 microkernels and expects
/// the outputs it returns to be bit-identical: both families compute every
/// element with the same operations in the same order. Call only where
/// `KernelInstructionSet.avx512.isSupported`.
func expectSameForInstructionSets(
    _ context: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (KernelInstructionSet) throws -> [Float]
) rethrows {
    let baseline = try body(.baseline).map(\.bitPattern)
    let wide = try body(.avx512).map(\.bitPattern)
    let differing = zip(wide, baseline).filter { $0 != $1 }.count
    #expect(
        wide.count == baseline.count && differing == 0,
        "\(differing) elements differ between the AVX-512 and the baseline kernels: \(context())",
        sourceLocation: sourceLocation)
}

@Suite struct VectorLanesTests {
    /// `ClampBounds.load` reads `upper` one `SIMD16<Float>` after `lower`: the layout it assumes.
    @Test func clampBoundsLoadTheirOwnLanes() {
        #expect(MemoryLayout<ClampBounds>.offset(of: \.lower) == 0)
        #expect(MemoryLayout<ClampBounds>.offset(of: \.upper) == MemoryLayout<SIMD16<Float>>.stride)
        var bounds = ClampBounds(lower: -1, upper: 6)
        withUnsafePointer(to: &bounds) { pointer in
            let eight = ClampBounds.load(pointer, as: SIMD8<Float>.self)
            let sixteen = ClampBounds.load(pointer, as: SIMD16<Float>.self)
            #expect(eight.lower == SIMD8(repeating: -1) && eight.upper == SIMD8(repeating: 6))
            #expect(sixteen.lower == SIMD16(repeating: -1) && sixteen.upper == SIMD16(repeating: 6))
        }
    }

    @Test func multiplyAddMatchesProductPlusAddend() {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let a = SIMD8(rng.floats(8)), b = SIMD8(rng.floats(8)), c = SIMD8(rng.floats(8))
            let vector = multiplyAdd(a, b, c)
            for lane in 0..<8 {
                let exact = Double(a[lane]) * Double(b[lane]) + Double(c[lane])
                // Fused: one rounding; separate: two roundings of values ≤ 2.
                #expect(abs(Double(vector[lane]) - exact) <= 2 * 2.0e-7, "seed \(seed)")
                #expect(multiplyAdd(a[lane], b[lane], c[lane]) == vector[lane], "seed \(seed)")
            }
        }
    }

    @Test func clampLimitsEachLaneAndKeepsInteriorValues() {
        let x = SIMD8<Float>(-7, -1, -0.5, 0, 0.5, 5.9, 6, 100)
        let lower = SIMD8<Float>(repeating: 0), upper = SIMD8<Float>(repeating: 6)
        #expect(clamp(x, lower: lower, upper: upper) == SIMD8(0, 0, 0, 0, 0.5, 5.9, 6, 6))
        for lane in 0..<8 {
            #expect(clamp(x[lane], lower: 0, upper: 6) == min(max(x[lane], 0), 6))
        }
        let open = clamp(x, lower: .init(repeating: -.infinity), upper: .init(repeating: .infinity))
        #expect(open == x)
    }

    @Test func clampKeepsNaNAsTFLiteDoes() {
        let nan = SIMD8<Float>(repeating: .nan)
        for (lower, upper) in activationClamps {
            let vector = clamp(nan, lower: SIMD8(repeating: lower), upper: SIMD8(repeating: upper))
            #expect((0..<8).allSatisfy { vector[$0].isNaN }, "clamp \(lower)...\(upper)")
            #expect(clamp(Float.nan, lower: lower, upper: upper).isNaN, "clamp \(lower)...\(upper)")
        }
    }

    @Test func partialStoreWritesExactlyCountLanes() {
        let value = SIMD8<Float>(1, 2, 3, 4, 5, 6, 7, 8)
        for count in 0...8 {
            var target = [Float](repeating: -1, count: 9)
            target.withUnsafeMutableBufferPointer { storeVector8(value, $0.baseAddress!, count: count) }
            let expected: [Float] = (0..<count).map { Float($0 + 1) }
            #expect(Array(target[0..<count]) == expected)
            #expect(target[count...].allSatisfy { $0 == -1 })
        }
    }
}

@Suite struct MicrokernelGeometryTests {
    /// Brute force: which taps of each output pixel land inside the input.
    @Test func validTapsMatchBruteForce() {
        for inputSize in [1, 2, 5, 8] {
            for kernel in [1, 2, 3, 5] {
                for dilation in [1, 2, 3] {
                    for start in -9...9 {
                        let valid = ConvolutionGeometry.validTaps(
                            start: start, dilation: dilation, inputSize: inputSize, kernelSize: kernel)
                        let brute = (0..<kernel).filter {
                            (0..<inputSize).contains(start + $0 * dilation)
                        }
                        #expect(
                            Array(valid) == brute,
                            "size \(inputSize) kernel \(kernel) dilation \(dilation) start \(start)")
                    }
                }
            }
        }
    }

    @Test func interiorColumnsAreExactlyThoseWithEveryTapInside() {
        for width in [1, 2, 3, 6, 7, 12] {
            for kernel in [1, 3, 5] {
                for stride in [1, 2, 3] {
                    for dilation in [1, 2] {
                        for padding in [Padding.same, .valid] {
                            guard let g = ConvolutionGeometry(
                                inputHeight: 1, inputWidth: width, kernelHeight: 1, kernelWidth: kernel,
                                strideHeight: 1, strideWidth: stride, dilationHeight: 1,
                                dilationWidth: dilation, padding: padding)
                            else { continue }
                            let brute = (0..<g.outputWidth).filter {
                                g.validKernelColumns(outputColumn: $0).count == kernel
                            }
                            #expect(
                                Array(g.interiorColumns) == brute,
                                "width \(width) kernel \(kernel) stride \(stride) dilation \(dilation) \(padding)")
                        }
                    }
                }
            }
        }
    }

    @Test func samePaddingPutsTheOddPixelAtTheEnd() throws {
        // 8 → 4 with a 3-wide filter at stride 2 needs 1 padded pixel: after.
        let g = try #require(ConvolutionGeometry(
            inputHeight: 8, inputWidth: 7, kernelHeight: 3, kernelWidth: 3, strideHeight: 2,
            strideWidth: 2, dilationHeight: 1, dilationWidth: 1, padding: .same))
        #expect(g.outputHeight == 4 && g.padTop == 0)
        #expect(g.outputWidth == 4 && g.padLeft == 1)
    }
}
