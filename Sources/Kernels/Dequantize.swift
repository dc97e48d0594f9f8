import Tensor

/// DEQUANTIZE: converts a constant tensor to float32. In these models it only
/// turns float16 weights into float32, and it is folded at load time: the
/// operator that reads its output gets the float16 constant itself
/// (`ConstantData.float16`), which CONV_2D and FULLY_CONNECTED pack as it is
/// and every other op widens with `float16ToFloat32(_:)`. This kernel, which
/// passes a folded float32 constant through, runs only where a caller
/// prepares the operator on its own.
///
/// Input: one constant float32 tensor of any shape. Output: the same shape
/// and values.
public struct Dequantize: PreparedKernel {
    public let opName = "DEQUANTIZE"
    public let outputShapes: [TensorShape]
    /// The folded values, which are also the output (row-major, input shape).
    public let values: [Float]

    /// Validates a single constant float32 input; a non-constant input is
    /// rejected because only load-time folding is supported.
    public static func prepare(inputs: [Operand]) throws -> Dequantize {
        guard inputs.count == 1 else {
            throw KernelError(op: "DEQUANTIZE", "expects 1 input, got \(inputs.count)")
        }
        let input = inputs[0]
        guard let constant = input.constant else {
            throw KernelError(op: "DEQUANTIZE", "DEQUANTIZE of a non-constant tensor is not supported")
        }
        guard let values = constant.floatValues else {
            throw KernelError(op: "DEQUANTIZE", "the constant input must be folded to float32 first")
        }
        guard values.count == input.shape.elementCount else {
            throw KernelError(
                op: "DEQUANTIZE",
                "the constant input holds \(values.count) values but its shape \(input.shape) needs \(input.shape.elementCount)")
        }
        return Dequantize(outputShapes: [input.shape], values: values)
    }

    public func runReference(_ io: KernelIO) {
        // y: the input's shape, filled with the folded values.
        let y = io.outputs[0]
        for i in values.indices { y[i] = values[i] }
    }

    /// Decodes little-endian IEEE 754 half-precision values (2 bytes each) to
    /// float32. The conversion is exact for every pattern: zeros and
    /// subnormals, normals and infinities keep their value and sign; a NaN
    /// stays NaN with its sign and payload, made quiet as x86's `vcvtph2ps`
    /// does. Throws if the byte count is odd.
    public static func float16ToFloat32(_ bits: UnsafeRawBufferPointer) throws -> [Float] {
        guard bits.count % 2 == 0 else {
            throw KernelError(op: "DEQUANTIZE", "float16 data has an odd byte count \(bits.count)")
        }
        return widened(bits)
    }

    /// `halves` widened to float32 as `float16ToFloat32(_:)` widens their bytes.
    public static func float16ToFloat32(_ halves: Float16Bytes) -> [Float] {
        widened(halves.bytes)
    }

    /// The values of `bits.count / 2` little-endian halves, widened.
    private static func widened(_ bits: UnsafeRawBufferPointer) -> [Float] {
        let count = bits.count / 2
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            var i = 0
            #if _endian(little)
            // Eight at a time; the loaded lanes are little-endian as stored.
            while i + 8 <= count {
                let patterns = bits.loadUnaligned(fromByteOffset: 2 * i, as: SIMD8<UInt16>.self)
                let values = float32(fromHalfBits: SIMD8<UInt32>(truncatingIfNeeded: patterns))
                UnsafeMutableRawPointer(buffer.baseAddress! + i).storeBytes(of: values, as: SIMD8<Float>.self)
                i += 8
            }
            #endif
            while i < count {
                let pattern = UInt16(bits[2 * i]) | UInt16(bits[2 * i + 1]) << 8
                buffer[i] = float32(fromHalfBits: pattern)
                i += 1
            }
            initialized = count
        }
    }

    /// `float32(fromHalfBits:)` of eight patterns (in the low 16 bits of each
    /// lane) at once, with the same results. Every case is computed for every
    /// lane and chosen with integer masks (whole-vector operations, where
    /// `SIMD`'s lane selects are not).
    @inline(__always)
    static func float32(fromHalfBits half: SIMD8<UInt32>) -> SIMD8<Float> {
        let sign = (half & 0x8000) &<< 16
        let exponent = (half &>> 10) & 0x1F
        let fraction = half & 0x3FF
        // All ones where the exponent is 31 (infinity, NaN), where it is 0
        // (zero, subnormal), and where the fraction is not 0.
        let isSpecial = 0 &- ((exponent &+ 1) &>> 5)
        let isSmall = ((exponent &+ 31) &>> 5) &- 1
        let hasFraction = (fraction &+ 0x3FF) &>> 10
        // Normal: rebias the exponent from 15 to 127.
        let normal = sign | (exponent &+ 112) &<< 23 | fraction &<< 13
        // Infinity, or a NaN made quiet with its payload.
        let special = sign | 0x7F80_0000 | hasFraction &<< 22 | fraction &<< 13
        // Zero or subnormal, fraction × 2^-24: 2^-14 · (1 + fraction · 2^-10)
        // less 2^-14, both exact in float32.
        let offset = unsafeBitCast(0x3880_0000 | fraction &<< 13, to: SIMD8<Float>.self)
        let small = sign | unsafeBitCast(offset - SIMD8<Float>(repeating: 0x1p-14), to: SIMD8<UInt32>.self)
        let bits = normal & ~(isSpecial | isSmall) | special & isSpecial | small & isSmall
        return unsafeBitCast(bits, to: SIMD8<Float>.self)
    }

    /// The float32 equal to one half-precision bit pattern.
    ///
    /// Half: sign (1 bit), exponent (5 bits, bias 15), fraction (10 bits).
    /// Float: sign (1), exponent (8, bias 127), fraction (23).
    static func float32(fromHalfBits half: UInt16) -> Float {
        let sign = UInt32(half & 0x8000) << 16
        let exponent = UInt32(half >> 10) & 0x1F
        let fraction = UInt32(half & 0x3FF)
        switch exponent {
        case 0x1F:
            // Infinity (fraction 0) or NaN: all-ones exponent; a NaN keeps its
            // payload and gets the quiet bit.
            let quiet: UInt32 = fraction == 0 ? 0 : 0x40_0000
            return Float(bitPattern: sign | 0x7F80_0000 | quiet | fraction << 13)
        case 0:
            guard fraction != 0 else { return Float(bitPattern: sign) }
            // Subnormal: fraction × 2^-24. Its top set bit, at position p
            // (0...9), becomes the implicit leading 1 of a normal float with
            // exponent p - 24, i.e. biased p - 24 + 127.
            let p = UInt32(31 - fraction.leadingZeroBitCount)
            let normalizedFraction = (fraction << (23 - p)) & 0x7F_FFFF
            return Float(bitPattern: sign | (p + 103) << 23 | normalizedFraction)
        default:
            // Normal: rebias the exponent from 15 to 127.
            return Float(bitPattern: sign | (exponent + 112) << 23 | fraction << 13)
        }
    }
}
