import BenchmarkSupport
import FlatBufferReader
import Kernels

/// The layers `KernelThroughput` times, read from the six models' `.tflite` files, so that
/// they are the layers the models run (and the operator sweep of the tests covers), not a
/// copy kept by hand.
enum ModelLayers {
    /// For each model, in `ModelFiles.names` order: its first (stem) convolution, its three
    /// 1×1 convolution shapes with the most multiply-accumulates and its two heaviest
    /// depthwise shapes, all as the dense NHWC kernels run them; a shape another model
    /// listed already adds that model to the earlier entry's `alsoIn`.
    /// - Throws: `MissingModelError` or the reader's error when a model cannot be read.
    static func dense() throws -> [LayerShape] {
        var listed: [LayerShape] = []
        for model in ModelFiles.names {
            let layers = try layers(of: model, channelMajor: false)
            guard let stem = layers.first(where: { $0.kind == .conv }) else { continue }
            let heaviest = heaviestShapes(layers)
            let pointwise = heaviest.filter { $0.kind == .conv && $0.kernel == (1, 1) }.prefix(3)
            let depthwise = heaviest.filter { $0.kind == .depthwise }.prefix(2)
            for shape in [shapeOf(stem, in: heaviest)] + pointwise + depthwise {
                if let earlier = listed.firstIndex(where: { $0.sameLayer(as: shape) }) {
                    if listed[earlier].model != model, !listed[earlier].alsoIn.contains(model) {
                        listed[earlier].alsoIn.append(model)
                    }
                } else {
                    listed.append(shape)
                }
            }
        }
        return listed
    }

    /// pose_detection's channel-major region as the landmarkers run it: its four heaviest
    /// sparse 1×1 convolutions (filters the file stores sparse, behind a DENSIFY) and its three
    /// heaviest depthwise convolutions that read or feed one of its sparse convolutions.
    static func channelMajor() throws -> [LayerShape] {
        let layers = try layers(of: "pose_detection", channelMajor: true)
        let heaviest = heaviestShapes(layers)
        let sparse = heaviest.filter { $0.kind == .sparsePointwise }.prefix(4)
        let depthwise = heaviest.filter { $0.kind == .channelMajorDepthwise }.prefix(3)
        return Array(sparse + depthwise)
    }

    /// Every CONV_2D and DEPTHWISE_CONV_2D of `model`'s first subgraph, in execution order,
    /// one `LayerShape` each (occurrences 1; `shareOfModelMACs` its own share of the model's
    /// convolution multiply-accumulates). With `channelMajor`, a 1×1 convolution whose filter
    /// comes from a DENSIFY is `.sparsePointwise`, and a depthwise convolution whose input
    /// comes from one or whose output goes to one is `.channelMajorDepthwise`. A convolution
    /// whose options its kernel refuses (e.g. a fused TANH) is left out.
    private static func layers(of model: String, channelMajor: Bool) throws -> [LayerShape] {
        let file = try TFLiteModel(contentsOfFile: try ModelFiles.path(of: model))
        guard let graph = file.subgraphs.first else { return [] }
        let builtins = graph.operators.map { file.operatorCodes[$0.opcodeIndex].builtin }
        var producer: [Int: Int] = [:]
        var consumers: [Int: [Int]] = [:]
        for (index, op) in graph.operators.enumerated() {
            for output in op.outputs { producer[output] = index }
            for input in op.inputs where input >= 0 { consumers[input, default: []].append(index) }
        }
        /// Whether operator `index` is a 1×1 convolution with a filter the file stores sparse:
        /// a DENSIFY's output, maybe through a DEQUANTIZE (float16 weights).
        func isSparsePointwise(_ index: Int) -> Bool {
            let op = graph.operators[index]
            guard builtins[index] == .conv2D, op.inputs.count > 1, var source = producer[op.inputs[1]]
            else { return false }
            if builtins[source] == .dequantize, let densify = producer[graph.operators[source].inputs[0]] {
                source = densify
            }
            let filter = graph.tensors[op.inputs[1]].shape
            return builtins[source] == .densify && filter.count == 4 && filter[1] == 1 && filter[2] == 1
        }
        var layers: [LayerShape] = []
        for (index, op) in graph.operators.enumerated() {
            // The options as the kernels read them.
            let table = file.optionsTable(of: op, location: "\(model) operator \(index) options")
            let padding: Padding, stride: (Int, Int), activation: FusedActivation
            let kind: LayerShape.Kind
            switch builtins[index] {
            case .conv2D:
                guard let options = try? Conv2D.readOptions(table) else { continue }
                (padding, activation) = (options.padding, options.activation)
                stride = (options.strideH, options.strideW)
                kind = channelMajor && isSparsePointwise(index) ? .sparsePointwise : .conv
            case .depthwiseConv2D:
                guard let options = try? DepthwiseConv2D.readOptions(table) else { continue }
                (padding, activation) = (options.padding, options.activation)
                stride = (options.strideH, options.strideW)
                let neighbours = [producer[op.inputs[0]]].compactMap { $0 } + (consumers[op.outputs[0]] ?? [])
                kind = channelMajor && neighbours.contains(where: isSparsePointwise) ? .channelMajorDepthwise : .depthwise
            default:
                continue
            }
            let input = graph.tensors[op.inputs[0]].shape.map(Int.init)     // [1, H, W, Cin]
            let filter = graph.tensors[op.inputs[1]].shape.map(Int.init)    // [Cout, KH, KW, Cin] or [1, KH, KW, Cout]
            let output = graph.tensors[op.outputs[0]].shape.map(Int.init)   // [1, OH, OW, Cout]
            guard input.count == 4, filter.count == 4, output.count == 4 else { continue }
            let outputChannels = kind == .conv || kind == .sparsePointwise ? filter[0] : filter[3]
            let perOutput = filter[1] * filter[2] * (kind == .conv || kind == .sparsePointwise ? input[3] : 1)
            let macs = output[1] * output[2] * outputChannels * perOutput
            layers.append(LayerShape(
                model: model, kind: kind, height: input[1], width: input[2],
                inputChannels: input[3], outputChannels: outputChannels,
                kernel: (filter[1], filter[2]), stride: stride,
                padding: padding, activation: activation,
                occurrences: 1, shareOfModelMACs: Double(macs)))
        }
        // `shareOfModelMACs` held each layer's multiply-accumulates: now its share in percent.
        let total = layers.reduce(0) { $0 + $1.shareOfModelMACs }
        for index in layers.indices { layers[index].shareOfModelMACs *= 100 / total }
        return layers
    }

    /// The layers grouped by shape (occurrences and shares summed), heaviest first.
    private static func heaviestShapes(_ layers: [LayerShape]) -> [LayerShape] {
        var groups: [LayerShape] = []
        for layer in layers {
            if let index = groups.firstIndex(where: { $0.sameLayer(as: layer) }) {
                groups[index].occurrences += 1
                groups[index].shareOfModelMACs += layer.shareOfModelMACs
            } else {
                groups.append(layer)
            }
        }
        return groups.sorted { $0.shareOfModelMACs > $1.shareOfModelMACs }
    }

    /// `layer`'s group among `groups` (the same shape, with its occurrences and share).
    private static func shapeOf(_ layer: LayerShape, in groups: [LayerShape]) -> LayerShape {
        groups.first { $0.sameLayer(as: layer) } ?? layer
    }
}

extension LayerShape {
    /// Whether `other` is the same computation: kind, sizes, filter, stride, padding and activation.
    func sameLayer(as other: LayerShape) -> Bool {
        kind == other.kind && height == other.height && width == other.width
            && inputChannels == other.inputChannels && outputChannels == other.outputChannels
            && kernel == other.kernel && stride == other.stride && padding == other.padding
            && activation == other.activation
    }
}
