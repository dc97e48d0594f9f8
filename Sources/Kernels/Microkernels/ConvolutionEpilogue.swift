import KernelTemplates
import Tensor

/// Element-wise operations a CONV_2D applies to its output right after
/// computing it, in place of the ADD, PRELU and RELU operators that follow it in
/// the graph (folded by the interpreter), instead of in further passes over
/// the whole tensor: the GEMM tiles finish their outputs in registers before
/// they store them, the other kernels finish each block they computed while
/// it is still in cache.
///
/// For output element `y` (already clamped by the convolution's own
/// activation) at channel `c`:
///
///     y = clamp(y + residual, addLower, addUpper)   (or residual + y)   with `add`
///     y = y >= 0 ? y : alpha[c] · y                                      with `preluAlpha`
///     y = 0 < y ? y : 0                                                  with `rectifies`
///
/// with exactly the float operations of the ADD, PRELU and RELU kernels, so the
/// results are bit-identical to running those operators.
public struct ConvolutionEpilogue: Sendable {
    /// An ADD of a tensor of the output's shape (read at run time from the
    /// kernel's last input), clamped as the ADD's activation clamps.
    struct ResidualAdd: Sendable {
        var lower: Float
        var upper: Float
        /// Whether the residual is the ADD's first operand (`residual + y`).
        var residualFirst: Bool
    }

    var add: ResidualAdd?
    /// PRELU's alpha per output channel, zero-padded to a multiple of 32
    /// floats (vector loads never leave the buffer).
    var preluAlpha: AlignedBuffer?
    /// Whether a RELU finishes each output (after any ADD and PRELU): `0 < y ? y : 0`, which
    /// turns −0 and NaN into +0, unlike a clamp at 0.
    var rectifies = false

    /// No operation.
    public static let none = ConvolutionEpilogue()

    var isEmpty: Bool { add == nil && preluAlpha == nil && !rectifies }

    /// The pointers and constants of one run, for the GEMM block loops (`elementCount`: the
    /// output's elements, and the residual's).
    func operands(
        output: UnsafeMutablePointer<Float>, elementCount: Int, residual: UnsafePointer<Float>?
    ) -> EpilogueOperands? {
        if isEmpty { return nil }
        precondition((add == nil) == (residual == nil), "a residual add needs its residual and only then")
        return EpilogueOperands(
            output: UnsafePointer(output), elementCount: elementCount, residual: residual,
            lower: add?.lower ?? -.infinity, upper: add?.upper ?? .infinity,
            residualFirst: add?.residualFirst ?? false,
            alpha: preluAlpha.map { UnsafePointer($0.baseAddress) }, rectifies: rectifies)
    }

    /// Applies the epilogue to one output element of channel `channel`
    /// (the reference form).
    func apply(_ y: Float, residual: Float, channel: Int) -> Float {
        var value = y
        if let add {
            let sum = add.residualFirst ? residual + value : value + residual
            value = clamp(sum, lower: add.lower, upper: add.upper)
        }
        if let preluAlpha, !(value >= 0) {
            value = value * preluAlpha.baseAddress[channel]
        }
        if rectifies { value = 0 < value ? value : 0 }
        return value
    }
}
