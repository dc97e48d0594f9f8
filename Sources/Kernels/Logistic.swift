#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Tensor

/// LOGISTIC: `y = 1 / (1 + exp(-x))`, element-wise. One input, one output of
/// the same shape.
public struct Logistic: PreparedKernel {
    public let opName = "LOGISTIC"
    public let outputShapes: [TensorShape]
    let count: Int

    /// Validates the operands: exactly one input, any shape.
    public static func prepare(inputs: [Operand]) throws -> Logistic {
        guard inputs.count == 1 else {
            throw KernelError(op: "LOGISTIC", "expects 1 input, got \(inputs.count)")
        }
        return Logistic(outputShapes: [inputs[0].shape], count: inputs[0].shape.elementCount)
    }

    public func runReference(_ io: KernelIO) {
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<count {
            y[i] = 1 / (1 + exp(-x[i]))
        }
    }
}
