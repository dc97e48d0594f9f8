import Foundation
import Kernels
import Tensor
import TestSupport
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

    /// `count` random floats in -4...4.
    static func randomValues(_ count: Int, using generator: inout SeededGenerator) -> [Float] {
        (0..<count).map { _ in Float.random(in: -4...4, using: &generator) }
    }
}
