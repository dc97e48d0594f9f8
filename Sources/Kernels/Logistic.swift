#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlatBufferReader
import KernelTemplates
import Tensor

/// LOGISTIC: `y = 1 / (1 + exp(-x))`, element-wise. One input, one output of
/// the same shape; the schema gives LOGISTIC no options table.
///
/// `runReference` evaluates the formula with the C library's `exp`, as
/// TFLite's reference kernel does. `run` computes XNNPACK's f32 sigmoid
/// instead (see `xnnpackSigmoid`): the two differ in the last bit or so.
public struct Logistic: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.logistic
    public static let optionsType: UInt8 = 0

    public let opName = "LOGISTIC"
    public let outputShapes: [TensorShape]
    let count: Int

    /// Validates the operands: exactly one input, any shape.
    public static func prepare(inputs: [Operand], options: NoOptions = NoOptions()) throws -> Logistic {
        guard inputs.count == 1 else {
            throw KernelError(op: "LOGISTIC", "expects 1 input, got \(inputs.count)")
        }
        return Logistic(outputShapes: [inputs[0].shape], count: inputs[0].shape.elementCount)
    }

    /// `xnnpackSigmoid` on eight elements at a time (the last group reads
    /// past the input's end, which `KernelIO` allows, and stores only its
    /// elements), split over `runner`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runner.forEach(
            (count + 7) / 8, minimumPerChunk: memoryBoundTaskGrain / 8,
            LogisticGroups(input: io.inputs[0], output: io.outputs[0], count: count))
    }

    public func runReference(_ io: KernelIO) {
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<count {
            y[i] = 1 / (1 + exp(-x[i]))
        }
    }
}

/// The groups of eight elements of one LOGISTIC invocation, for
/// `ParallelRunner.forEach`: group `g` holds elements `8g ..< min(8g + 8, count)`.
private struct LogisticGroups: ParallelWork {
    let input: UnsafePointer<Float>
    let output: UnsafeMutablePointer<Float>
    let count: Int

    func run(_ groups: Range<Int>, thread: Int) {
        for group in groups {
            let start = group * 8
            let y = xnnpackSigmoid(loadVector8(input + start))
            if start + 8 <= count {
                storeVector8(y, output + start)
            } else {
                storeVector8(y, output + start, count: count - start)
            }
        }
    }
}

/// `1 / (1 + exp(-x))` per lane, computed as XNNPACK's f32 sigmoid for
/// AVX2 + FMA computes it (`xnn_f32_vsigmoid_ukernel__avx2_rr1_p5_div`),
/// under the flush-to-zero mode XNNPACK runs its operators in; bit-identical
/// to it when multiply-adds are fused (`LANDMARKER_FMA`).
///
/// With `z = -|x|`: `n = round(z·log2(e))` by the magic-bias addition,
/// `s = 2^n` from `n`'s bits, `t = z - n·ln2` (one fused multiply-add with
/// ln2 rounded to float), a degree-5 polynomial `p(t)` by Horner's scheme,
/// `e = (t·s)·p + s ≈ exp(z)`, then `f = e / (e + 1)` by a true division;
/// `f` is 0 where `z` is below -87.34 (where `e` would be subnormal), and the
/// result is `f` for a negative sign bit of `x`, `1 - f` otherwise. XNNPACK
/// runs with subnormal results flushed to zero: `t·s` can be subnormal for
/// `z` below about -70 and `e` near the cut-off, and both are flushed here
/// too (which changes results for `z` below about -82).
@inline(__always)
func xnnpackSigmoid(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let magicBias = SIMD8<Float>(repeating: 0x1.8000FEp23)
    let xBits = unsafeBitCast(x, to: SIMD8<Int32>.self)
    let z = unsafeBitCast(xBits | Int32.min, to: SIMD8<Float>.self)
    var n = multiplyAdd(z, SIMD8(repeating: 0x1.715476p0), magicBias)
    let s = unsafeBitCast(unsafeBitCast(n, to: SIMD8<Int32>.self) &<< 23, to: SIMD8<Float>.self)
    n -= magicBias
    var t = multiplyAdd(n, SIMD8(repeating: -0x1.62E430p-1), z)
    var p = multiplyAdd(SIMD8(repeating: 0x1.0F9F9Cp-7), t, SIMD8(repeating: 0x1.573A1Ap-5))
    p = multiplyAdd(p, t, SIMD8(repeating: 0x1.555A80p-3))
    p = multiplyAdd(p, t, SIMD8(repeating: 0x1.FFFDC6p-2))
    p = multiplyAdd(p, t, SIMD8(repeating: 0x1.FFFFF6p-1))
    t = flushingSubnormals(t * s)
    let e = flushingSubnormals(multiplyAdd(t, p, s))
    let f = e / (e + 1)
    let zero = SIMD8<Float>(repeating: 0)
    let cut = select(z .< SIMD8<Float>(repeating: -0x1.5D589Ep+6), zero, f)
    let negative: SIMDMask<SIMD8<Int32>> = xBits .< SIMD8<Int32>(repeating: 0)
    return select(negative, cut, 1 - cut)
}

/// `x` with its subnormal lanes replaced by +0, as the x86 flush-to-zero
/// mode does to a result (the sign of a flushed lane is not kept; the
/// sigmoid above never needs it).
@inline(__always)
private func flushingSubnormals(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let magnitude = unsafeBitCast(unsafeBitCast(x, to: SIMD8<Int32>.self) & Int32.max, to: SIMD8<Float>.self)
    return select(magnitude .< SIMD8<Float>(repeating: Float.leastNormalMagnitude), SIMD8(repeating: 0), x)
}
