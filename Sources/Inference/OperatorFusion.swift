import Kernels
import Tensor

/// One prepared operator: its kernel and the tensor indices it reads and writes.
typealias PreparedNode = (kernel: any PreparedKernel, inputs: [Int], outputs: [Int])

/// Folds element-wise operators into the convolutions next to them, so
/// that their work is done on data the convolution has at hand instead of
/// in passes over whole tensors:
///
/// - the zero PAD of rows and columns that only convolutions read goes into
///   their windows (`Conv2D.foldingPadding(of:)`,
///   `DepthwiseConv2D.foldingPadding(of:)`): they read the unpadded tensor
///   and skip the padding's taps, which contribute nothing;
/// - the ADD, PRELU and RELU operators that finish a CONV_2D go into its
///   epilogue (`Conv2D.fusing(add:residualIsFirstOperand:)`,
///   `Conv2D.fusing(prelu:alpha:)`, `Conv2D.fusing(relu:)`), computed with
///   the same float operations;
/// - the RELU that alone reads an ADD's sum (an ADD not folded into a
///   convolution) goes into the ADD (`Add.fusing(relu:)`), one pass instead of
///   two;
/// - a 1×1 CONV_2D and the DEPTHWISE_CONV_2D that alone reads its large
///   output become one operator that computes that output a band of rows at a
///   time (`joiningExpansions`, `ExpansionDepthwise`; the load does this last).
///
/// A CONV_2D absorbs the ADD that is the only reader of its output when
/// the ADD's other operand (the residual) has the same shape, is not a
/// constant and is already computed when the convolution runs; then the
/// PRELU that is the only reader of the result, when its alpha is a
/// constant with one value per output channel; then the RELU that is the
/// only reader of what it has become. Tensors that are graph
/// outputs are never folded away. The outputs are bit-identical either way
/// (a folded PAD could differ only in the sign of a zero sum).
enum OperatorFusion {
    /// The nodes with every foldable PAD, ADD, PRELU and RELU folded into the
    /// convolutions next to them, in the same order.
    /// - Parameters:
    ///   - nodes: prepared operators in execution order.
    ///   - constantValue: the value of a constant tensor known at load time,
    ///     nil for other tensors; asked only for the alpha of a PRELU that
    ///     could be folded.
    ///   - isConstant: whether a tensor is a constant (including one without
    ///     a `constantValue`, such as a sparse tensor without DENSIFY).
    ///   - shapes: every tensor's shape, by index.
    ///   - graphOutputs: tensors that must keep being written.
    static func fuse(
        _ nodes: [PreparedNode], constantValue: (Int) throws -> ConstantData?, isConstant: (Int) -> Bool,
        shapes: [TensorShape], graphOutputs: [Int]
    ) rethrows -> [PreparedNode] {
        let unpadded = foldPadding(nodes, graphOutputs: graphOutputs)
        let ordered = hoistingResiduals(unpadded, tensorCount: shapes.count, graphOutputs: graphOutputs)
        let finished = try foldEpilogues(
            ordered, constantValue: constantValue, isConstant: isConstant, shapes: shapes, graphOutputs: graphOutputs)
        return foldRectifiers(finished, graphOutputs: graphOutputs)
    }

    /// The nodes that read each tensor, by index in `nodes`, in order.
    static func readers(of nodes: [PreparedNode]) -> [Int: [Int]] {
        var readers: [Int: [Int]] = [:]
        for (index, node) in nodes.enumerated() {
            for tensor in node.inputs { readers[tensor, default: []].append(index) }
        }
        return readers
    }

    /// Folds each RELU that alone reads an ADD's output, which is not a graph output, into
    /// that ADD.
    static func foldRectifiers(_ nodes: [PreparedNode], graphOutputs: [Int]) -> [PreparedNode] {
        let readers = readers(of: nodes)
        var result = nodes
        var folded = Set<Int>()
        for (index, node) in nodes.enumerated() {
            guard let add = node.kernel as? Add, node.outputs.count == 1, !graphOutputs.contains(node.outputs[0]),
                  let users = readers[node.outputs[0]], users.count == 1,
                  let relu = nodes[users[0]].kernel as? Relu, nodes[users[0]].inputs == [node.outputs[0]],
                  let fused = add.fusing(relu: relu)
            else { continue }
            result[index] = (fused, node.inputs, nodes[users[0]].outputs)
            folded.insert(users[0])
        }
        return result.enumerated().filter { !folded.contains($0.offset) }.map(\.element)
    }

    /// Joins each 1×1 CONV_2D whose output (no graph output) only a DEPTHWISE_CONV_2D reads, as
    /// its input, to that layer where `ExpansionDepthwise` applies (expanded maps of at least
    /// `minimumExpandedFloats`): one node where the convolution was. The depthwise layer then
    /// runs earlier than it did, which only moves its output's lifetime: everything it reads
    /// besides its input is constant, and memory is planned after. Run after the channel-major
    /// regions have taken their convolutions, and on packed filters.
    static func joiningExpansions(
        _ nodes: [PreparedNode], isConstant: (Int) -> Bool, graphOutputs: [Int],
        minimumExpandedFloats: Int = ExpansionDepthwise.minimumExpandedFloats
    ) -> [PreparedNode] {
        let readers = readers(of: nodes)
        var result = nodes
        var joined = Set<Int>()
        for (index, node) in nodes.enumerated() {
            guard let conv = node.kernel as? Conv2D, node.outputs.count == 1,
                  !graphOutputs.contains(node.outputs[0]), let users = readers[node.outputs[0]], users.count == 1,
                  let depthwise = nodes[users[0]].kernel as? DepthwiseConv2D,
                  nodes[users[0]].inputs.first == node.outputs[0],
                  nodes[users[0]].inputs.dropFirst().allSatisfy({ $0 < 0 || isConstant($0) }),
                  let kernel = ExpansionDepthwise(
                      expansion: conv, depthwise: depthwise, minimumExpandedFloats: minimumExpandedFloats)
            else { continue }
            result[index] = (kernel, node.inputs, nodes[users[0]].outputs)
            joined.insert(users[0])
        }
        return result.enumerated().filter { !joined.contains($0.offset) }.map(\.element)
    }

    /// Removes every PAD whose output only convolutions read (as their
    /// input) and that each of them can fold into its window.
    static func foldPadding(_ nodes: [PreparedNode], graphOutputs: [Int]) -> [PreparedNode] {
        let readers = readers(of: nodes)
        var result = nodes
        var folded = Set<Int>()
        for (index, node) in nodes.enumerated() {
            guard let pad = node.kernel as? Pad, node.outputs.count == 1, let source = node.inputs.first,
                  !graphOutputs.contains(node.outputs[0]), let users = readers[node.outputs[0]]
            else { continue }
            var replacements: [(index: Int, kernel: any PreparedKernel)] = []
            for user in users {
                let inputs = result[user].inputs
                guard inputs.first == node.outputs[0], inputs.dropFirst().allSatisfy({ $0 != node.outputs[0] })
                else { break }
                if let conv = result[user].kernel as? Conv2D, let fused = conv.foldingPadding(of: pad) {
                    replacements.append((user, fused))
                } else if let conv = result[user].kernel as? DepthwiseConv2D, let fused = conv.foldingPadding(of: pad) {
                    replacements.append((user, fused))
                } else {
                    break
                }
            }
            guard replacements.count == users.count else { continue }
            for (user, kernel) in replacements {
                result[user].kernel = kernel
                result[user].inputs[0] = source
            }
            folded.insert(index)
        }
        return result.enumerated().filter { !folded.contains($0.offset) }.map(\.element)
    }

    /// The nodes reordered so that the other operand (the residual) of each ADD that alone
    /// reads a CONV_2D's output is computed before the convolution, and the ADD can be folded
    /// into it: the nodes that compute the residual after the convolution move to just before
    /// it, in their own order. The graph computes each tensor before its readers in any such
    /// order, so the results are the same; only the residual lives longer in memory. (The face
    /// detectors compute the channel-padded shortcut of a block after the block's convolution.)
    /// - Parameter tensorCount: the number of tensors (every index in `nodes` is below it).
    static func hoistingResiduals(_ nodes: [PreparedNode], tensorCount: Int, graphOutputs: [Int]) -> [PreparedNode] {
        // By tensor: the node that writes it (-1: none), how many nodes read it (a graph output
        // counts as one more) and the last one (arrays, not dictionaries: this runs at every load).
        var producer = [Int](repeating: -1, count: tensorCount)
        var readerCount = [Int](repeating: 0, count: tensorCount)
        var lastReader = [Int](repeating: -1, count: tensorCount)
        for (index, node) in nodes.enumerated() {
            for tensor in node.outputs { producer[tensor] = index }
            for tensor in node.inputs where tensor >= 0 {
                readerCount[tensor] += 1
                lastReader[tensor] = index
            }
        }
        for tensor in graphOutputs where tensor >= 0 && tensor < tensorCount { readerCount[tensor] += 1 }
        // Nodes by their index in `nodes`; `order` is the execution order, `position` its inverse.
        var order = Array(nodes.indices)
        var position = Array(nodes.indices)
        var moves = false
        for (conv, node) in nodes.enumerated() {
            // The ADD that alone reads the convolution's output (which is no graph output).
            guard node.kernel is Conv2D, node.outputs.count == 1, readerCount[node.outputs[0]] == 1,
                  lastReader[node.outputs[0]] >= 0
            else { continue }
            let user = nodes[lastReader[node.outputs[0]]]
            guard user.kernel is Add, user.inputs.count == 2, user.inputs[0] != user.inputs[1] else { continue }
            let residualFirst = user.inputs[0] != node.outputs[0]
            let residual = residualFirst ? user.inputs[0] : user.inputs[1]
            // A residual that a later convolution computes for this ADD alone: that one takes it.
            let source = residual >= 0 ? producer[residual] : -1
            guard source >= 0, position[source] > position[conv],
                  !(nodes[source].kernel is Conv2D && readerCount[residual] == 1),
                  let kernel = node.kernel as? Conv2D, let add = user.kernel as? Add,
                  kernel.fusing(add: add, residualIsFirstOperand: residualFirst) != nil
            else { continue }
            // The nodes after the convolution that the residual needs. None of them needs the
            // convolution: the ADD alone reads its output.
            var moved = Set<Int>(), pending = [source]
            while let next = pending.popLast() {
                guard position[next] > position[conv], moved.insert(next).inserted else { continue }
                pending += nodes[next].inputs.compactMap { $0 >= 0 && producer[$0] >= 0 ? producer[$0] : nil }
            }
            moves = true
            let start = position[conv]
            let hoisted = moved.sorted { position[$0] < position[$1] }
            order = Array(order[..<start]) + hoisted + order[start...].filter { !moved.contains($0) }
            for (at, index) in order.enumerated() { position[index] = at }
        }
        return moves ? order.map { nodes[$0] } : nodes
    }

    /// Folds each foldable ADD, PRELU and RELU into the CONV_2D before it.
    static func foldEpilogues(
        _ nodes: [PreparedNode], constantValue: (Int) throws -> ConstantData?, isConstant: (Int) -> Bool,
        shapes: [TensorShape], graphOutputs: [Int]
    ) rethrows -> [PreparedNode] {
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
               let alphaValues = try constantValue(nodes[reader].inputs[1]) {
                let alpha = Operand(shape: shapes[nodes[reader].inputs[1]], constant: alphaValues)
                if let fused = conv.fusing(prelu: prelu, alpha: alpha) {
                    conv = fused
                    output = nodes[reader].outputs[0]
                    folded.insert(reader)
                }
            }
            if let reader = soleReader(of: output), let relu = nodes[reader].kernel as? Relu,
               nodes[reader].inputs == [output], let fused = conv.fusing(relu: relu) {
                conv = fused
                output = nodes[reader].outputs[0]
                folded.insert(reader)
            }
            result[index] = (conv, inputs, [output])
        }
        return result.enumerated().filter { !folded.contains($0.offset) }.map(\.element)
    }
}
