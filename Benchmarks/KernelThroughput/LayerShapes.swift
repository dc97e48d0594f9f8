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
    let occurrences: Int
    /// Share of `model`'s multiply-accumulates spent in all `occurrences` of this shape, in percent.
    let shareOfModelMACs: Double
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

extension LayerShape {
    /// For each model: its first (stem) convolution, its three 1×1 convolution
    /// shapes with the most multiply-accumulates and its two heaviest depthwise
    /// shapes; a shape shared by several models is listed once.
    ///
    /// Read from the six `models/*.tflite` files (CONV_2D and DEPTHWISE_CONV_2D
    /// input and filter shapes and options). 1×1 convolutions are 74–90 % of each
    /// model's multiply-accumulates, depthwise ones 8–19 %.
    static let all: [LayerShape] = [
        LayerShape(model: "pose_detection", kind: .conv, height: 226, width: 226,
            inputChannels: 3, outputChannels: 24,
            kernel: (3, 3), stride: (2, 2), padding: .valid, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 1.9),
        LayerShape(model: "pose_detection", kind: .conv, height: 14, width: 14,
            inputChannels: 112, outputChannels: 672,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 3, shareOfModelMACs: 10.3, alsoIn: ["hand_landmark_full"]),
        LayerShape(model: "pose_detection", kind: .conv, height: 7, width: 7,
            inputChannels: 192, outputChannels: 1152,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 4, shareOfModelMACs: 10.1, alsoIn: ["hand_landmark_full"]),
        LayerShape(model: "pose_detection", kind: .conv, height: 14, width: 14,
            inputChannels: 1152, outputChannels: 192,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 10.1),
        LayerShape(model: "pose_detection", kind: .depthwise, height: 14, width: 14,
            inputChannels: 672, outputChannels: 672,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 2, shareOfModelMACs: 1.5, alsoIn: ["hand_landmark_full"]),
        LayerShape(model: "pose_detection", kind: .depthwise, height: 28, width: 28,
            inputChannels: 240, outputChannels: 240,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 1.1, alsoIn: ["hand_landmark_full"]),
        LayerShape(model: "pose_landmark_full", kind: .conv, height: 258, width: 258,
            inputChannels: 3, outputChannels: 24,
            kernel: (3, 3), stride: (2, 2), padding: .valid, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 2.7),
        LayerShape(model: "pose_landmark_full", kind: .conv, height: 16, width: 16,
            inputChannels: 88, outputChannels: 528,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 3, shareOfModelMACs: 9.2),
        LayerShape(model: "pose_landmark_full", kind: .conv, height: 8, width: 8,
            inputChannels: 144, outputChannels: 864,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 4, shareOfModelMACs: 8.2),
        LayerShape(model: "pose_landmark_full", kind: .conv, height: 64, width: 64,
            inputChannels: 24, outputChannels: 144,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 2, shareOfModelMACs: 7.3),
        LayerShape(model: "pose_landmark_full", kind: .depthwise, height: 256, width: 256,
            inputChannels: 8, outputChannels: 8,
            kernel: (3, 3), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 2, shareOfModelMACs: 2.4),
        LayerShape(model: "pose_landmark_full", kind: .depthwise, height: 16, width: 16,
            inputChannels: 528, outputChannels: 528,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 2, shareOfModelMACs: 1.8),
        LayerShape(model: "palm_detection_full", kind: .conv, height: 192, width: 192,
            inputChannels: 3, outputChannels: 32,
            kernel: (5, 5), stride: (2, 2), padding: .same, activation: .none,
            occurrences: 1, shareOfModelMACs: 6.6, alsoIn: ["palm_detection_lite"]),
        LayerShape(model: "palm_detection_full", kind: .conv, height: 12, width: 12,
            inputChannels: 256, outputChannels: 256,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .none,
            occurrences: 7, shareOfModelMACs: 19.6, alsoIn: ["palm_detection_lite"]),
        LayerShape(model: "palm_detection_full", kind: .conv, height: 24, width: 24,
            inputChannels: 128, outputChannels: 128,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .none,
            occurrences: 6, shareOfModelMACs: 16.8, alsoIn: ["palm_detection_lite"]),
        LayerShape(model: "palm_detection_full", kind: .conv, height: 96, width: 96,
            inputChannels: 32, outputChannels: 32,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .none,
            occurrences: 4, shareOfModelMACs: 11.2, alsoIn: ["palm_detection_lite"]),
        LayerShape(model: "palm_detection_full", kind: .depthwise, height: 96, width: 96,
            inputChannels: 32, outputChannels: 32,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .none,
            occurrences: 4, shareOfModelMACs: 8.7, alsoIn: ["palm_detection_lite"]),
        LayerShape(model: "palm_detection_full", kind: .depthwise, height: 48, width: 48,
            inputChannels: 64, outputChannels: 64,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .none,
            occurrences: 4, shareOfModelMACs: 4.4, alsoIn: ["palm_detection_lite"]),
        LayerShape(model: "hand_landmark_full", kind: .conv, height: 224, width: 224,
            inputChannels: 3, outputChannels: 24,
            kernel: (3, 3), stride: (2, 2), padding: .same, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 2.5, alsoIn: ["hand_landmark_lite"]),
        LayerShape(model: "hand_landmark_full", kind: .conv, height: 7, width: 7,
            inputChannels: 1152, outputChannels: 192,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .none,
            occurrences: 3, shareOfModelMACs: 9.8),
        LayerShape(model: "hand_landmark_lite", kind: .conv, height: 7, width: 7,
            inputChannels: 112, outputChannels: 672,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 4, shareOfModelMACs: 10.1),
        LayerShape(model: "hand_landmark_lite", kind: .conv, height: 14, width: 14,
            inputChannels: 64, outputChannels: 384,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 3, shareOfModelMACs: 9.9),
        LayerShape(model: "hand_landmark_lite", kind: .conv, height: 112, width: 112,
            inputChannels: 16, outputChannels: 64,
            kernel: (1, 1), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 8.8),
        LayerShape(model: "hand_landmark_lite", kind: .depthwise, height: 14, width: 14,
            inputChannels: 384, outputChannels: 384,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 2, shareOfModelMACs: 2.6),
        LayerShape(model: "hand_landmark_lite", kind: .depthwise, height: 28, width: 28,
            inputChannels: 144, outputChannels: 144,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .relu6,
            occurrences: 1, shareOfModelMACs: 1.9),
    ]
}

extension LayerShape {
    /// pose_detection's heaviest layers as its channel-major region runs
    /// them: sparse 1×1 convolutions (25 % of the weights non-zero; their
    /// rates count the non-zero multiply-accumulates only), and the depthwise
    /// convolutions between them, with every family.
    static let channelMajor: [LayerShape] = sparsePointwise + channelMajorDepthwise

    /// pose_detection's heaviest sparse 1×1 convolutions.
    static let sparsePointwise: [LayerShape] = [
        LayerShape(model: "pose_detection", kind: .sparsePointwise, height: 14, width: 14,
            inputChannels: 1152, outputChannels: 192,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .none,
            occurrences: 1, shareOfModelMACs: 10.1),
        LayerShape(model: "pose_detection", kind: .sparsePointwise, height: 14, width: 14,
            inputChannels: 112, outputChannels: 672,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .relu,
            occurrences: 3, shareOfModelMACs: 10.3),
        LayerShape(model: "pose_detection", kind: .sparsePointwise, height: 7, width: 7,
            inputChannels: 192, outputChannels: 1152,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .relu,
            occurrences: 4, shareOfModelMACs: 10.1),
        LayerShape(model: "pose_detection", kind: .sparsePointwise, height: 56, width: 56,
            inputChannels: 24, outputChannels: 144,
            kernel: (1, 1), stride: (1, 1), padding: .valid, activation: .relu,
            occurrences: 2, shareOfModelMACs: 5.0),
    ]

    /// The channel-major depthwise convolutions between them.
    static let channelMajorDepthwise: [LayerShape] = [
        LayerShape(model: "pose_detection", kind: .channelMajorDepthwise, height: 7, width: 7,
            inputChannels: 1152, outputChannels: 1152,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .none,
            occurrences: 3, shareOfModelMACs: 1.0),
        LayerShape(model: "pose_detection", kind: .channelMajorDepthwise, height: 14, width: 14,
            inputChannels: 672, outputChannels: 672,
            kernel: (5, 5), stride: (1, 1), padding: .same, activation: .none,
            occurrences: 2, shareOfModelMACs: 1.5),
        LayerShape(model: "pose_detection", kind: .channelMajorDepthwise, height: 56, width: 56,
            inputChannels: 144, outputChannels: 144,
            kernel: (3, 3), stride: (1, 1), padding: .same, activation: .none,
            occurrences: 1, shareOfModelMACs: 1.0),
    ]
}
