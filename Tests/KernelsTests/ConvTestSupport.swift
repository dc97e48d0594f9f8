import Foundation
import Kernels
import Tensor
import TestSupport
import Testing

/// Helpers shared by the CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED,
/// MAX_POOL_2D and MEAN tests: operand builders, error checks and slow,
/// independent oracles written in Double on explicitly padded tensors.
enum ConvTestSupport {
    // MARK: Operands

    static func shape(_ dimensions: [Int]) -> TensorShape {
        TensorShape(validated: dimensions)
    }

    /// A runtime (non-constant) operand.
    static func activation(_ dimensions: [Int]) -> Operand {
        Operand(shape: shape(dimensions))
    }

    /// A float32 constant operand.
    static func constant(_ dimensions: [Int], _ values: [Float]) -> Operand {
        Operand(shape: shape(dimensions), constant: .float32(values))
    }

    /// An int32 constant operand.
    static func intConstant(_ dimensions: [Int], _ values: [Int32]) -> Operand {
        Operand(shape: shape(dimensions), constant: .int32(values))
    }

    // MARK: Checks

    /// Expects `body` to throw a `KernelError` for `op` whose message contains
    /// every one of `fragments`.
    static func expectKernelError(
        op: String, mentioning fragments: [String],
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> any PreparedKernel
    ) {
        do {
            let kernel = try body()
            Issue.record(
                "expected a \(op) KernelError mentioning \(fragments), got a kernel with output \(kernel.outputShapes)",
                sourceLocation: sourceLocation)
        } catch let error as KernelError {
            #expect(error.op == op, "\(error)", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(
                    error.message.contains(fragment), "message \"\(error.message)\" lacks \"\(fragment)\"",
                    sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("expected a KernelError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The first element where `actual` is further than `tolerance` from
    /// `expected` (or a count mismatch), described in words; nil if none.
    static func firstMismatch(_ actual: [Float], _ expected: [Double], tolerance: Double) -> String? {
        guard actual.count == expected.count else {
            return "got \(actual.count) values, expected \(expected.count)"
        }
        for (index, (a, e)) in zip(actual, expected).enumerated() where !(abs(Double(a) - e) <= tolerance) {
            return "element \(index): got \(a), expected \(e) ± \(tolerance)"
        }
        return nil
    }

    /// A bound on the rounding error of a Float sum of `terms` products of
    /// values in [−1, 1] plus a bias in [−1, 1]: recursive summation errs by at
    /// most (n + 1)·ε·Σ|term| ≤ (n + 1)²·ε.
    static func summationTolerance(terms: Int) -> Double {
        Double(terms + 1) * Double(terms + 1) * Double(Float.ulpOfOne)
    }

    // MARK: Random sweeps

    /// `count` floats uniform in `-1...1`.
    static func randomFloats(_ count: Int, using generator: inout SeededGenerator) -> [Float] {
        (0..<count).map { _ in Float.random(in: -1...1, using: &generator) }
    }

    // MARK: Independent oracles

    /// The activation's clamp range in Double.
    static func clampRange(_ activation: FusedActivation) -> ClosedRange<Double> {
        Double(activation.clampRange.lower)...Double(activation.clampRange.upper)
    }

    /// TensorFlow's SAME/VALID output size and leading padding, written from the
    /// definition (`ceil(in / stride)` for SAME; the extra padding goes last).
    /// Nil when VALID leaves no output.
    static func expectedWindow(
        padding: Padding, input: Int, filter: Int, stride: Int, dilation: Int
    ) -> (size: Int, padBefore: Int, padAfter: Int)? {
        let span = (filter - 1) * dilation + 1
        switch padding {
        case .same:
            let size = Int((Double(input) / Double(stride)).rounded(.up))
            let total = max(0, (size - 1) * stride + span - input)
            return (size, total / 2, total - total / 2)
        case .valid:
            guard input >= span else { return nil }
            return ((input - span) / stride + 1, 0, 0)
        }
    }

    /// `x [N, H, W, C]` surrounded by `fill`: `[N, top + H + bottom, left + W + right, C]`.
    static func padded(
        _ x: [Float], _ dims: [Int], top: Int, bottom: Int, left: Int, right: Int, fill: Double
    ) -> (values: [Double], dims: [Int]) {
        let (n, h, w, c) = (dims[0], dims[1], dims[2], dims[3])
        let ph = top + h + bottom, pw = left + w + right
        var out = [Double](repeating: fill, count: n * ph * pw * c)
        for b in 0..<n {
            for y in 0..<h {
                for xx in 0..<w {
                    for ch in 0..<c {
                        out[((b * ph + y + top) * pw + xx + left) * c + ch] = Double(x[((b * h + y) * w + xx) * c + ch])
                    }
                }
            }
        }
        return (out, [n, ph, pw, c])
    }

    /// A conv filter `[Cout, KH, KW, Cin]` with `dilation − 1` zero taps
    /// inserted between neighbouring taps: `[Cout, (KH−1)·dh+1, (KW−1)·dw+1, Cin]`.
    static func dilated(
        _ f: [Float], _ dims: [Int], dilationH: Int, dilationW: Int
    ) -> (values: [Double], dims: [Int]) {
        let (co, kh, kw, ci) = (dims[0], dims[1], dims[2], dims[3])
        let dkh = (kh - 1) * dilationH + 1, dkw = (kw - 1) * dilationW + 1
        var out = [Double](repeating: 0, count: co * dkh * dkw * ci)
        for o in 0..<co {
            for y in 0..<kh {
                for x in 0..<kw {
                    for i in 0..<ci {
                        let target = ((o * dkh + y * dilationH) * dkw + x * dilationW) * ci + i
                        out[target] = Double(f[((o * kh + y) * kw + x) * ci + i])
                    }
                }
            }
        }
        return (out, [co, dkh, dkw, ci])
    }

    /// Dense VALID convolution in Double, no padding, no dilation:
    /// `x [N, H, W, Cin]` with `f [Cout, KH, KW, Cin]` → `[N, OH, OW, Cout]`.
    static func denseValidConv(
        _ x: [Double], _ xd: [Int], _ f: [Double], _ fd: [Int], strideH: Int, strideW: Int
    ) -> [Double] {
        let (n, h, w, ci) = (xd[0], xd[1], xd[2], xd[3])
        let (co, kh, kw) = (fd[0], fd[1], fd[2])
        let oh = (h - kh) / strideH + 1, ow = (w - kw) / strideW + 1
        var out = [Double](repeating: 0, count: n * oh * ow * co)
        for b in 0..<n {
            for y in 0..<oh {
                for xx in 0..<ow {
                    for o in 0..<co {
                        var sum = 0.0
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                for i in 0..<ci {
                                    sum += x[((b * h + y * strideH + ky) * w + xx * strideW + kx) * ci + i]
                                        * f[((o * kh + ky) * kw + kx) * ci + i]
                                }
                            }
                        }
                        out[((b * oh + y) * ow + xx) * co + o] = sum
                    }
                }
            }
        }
        return out
    }

    /// A convolution computed the slow way: pad the input with zeros, spread
    /// the filter taps apart by the dilation, run a dense VALID convolution,
    /// add the bias and clamp. `x [N, H, W, Cin]`, `f [Cout, KH, KW, Cin]`.
    /// Nil when VALID leaves no output.
    static func convolutionOracle(
        input x: [Float], inputDims: [Int], filter f: [Float], filterDims: [Int], bias: [Float],
        padding: Padding, strideH: Int, strideW: Int, dilationH: Int, dilationW: Int,
        clamp: ClosedRange<Double>
    ) -> [Double]? {
        guard
            let rows = expectedWindow(
                padding: padding, input: inputDims[1], filter: filterDims[1], stride: strideH, dilation: dilationH),
            let cols = expectedWindow(
                padding: padding, input: inputDims[2], filter: filterDims[2], stride: strideW, dilation: dilationW)
        else { return nil }
        let p = padded(
            x, inputDims, top: rows.padBefore, bottom: rows.padAfter, left: cols.padBefore, right: cols.padAfter,
            fill: 0)
        let d = dilated(f, filterDims, dilationH: dilationH, dilationW: dilationW)
        let sums = denseValidConv(p.values, p.dims, d.values, d.dims, strideH: strideH, strideW: strideW)
        let co = filterDims[0]
        return sums.enumerated().map { index, sum in
            min(max(sum + Double(bias[index % co]), clamp.lowerBound), clamp.upperBound)
        }
    }
}
