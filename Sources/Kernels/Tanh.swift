#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlatBufferReader
import KernelTemplates
import Tensor

/// TANH: `y = tanh(x)`, element-wise. One float32 input of any shape, one output of the same
/// shape; the schema gives TANH no options table.
///
/// `runReference` calls the C library's `tanhf`, as TFLite's reference kernel calls
/// `std::tanh`. `run` evaluates `tanhLanes` instead, which differs from it by at most
/// `Tanh.maximumUlpsFromReference` units in the last place (measured by `TanhTests` over every
/// 2^10-th float and 2^20 random values in -10...10: 3 ulps, near 0.117); ±0 keep their sign,
/// ±∞ give ±1 and NaN stays NaN. XNNPACK's f32 tanh microkernels (`f32-vtanh`,
/// `expm1minus` with a degree-6 polynomial and a Newton-Raphson step) take a similar route
/// but with other constants; bit-exactness with them was not checked.
public struct Tanh: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.tanh
    public static let optionsType: UInt8 = 0
    /// The largest difference between `run` and `runReference` measured, in ulps.
    public static let maximumUlpsFromReference = 3

    public let opName = "TANH"
    public let outputShapes: [TensorShape]
    let count: Int

    /// Validates the operands: exactly one input, any shape.
    public static func prepare(inputs: [Operand], options: NoOptions) throws -> Tanh {
        guard inputs.count == 1 else {
            throw KernelError(op: "TANH", "expects 1 input, got \(inputs.count)")
        }
        return Tanh(outputShapes: [inputs[0].shape], count: inputs[0].shape.elementCount)
    }

    /// `tanhLanes` on eight elements at a time, split over `runner`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        runLanes(TanhLanes(), count: count, input: io.inputs[0], output: io.outputs[0], runner: runner)
    }

    public func runReference(_ io: KernelIO) {
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<count {
            y[i] = tanh(x[i])
        }
    }
}

private struct TanhLanes: LaneFunction {
    @inline(__always)
    func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float> { tanhLanes(x) }
}

/// `tanh(x)` per lane from `expm1` (separate multiplies and adds only, so the result is the
/// same with and without fused multiply-add code generation):
///
/// with `z = -2|x|` (held at -20 below that, where `tanh` is 1 in float; NaN passes),
/// `n = round(z / ln2)` by the magic-bias addition, `s = 2^n` from `n`'s bits,
/// `t = z - n·ln2` in two parts (Cody-Waite, `|t| ≤ ln2/2`), `p = expm1(t)` by a degree-7
/// Taylor polynomial, `e = s·p + (s - 1) = expm1(z)`, then `tanh|x| = -e / (e + 2)` with the
/// sign of `x` put back.
@inline(__always)
func tanhLanes(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let signMask = SIMD8<UInt32>(repeating: 0x8000_0000)
    let bits = unsafeBitCast(x, to: SIMD8<UInt32>.self)
    let magnitude = unsafeBitCast(bits & ~signMask, to: SIMD8<Float>.self)
    let twice = magnitude + magnitude
    let limit = SIMD8<Float>(repeating: 20)
    let z = -select(limit .< twice, limit, twice)
    let magicBias = SIMD8<Float>(repeating: 0x1.8000FEp23)
    var n = z * SIMD8(repeating: 0x1.715476p0) + magicBias
    let s = unsafeBitCast(unsafeBitCast(n, to: SIMD8<Int32>.self) &<< 23, to: SIMD8<Float>.self)
    n -= magicBias
    let t = (z - n * SIMD8(repeating: 0x1.62E400p-1)) - n * SIMD8(repeating: 0x1.7F7D1Cp-20)
    var q = SIMD8<Float>(repeating: 1.0 / 5040)
    q = q * t + SIMD8(repeating: 1.0 / 720)
    q = q * t + SIMD8(repeating: 1.0 / 120)
    q = q * t + SIMD8(repeating: 1.0 / 24)
    q = q * t + SIMD8(repeating: 1.0 / 6)
    q = q * t + SIMD8(repeating: 0.5)
    let p = (t * t) * q + t
    let e = s * p + (s - 1)
    let y = -e / (e + 2)
    return unsafeBitCast(unsafeBitCast(y, to: SIMD8<UInt32>.self) | (bits & signMask), to: SIMD8<Float>.self)
}
