import Kernels

/// One convolution layer of the models, as its kernel sees it: an NHWC input
/// `[1, height, width, inputChannels]` and a constant filter (`[Cout, KH, KW, Cin]`
/// for a convolution, `[1, KH, KW, Cout]` for a depthwise one).
struct LayerShape: Sendable {
    enum Kind: Sendable {
        /// CONV_2D.
        case conv
        /// DEPTHWISE_CONV_2D (depth multiplier 1: outputChannels == inputChannels).
        case depthwise
        /// A 1×1 CONV_2D with a quarter of each output channel's weights
        /// non-zero, run sparse on channel-major tensors
        /// (`SparsePointwiseConv2DCHW`), as in pose_detection.
        case sparsePointwise
        /// DEPTHWISE_CONV_2D on channel-major tensors (`DepthwiseConv2DCHW`),
        /// as between pose_detection's sparse layers.
        case channelMajorDepthwise
    }

    /// The model the layer was taken from (the first one, when several share it).
    let model: String
    let kind: Kind
    /// Input height, in pixels (after any explicit PAD of the model).
    let height: Int
    /// Input width, in pixels.
    let width: Int
    let inputChannels: Int
    let outputChannels: Int
    /// Filter height and width, in pixels.
    let kernel: (height: Int, width: Int)
    /// Vertical and horizontal stride, in input pixels.
    let stride: (vertical: Int, horizontal: Int)
    let padding: Padding
    let activation: FusedActivation
    /// How many layers of exactly this shape `model` has.
    var occurrences: Int
    /// Share of `model`'s multiply-accumulates spent in all `occurrences` of this shape, in percent.
    var shareOfModelMACs: Double
    /// Other models with layers of this shape.
    var alsoIn: [String] = []

    /// A short name: kind, input size and channels, stride, model.
    var name: String {
        let kindName: String
        switch kind {
        case .conv: kindName = kernel == (1, 1) ? "conv1x1" : "conv\(kernel.height)x\(kernel.width)"
        case .depthwise: kindName = "dw\(kernel.height)x\(kernel.width)"
        case .sparsePointwise: kindName = "sparse1x1 CHW"
        case .channelMajorDepthwise: kindName = "dw\(kernel.height)x\(kernel.width) CHW"
        }
        return "\(kindName) \(height)x\(width)x\(inputChannels)->\(outputChannels) s\(stride.vertical) [\(model)]"
    }
}
