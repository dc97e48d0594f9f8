import Kernels
import Tensor

/// A kernel prepared for one `LayerShape`, with its own input, filter, bias and
/// output memory filled with deterministic values.
final class PreparedLayer {
    let shape: LayerShape
    let kernel: any PreparedKernel
    /// Floating-point operations of one run: 2 × multiply-accumulates (for a
    /// sparse convolution, of its non-zero weights only).
    let flops: Int
    private let io: KernelIO
    /// The memory `io` points into, kept alive with it.
    private let buffers: [AlignedBuffer]

    /// Prepares the layer's kernel through the op's own `prepare`; throws
    /// `KernelError` if the shape is one the kernel rejects.
    init(_ shape: LayerShape) throws {
        self.shape = shape
        var generator = ValueGenerator(seed: UInt64(shape.height * 1_000_003 + shape.inputChannels))
        let inputShape = try TensorShape([1, shape.height, shape.width, shape.inputChannels])
        let filterShape: TensorShape
        switch shape.kind {
        case .conv, .sparsePointwise:
            filterShape = try TensorShape(
                [shape.outputChannels, shape.kernel.height, shape.kernel.width, shape.inputChannels])
        case .depthwise, .channelMajorDepthwise:
            filterShape = try TensorShape([1, shape.kernel.height, shape.kernel.width, shape.outputChannels])
        }
        let biasShape = try TensorShape([shape.outputChannels])
        var filter = generator.values(count: filterShape.elementCount, scale: 0.1)
        if shape.kind == .sparsePointwise {
            // A quarter of each output channel's weights kept, spread as the
            // model's are: every fourth position, shifted by the channel.
            for (i, _) in filter.enumerated() where (i + i / shape.inputChannels) % 4 != 0 { filter[i] = 0 }
        }
        let bias = generator.values(count: shape.outputChannels, scale: 0.1)
        let operands = [
            Operand(shape: inputShape),
            Operand(shape: filterShape, constant: .float32(filter)),
            Operand(shape: biasShape, constant: .float32(bias)),
        ]
        let convolution = {
            try Conv2D.prepare(inputs: operands, options: .init(
                padding: shape.padding, strideH: shape.stride.vertical, strideW: shape.stride.horizontal,
                activation: shape.activation))
        }
        let depthwise = {
            try DepthwiseConv2D.prepare(inputs: operands, options: .init(
                padding: shape.padding, strideH: shape.stride.vertical, strideW: shape.stride.horizontal,
                depthMultiplier: shape.outputChannels / shape.inputChannels, activation: shape.activation))
        }
        switch shape.kind {
        case .conv:
            kernel = try convolution()
            flops = 2 * kernel.multiplyAccumulates
        case .depthwise:
            kernel = try depthwise()
            flops = 2 * kernel.multiplyAccumulates
        case .sparsePointwise:
            guard let sparse = SparsePointwiseConv2DCHW(try convolution()) else {
                throw KernelError(op: shape.name, "no sparse kernel for this shape")
            }
            kernel = sparse
            flops = Int((2 * Double(sparse.multiplyAccumulates) * sparse.density).rounded())
        case .channelMajorDepthwise:
            guard let planes = DepthwiseConv2DCHW(try depthwise()) else {
                throw KernelError(op: shape.name, "no channel-major depthwise kernel for this shape")
            }
            kernel = planes
            flops = 2 * kernel.multiplyAccumulates
        }

        let input = AlignedBuffer(generator.values(count: inputShape.elementCount, scale: 1))
        let filterBuffer = AlignedBuffer(filter)
        let biasBuffer = AlignedBuffer(bias)
        let output = AlignedBuffer(count: kernel.outputShapes[0].elementCount)
        // Scratch for the most threads any benchmark runs the layer on (k×k convolutions gather into it).
        let workspace = AlignedBuffer(count: try kernel.workspaceSize(threadCount: threadCounts.max() ?? 1))
        buffers = [input, filterBuffer, biasBuffer, output, workspace]
        io = KernelIO(
            inputs: [UnsafePointer(input.baseAddress), UnsafePointer(filterBuffer.baseAddress),
                     UnsafePointer(biasBuffer.baseAddress)],
            outputs: [output.baseAddress], workspace: workspace.buffer)
    }

    /// Runs the fast kernel once over `runner`'s threads.
    func run(on runner: ParallelRunner) {
        kernel.run(io, runner: runner)
    }
}

/// Deterministic values in `[-scale, scale)` from a 64-bit linear congruential
/// generator, so every run benchmarks the same numbers.
private struct ValueGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func values(count: Int, scale: Float) -> [Float] {
        (0..<count).map { _ in
            // Wrapping arithmetic is the generator's definition.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Float(state >> 40) / Float(1 << 24)  // [0, 1)
            return (2 * unit - 1) * scale
        }
    }
}
