/// What this module knows about the operators whose options it decodes: which options union
/// member each carries, where an optional input (-1) may appear, and which option values
/// are valid.
enum OperatorRules {
    /// The `BuiltinOptions` type code an operator of `builtin` must carry (or omit, meaning all
    /// defaults), or nil for operators this module does not decode options for.
    static func optionsType(for builtin: BuiltinOperator) -> UInt8? {
        switch builtin {
        case .add: return BuiltinOptionsType.add
        case .averagePool2D, .maxPool2D, .l2Pool2D: return BuiltinOptionsType.pool2D
        case .concatenation: return BuiltinOptionsType.concatenation
        case .conv2D: return BuiltinOptionsType.conv2D
        case .depthwiseConv2D: return BuiltinOptionsType.depthwiseConv2D
        case .dequantize: return BuiltinOptionsType.dequantize
        case .fullyConnected: return BuiltinOptionsType.fullyConnected
        case .reshape: return BuiltinOptionsType.reshape
        case .densify: return BuiltinOptionsType.densify
        default: return nil
        }
    }

    /// Input positions at which `builtin` accepts -1 (an absent optional input), or nil when
    /// this module does not know the operator (then -1 is accepted at any input position).
    static func optionalInputPositions(for builtin: BuiltinOperator) -> [Int]? {
        switch builtin {
        case .conv2D, .depthwiseConv2D, .fullyConnected: return [2]  // bias
        case .reshape: return [1]  // shape tensor; the options may give the shape instead
        // Ops whose kernels read their own options (OperatorDescriptor) but take no optional input.
        case .logistic, .prelu, .pad, .mean, .resizeBilinear, .depthToSpace: return []
        default: return optionsType(for: builtin) == nil ? nil : []
        }
    }

    /// Checks option values that no kernel can accept (zero strides, dilations, windows; bad
    /// reshape targets; a concatenation axis outside the output's rank).
    /// `outputRank` is the rank of the operator's first output, if it has one.
    static func validate(_ options: BuiltinOptions, outputRank: Int?, where location: @autoclosure () -> String) throws {
        func requirePositive(_ value: Int32, _ name: String) throws {
            guard value >= 1 else {
                throw ModelError.invalidOptions(what: "\(location()): \(name) is \(value), must be >= 1")
            }
        }
        switch options {
        case let .conv2D(o):
            try requirePositive(o.strideW, "stride_w")
            try requirePositive(o.strideH, "stride_h")
            try requirePositive(o.dilationWFactor, "dilation_w_factor")
            try requirePositive(o.dilationHFactor, "dilation_h_factor")
        case let .depthwiseConv2D(o):
            try requirePositive(o.strideW, "stride_w")
            try requirePositive(o.strideH, "stride_h")
            try requirePositive(o.dilationWFactor, "dilation_w_factor")
            try requirePositive(o.dilationHFactor, "dilation_h_factor")
            guard o.depthMultiplier >= 0 else {
                throw ModelError.invalidOptions(what: "\(location()): depth_multiplier is \(o.depthMultiplier), must be >= 0")
            }
        case let .pool2D(o):
            try requirePositive(o.strideW, "stride_w")
            try requirePositive(o.strideH, "stride_h")
            try requirePositive(o.filterWidth, "filter_width")
            try requirePositive(o.filterHeight, "filter_height")
        case let .reshape(o):
            guard let shape = o.newShape else { return }
            guard shape.allSatisfy({ $0 >= -1 }), shape.filter({ $0 == -1 }).count <= 1 else {
                throw ModelError.invalidOptions(
                    what: "\(location()): new_shape \(shape) must hold dimensions >= 0 and at most one -1")
            }
        case let .concatenation(o):
            guard let rank = outputRank else { return }
            // rank is a vector length (< 2^32) and axis an Int32: both fit in Int without overflow.
            guard Int(o.axis) >= -rank, Int(o.axis) < max(rank, 1) else {
                throw ModelError.invalidOptions(what: "\(location()): axis \(o.axis) is outside an output of rank \(rank)")
            }
        case .none, .fullyConnected, .add, .dequantize, .densify, .other:
            return
        }
    }
}
