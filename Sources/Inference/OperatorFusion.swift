import Kernels
import Tensor

/// One prepared operator: its kernel and the tensor indices it reads and writes.
typealias PreparedNode = (kernel: any PreparedKernel, inputs: [Int], outputs: [Int])

/// Folds the ADD and PRELU operators that finish a CONV_2D into the
/// convolution's kernel (`Conv2D.fusing(add:residualIsFirstOperand:)`,
/// `Conv2D.fusing(prelu:alpha:)`), so their element-wise work is done on
/// each output tile while it is in L1 instead of in passes over whole
/// tensors. The fused kernels compute the same float operations, so the
/// outputs are bit-identical.
///
/// A CONV_2D absorbs the ADD that is the only reader of its output when
/// the ADD's other operand (the residual) has the same shape, is not a
/// constant and is already computed when the convolution runs; then the
/// PRELU that is the only reader of the result, when its alpha is a
/// constant with one value per output channel. Tensors that are graph
/// outputs are never folded away.
enum OperatorFusion {
    /// The nodes with every foldable ADD and PRELU folded into the CONV_2D
    /// before it, in the same order.
    /// - Parameters:
    ///   - nodes: prepared operators in execution order.
    ///   - constants: the values of the constant tensors known at load time.
    ///   - isConstant: whether a tensor is a constant (including one not
    ///     among `constants`, such as a sparse tensor without DENSIFY).
    ///   - shapes: every tensor's shape, by index.
    ///   - graphOutputs: tensors that must keep being written.
    static func fuse(
        _ nodes: [PreparedNode], constants: [Int: ConstantData], isConstant: (Int) -> Bool,
        shapes: [TensorShape], graphOutputs: [Int]
    ) -> [PreparedNode] {
        var consumers: [Int: [Int]] = [:]
        var producer: [Int: Int] = [:]
        for (index, node) in nodes.enumerated() {
            for tensor in node.inputs { consumers[tensor, default: []].append(index) }
            for tensor in node.outputs { producer[tensor] = index }
        }
        let kept = Set(graphOutputs)
        /// The node that alone reads `tensor`, if it is not a graph output.
        func soleReader(of tensor: Int) -> Int? {
            guard !kept.contains(tensor), let readers = consumers[tensor], readers.count == 1 else { return nil }
            return readers[0]
        }

        var result = nodes
        var folded = Set<Int>()
        for (index, node) in nodes.enumerated() {
            guard var conv = node.kernel as? Conv2D, node.outputs.count == 1 else { continue }
            var inputs = node.inputs, output = node.outputs[0]
            if let reader = soleReader(of: output), let add = nodes[reader].kernel as? Add,
               nodes[reader].inputs.count == 2, nodes[reader].inputs.filter({ $0 == output }).count == 1 {
                let operands = nodes[reader].inputs
                let residual = operands[0] == output ? operands[1] : operands[0]
                let ready = producer[residual].map { $0 < index } ?? true
                if ready, !isConstant(residual),
                   let fused = conv.fusing(add: add, residualIsFirstOperand: operands[0] == residual) {
                    conv = fused
                    inputs.append(residual)
                    output = nodes[reader].outputs[0]
                    folded.insert(reader)
                }
            }
            if let reader = soleReader(of: output), let prelu = nodes[reader].kernel as? Prelu,
               nodes[reader].inputs.count == 2, nodes[reader].inputs[0] == output,
               let alphaValues = constants[nodes[reader].inputs[1]] {
                let alpha = Operand(shape: shapes[nodes[reader].inputs[1]], constant: alphaValues)
                if let fused = conv.fusing(prelu: prelu, alpha: alpha) {
                    conv = fused
                    output = nodes[reader].outputs[0]
                    folded.insert(reader)
                }
            }
            result[index] = (conv, inputs, [output])
        }
        return result.enumerated().filter { !folded.contains($0.offset) }.map(\.element)
    }
}
