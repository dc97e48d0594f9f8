import Kernels
import Tensor
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("DEQUANTIZE")
struct DequantizeTests {
    private func decode(_ patterns: [UInt16]) throws -> [Float] {
        let bytes = patterns.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        return try bytes.withUnsafeBytes { try Dequantize.float16ToFloat32($0) }
    }

    @Test func knownHalfPatterns() throws {
        let values = try decode([0x3C00, 0xC000, 0x7BFF, 0x0400, 0x0001, 0x03FF, 0x3555, 0x0000])
        #expect(values == [
            1, -2, 65504, 0x1p-14, 0x1p-24, 1023 * 0x1p-24, 0.333251953125, 0,
        ])
        let special = try decode([0x7C00, 0xFC00, 0x8000, 0x7E00, 0xFE01])
        #expect(special[0] == .infinity)
        #expect(special[1] == -.infinity)
        #expect(special[2] == 0 && special[2].sign == .minus)
        #expect(special[3].isNaN && special[3].sign == .plus)
        #expect(special[4].isNaN && special[4].sign == .minus)
    }

    @Test func bytesAreLittleEndian() throws {
        let bytes: [UInt8] = [0x00, 0x3C, 0x00, 0xC0]
        #expect(try bytes.withUnsafeBytes { try Dequantize.float16ToFloat32($0) } == [1, -2])
        #expect(try [UInt8]().withUnsafeBytes { try Dequantize.float16ToFloat32($0) } == [])
    }

    #if !(os(macOS) && arch(x86_64))
    @Test func everyHalfPatternMatchesTheStandardLibrary() throws {
        let patterns = (0...UInt16.max).map { $0 }
        let values = try decode(patterns)
        #expect(values.count == 65536)
        var mismatches: [String] = []
        for (pattern, value) in zip(patterns, values) {
            let reference = Float(Float16(bitPattern: pattern))
            if reference.isNaN {
                // Same sign and payload; the result is always a quiet NaN.
                let quietBit: UInt32 = 0x40_0000
                if !value.isNaN || value.bitPattern != reference.bitPattern | quietBit {
                    mismatches.append("0x\(String(pattern, radix: 16)): NaN \(value.bitPattern) vs \(reference.bitPattern)")
                }
            } else if value.bitPattern != reference.bitPattern {
                mismatches.append("0x\(String(pattern, radix: 16)): \(value) vs \(reference)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
    #endif

    @Test func oddByteCountIsRejected() {
        Support.expectError("DEQUANTIZE", "odd byte count 3") {
            try [UInt8](repeating: 0, count: 3).withUnsafeBytes { try Dequantize.float16ToFloat32($0) }
        }
    }

    @Test func constantFloatInputPassesThrough() throws {
        let values: [Float] = [0.5, -1, 3, 1e-8]
        let kernel = try Dequantize.prepare(inputs: [Support.floatConstant([2, 2], values)])
        #expect(kernel.outputShapes[0].dimensions == [2, 2])
        #expect(kernel.values == values)
        #expect(runReference(kernel, [values]) == values)
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("DEQUANTIZE", "DEQUANTIZE of a non-constant tensor is not supported") {
            try Dequantize.prepare(inputs: [Support.operand([2, 2])])
        }
        Support.expectError("DEQUANTIZE", "expects 1 input, got 2") {
            try Dequantize.prepare(inputs: [Support.floatConstant([1], [1]), Support.floatConstant([1], [1])])
        }
        Support.expectError("DEQUANTIZE", "float32") {
            try Dequantize.prepare(inputs: [Support.int32Constant([2], [1, 2])])
        }
        Support.expectError("DEQUANTIZE", "holds 3 values") {
            try Dequantize.prepare(inputs: [Support.floatConstant([2, 2], [1, 2, 3])])
        }
    }
}
