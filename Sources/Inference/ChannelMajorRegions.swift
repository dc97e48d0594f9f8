import Kernels
import Tensor

/// Runs the parts of a graph that are made of sparse 1×1 convolutions in
/// channel-major layout, where those convolutions can skip their zero weights.
///
/// A 1×1 convolution whose filter is mostly zeros (pose_detection stores 38
/// of them at 25 % density) only pays off as a sparse kernel when it can
/// vectorise over pixels, which needs each channel's pixels contiguous:
/// `[N][C][H·W]` instead of TFLite's `[N, H, W, C]`. So the convolutions,
/// the depthwise convolutions between them and the element-wise ADDs that
/// join them run on channel-major tensors (`SparsePointwiseConv2DCHW`,
/// `DepthwiseConv2DCHW`, `Add`), and a `LayoutConversion` moves a tensor
/// across the region's border, where it enters from or leaves for an
/// operator that reads channel-last data (or is a graph output). A
/// convolution with few input channels whose output only the region reads
/// (a model's stem) writes channel-major itself (`Conv2DToChannelMajor`)
/// instead of being followed by a conversion.
///
/// A convolution counts as sparse when its filter is no denser than
/// `SparsePointwiseConv2DCHW.worthwhileDensity` for its kernel family.
/// A region is a connected group of such operators linked by the tensors
/// they pass each other; it is used only when it holds at least
/// `minimumSparseConvolutions` sparse convolutions, so that a lone
/// depthwise convolution or ADD never pays for two conversions. Every kernel
/// family has every channel-major kernel; where no filter is sparse, the
/// graph is left as it is. An operator whose channel-major kernel would not
/// give its channel-last bits (a depthwise convolution with a `−0` bias,
/// see `DepthwiseConv2DCHW`) stays channel-last, outside any region.
enum ChannelMajorRegions {
    /// Sparse convolutions a region needs before it is worth converting to.
    static let minimumSparseConvolutions = 2

    /// The nodes, in the same order, with every worthwhile region running
    /// channel-major and conversions at its borders. New tensors (the
    /// channel-major copies of tensors that cross a border) are appended to
    /// `shapes` (same shape as the tensor they copy).
    /// - Parameters:
    ///   - nodes: prepared operators in execution order (after `OperatorFusion`).
    ///   - shapes: every tensor's shape, by index.
    ///   - isConstant: whether a tensor is a constant (weights, biases).
    ///   - graphOutputs: tensors the caller reads after `invoke` (kept channel-last).
    ///   - compressedRows: a constant's value as compressed rows, where it is
    ///     stored so (`ConstantTensors.compressedRows(of:)`): the sparse
    ///     kernels read their lists from there rather than from packed panels.
    ///   - threadCount: threads that build the sparse kernels, one convolution each.
    ///   - weightStore: where the sparse kernels' weight lists and the
    ///     channel-major depthwise kernels' filters come from
    ///     (`PackedWeightStore`), if anywhere: node `i`'s are scope
    ///     `firstScope + i`.
    static func apply(
        _ nodes: [PreparedNode], shapes: inout [TensorShape], isConstant: (Int) -> Bool, graphOutputs: [Int],
        compressedRows: @Sendable (Int) -> CompressedRowFilter?, threadCount: Int = 1,
        weightStore: PackedWeightStore? = nil, firstScope: Int = 0
    ) throws -> [PreparedNode] {
        let versions = try channelMajorVersions(
            of: nodes, isConstant: isConstant, compressedRows: compressedRows, threadCount: threadCount,
            weightStore: weightStore, firstScope: firstScope)
        let selected = worthwhileRegions(nodes, versions: versions, isConstant: isConstant)
        guard !selected.isEmpty else { return nodes }

        var readers: [Int: [Int]] = [:]
        for (index, node) in nodes.enumerated() {
            for tensor in node.inputs { readers[tensor, default: []].append(index) }
        }
        let kept = Set(graphOutputs)
        let entries = channelMajorWriters(nodes, selected: selected, readers: readers, graphOutputs: kept)
        /// A new tensor of `tensor`'s shape.
        func copy(of tensor: Int) -> Int {
            shapes.append(shapes[tensor])
            return shapes.count - 1
        }

        var result: [PreparedNode] = []
        /// Where the channel-major data of a tensor is: its own index when a
        /// region operator wrote it in place, or a copy.
        var channelMajor: [Int: Int] = [:]
        for (index, node) in nodes.enumerated() {
            if let writer = entries[index] {
                result.append((writer, node.inputs, node.outputs))
                channelMajor[node.outputs[0]] = node.outputs[0]
                continue
            }
            guard selected.contains(index), let kernel = versions[index] else {
                result.append(node)
                continue
            }
            var inputs = node.inputs
            for (position, tensor) in inputs.enumerated() where !isConstant(tensor) {
                if let existing = channelMajor[tensor] {
                    inputs[position] = existing
                } else {
                    let converted = copy(of: tensor)
                    result.append((conversion(shapes[tensor], .toChannelMajor), [tensor], [converted]))
                    channelMajor[tensor] = converted
                    inputs[position] = converted
                }
            }
            let output = node.outputs[0]
            let leavesRegion = kept.contains(output)
                || (readers[output] ?? []).contains { !selected.contains($0) }
            let written = leavesRegion ? copy(of: output) : output
            channelMajor[output] = written
            result.append((kernel, inputs, [written]))
            if leavesRegion {
                result.append((conversion(shapes[output], .toChannelLast), [written], [output]))
            }
        }
        return result
    }

    /// The channel-major kernel of each node that has one, by node index:
    /// sparse 1×1 convolutions, the depthwise convolutions the channel-major
    /// kernel supports, and element-wise 4-D ADDs of two activations. None
    /// when the graph has fewer sparse convolutions than a region needs (the
    /// other versions are then not built).
    private static func channelMajorVersions(
        of nodes: [PreparedNode], isConstant: (Int) -> Bool,
        compressedRows: @Sendable (Int) -> CompressedRowFilter?, threadCount: Int,
        weightStore: PackedWeightStore?, firstScope: Int
    ) throws -> [Int: any PreparedKernel] {
        var versions: [Int: any PreparedKernel] = [:]
        let convolutions = nodes.indices.compactMap { index -> (index: Int, conv: Conv2D, filter: Int)? in
            guard nodes[index].outputs.count == 1, let conv = nodes[index].kernel as? Conv2D else { return nil }
            // A convolution's operands start with the input and the filter.
            return (index, conv, nodes[index].inputs[1])
        }
        // A filter's rows are read for one convolution at a time, and only when its lists
        // are built rather than taken from the store.
        let sparse = concurrentMap(convolutions, threadCount: threadCount) { entry in
            PackedWeightStore.withScope(of: weightStore, id: firstScope + entry.index) {
                SparsePointwiseConv2DCHW(
                    entry.conv, maxDensity: SparsePointwiseConv2DCHW.worthwhileDensity(for: entry.conv),
                    filter: { compressedRows(entry.filter) })
            }
        }
        for (entry, kernel) in zip(convolutions, sparse) { versions[entry.index] = try kernel.get() }
        guard versions.count >= minimumSparseConvolutions else { return [:] }
        for (index, node) in nodes.enumerated() where node.outputs.count == 1 {
            switch node.kernel {
            case let depthwise as DepthwiseConv2D:
                versions[index] = PackedWeightStore.withScope(of: weightStore, id: firstScope + index) {
                    DepthwiseConv2DCHW(depthwise)
                }
            case let add as Add where add.isElementwise && add.outputShapes[0].rank == 4
                && !node.inputs.contains(where: isConstant):
                versions[index] = add
            default:
                break
            }
        }
        return versions
    }

    /// The nodes outside the regions that can write their output
    /// channel-major themselves, by node index: convolutions that
    /// `Conv2DToChannelMajor` runs, whose output is read by region operators
    /// only and is not a graph output.
    private static func channelMajorWriters(
        _ nodes: [PreparedNode], selected: Set<Int>, readers: [Int: [Int]], graphOutputs: Set<Int>
    ) -> [Int: any PreparedKernel] {
        var writers: [Int: any PreparedKernel] = [:]
        for (index, node) in nodes.enumerated() where !selected.contains(index) && node.outputs.count == 1 {
            let output = node.outputs[0]
            guard let conv = node.kernel as? Conv2D, !graphOutputs.contains(output),
                  let outputReaders = readers[output], outputReaders.allSatisfy(selected.contains),
                  let writer = Conv2DToChannelMajor(conv)
            else { continue }
            writers[index] = writer
        }
        return writers
    }

    /// The nodes of the regions that hold at least
    /// `minimumSparseConvolutions` sparse convolutions. Two nodes with
    /// channel-major versions are in one region when one reads a tensor the
    /// other writes.
    private static func worthwhileRegions(
        _ nodes: [PreparedNode], versions: [Int: any PreparedKernel], isConstant: (Int) -> Bool
    ) -> Set<Int> {
        var parent = Array(nodes.indices)
        func root(_ node: Int) -> Int {
            var node = node
            while parent[node] != node {
                parent[node] = parent[parent[node]]
                node = parent[node]
            }
            return node
        }
        var producer: [Int: Int] = [:]
        for (index, node) in nodes.enumerated() {
            for tensor in node.outputs { producer[tensor] = index }
        }
        for (index, node) in nodes.enumerated() where versions[index] != nil {
            for tensor in node.inputs where !isConstant(tensor) {
                guard let source = producer[tensor], versions[source] != nil else { continue }
                parent[root(index)] = root(source)
            }
        }
        var sparseCount: [Int: Int] = [:]
        for (index, kernel) in versions where kernel is SparsePointwiseConv2DCHW {
            sparseCount[root(index), default: 0] += 1
        }
        return Set(versions.keys.filter { sparseCount[root($0), default: 0] >= minimumSparseConvolutions })
    }

    /// A conversion of a tensor of `shape`, which the region's operators
    /// guarantee is 4-D.
    private static func conversion(_ shape: TensorShape, _ direction: LayoutConversion.Direction) -> LayoutConversion {
        guard let kernel = LayoutConversion(shape: shape, direction: direction) else {
            preconditionFailure("channel-major region tensors are 4-D, got \(shape)")
        }
        return kernel
    }
}
