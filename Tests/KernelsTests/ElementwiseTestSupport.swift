import Foundation
import Kernels
import Tensor
import Testing

/// Helpers shared by the element-wise and layout op tests.
enum ElementwiseTestSupport {
    /// A non-constant operand of the given shape.
    static func operand(_ dims: [Int]) -> Operand {
        Operand(shape: TensorShape(validated: dims))
    }

    /// A constant int32 operand (shape, paddings, size).
    static func int32Constant(_ dims: [Int], _ values: [Int32]) -> Operand {
        Operand(shape: TensorShape(validated: dims), constant: .int32(values))
    }

    /// A constant float32 operand.
    static func floatConstant(_ dims: [Int], _ values: [Float]) -> Operand {
        Operand(shape: TensorShape(validated: dims), constant: .float32(values))
    }

    /// Runs `kernel`'s reference on `inputs` (one array per input, in order,
    /// each copied into an `AlignedBuffer`) and returns output 0. The output
    /// buffer starts filled with NaN so an element the kernel fails to write
    /// shows up.
    static func runReference(_ kernel: some PreparedKernel, _ inputs: [[Float]]) -> [Float] {
        let inputBuffers = inputs.map { AlignedBuffer($0) }
        let output = AlignedBuffer(count: kernel.outputShapes[0].elementCount)
        for i in 0..<output.count { output.baseAddress[i] = .nan }
        let io = KernelIO(
            inputs: inputBuffers.map { UnsafePointer($0.baseAddress) },
            outputs: [output.baseAddress])
        withExtendedLifetime(inputBuffers) {
            kernel.runReference(io)
        }
        return output.toArray()
    }

    /// Expects `body` to throw a `KernelError` for `op` whose message contains `fragment`.
    static func expectError(
        _ op: String, _ fragment: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Any
    ) {
        do {
            let result = try body()
            Issue.record("expected \(op) error containing \"\(fragment)\", got \(result)", sourceLocation: sourceLocation)
        } catch let error as KernelError {
            #expect(error.op == op, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected KernelError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Row-major strides of `dims`.
    static func strides(_ dims: [Int]) -> [Int] {
        var result = [Int](repeating: 1, count: dims.count)
        for d in stride(from: dims.count - 2, through: 0, by: -1) {
            result[d] = result[d + 1] * dims[d + 1]
        }
        return result
    }

    /// The multi-index of flat row-major offset `offset` in `dims`.
    static func coordinates(_ offset: Int, in dims: [Int]) -> [Int] {
        var rest = offset
        var result = [Int](repeating: 0, count: dims.count)
        for d in stride(from: dims.count - 1, through: 0, by: -1) where dims[d] > 0 {
            result[d] = rest % dims[d]
            rest /= dims[d]
        }
        return result
    }

    /// The seed for a random sweep: `ELEMENTWISE_SEED` from the environment
    /// if set (to replay a failure), otherwise a fresh one. Tests include it
    /// in every failure message.
    static func sweepSeed() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["ELEMENTWISE_SEED"], let seed = UInt64(text) {
            return seed
        }
        return UInt64.random(in: 0...UInt64.max)
    }

    /// SplitMix64: a small, fast, seedable generator for replayable sweeps.
    struct SeededGenerator: RandomNumberGenerator {
        private var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `count` random floats in -4...4.
    static func randomValues(_ count: Int, using generator: inout SeededGenerator) -> [Float] {
        (0..<count).map { _ in Float.random(in: -4...4, using: &generator) }
    }
}
