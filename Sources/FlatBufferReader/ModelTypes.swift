import Tensor

/// One entry of the model's operator-code table, referenced by `OperatorInfo.opcodeIndex`.
public struct OperatorCode: Sendable, Equatable {
    /// `max(deprecated_builtin_code, builtin_code)`, as TFLite resolves it; never negative.
    public let builtin: BuiltinOperator
    /// The custom operator's name; required when `builtin` is CUSTOM.
    public let customCode: String?
    /// Operator version (schema default 1).
    public let version: Int32

    /// The operator's name: the custom code of a CUSTOM operator (e.g.
    /// `TransformTensorBilinear`), else the builtin name (e.g. `CONV_2D`).
    public var name: String { builtin == .custom ? customCode ?? builtin.description : builtin.description }
}

/// Where a buffer's bytes lie in the model file. Validated at load to lie inside the file.
public struct BufferRef: Sendable, Equatable {
    /// Byte range in the file; empty for tensors without constant data.
    public let range: Range<Int>
}

/// A named metadata entry, whose content is buffer `buffer`.
public struct Metadata: Sendable, Equatable {
    public let name: String?
    /// Index into `TFLiteModel.buffers`, validated at load.
    public let buffer: Int
}

/// Index metadata for one dimension of a sparse tensor, in traversal order.
public struct DimensionMetadata: Sendable, Equatable {
    public enum Format: Sendable, Equatable {
        /// Every coordinate is stored; the dimension has `denseSize` of them.
        case dense
        /// Compressed sparse row: `arraySegments[i]..<arraySegments[i + 1]` indexes the
        /// entries of `arrayIndices` that belong to element `i` of the previous dimension.
        case sparseCSR
    }

    public let format: Format
    /// Size of a dense dimension (schema default 0; unused for sparse dimensions).
    public let denseSize: Int32
    /// CSR segment starts, one more than the elements of the previous dimension; empty for
    /// dense dimensions. Stored as int32, uint16 or uint8 in the file and read there.
    public let arraySegments: IndexList
    /// CSR coordinates of the stored elements along this dimension; empty for dense
    /// dimensions. Read in the file, like `arraySegments`.
    public let arrayIndices: IndexList
}

/// How a sparse constant tensor's values are laid out (TFLite's variant of the TACO format).
/// For a tensor of rank `n` with a `k`-dimensional block, `traversalOrder` has `n + k`
/// entries: a permutation of `0..<n` followed by a permutation of `n..<n + k`.
public struct SparsityParameters: Sendable, Equatable {
    /// Order in which the dense dimensions (and then block dimensions) are traversed.
    public let traversalOrder: [Int32]
    /// For each block dimension `n + j`, the dense dimension it subdivides; empty if not block-sparse.
    public let blockMap: [Int32]
    /// One entry per traversed dimension, in traversal order.
    public let dimensionMetadata: [DimensionMetadata]
    /// Number of values stored in the tensor's buffer, computed from the metadata at load.
    public let valueCount: Int
}

/// A tensor of a subgraph.
public struct TensorInfo: Sendable, Equatable {
    public let name: String
    public let type: TensorType
    /// The static shape, e.g. `[N, H, W, C]` for images; every dimension >= 0 (validated).
    public let shape: [Int32]
    /// The shape with unknown dimensions as -1, when the model records it.
    public let shapeSignature: [Int32]?
    /// Index into `TFLiteModel.buffers`; a tensor whose buffer is empty has no constant data.
    public let buffer: Int
    public let isVariable: Bool
    /// True when the tensor has quantization scales, zero points or custom details.
    public let hasQuantization: Bool
    /// Present for sparse constant tensors (fed to DENSIFY).
    public let sparsity: SparsityParameters?
    /// Product of `shape`, 1 for a scalar; validated to be below 2^31.
    public let elementCount: Int
}

/// One operator of a subgraph, in execution order.
public struct OperatorInfo: Sendable, Equatable {
    /// Index into `TFLiteModel.operatorCodes`, validated.
    public let opcodeIndex: Int
    /// Tensor indices into the subgraph's `tensors`; -1 marks an absent optional input.
    public let inputs: [Int]
    /// Tensor indices into the subgraph's `tensors`; never -1.
    public let outputs: [Int]
    /// The `BuiltinOptions` union type the operator carries (0 when it carries no table), whose
    /// fields the operator's kernel reads (`TFLiteModel.optionsTable(of:location:)`).
    public let optionsType: UInt8
    /// Where the options table starts (its vtable checked to lie inside the model), nil when absent.
    let optionsPosition: Int?
    /// Where the operator's `custom_options` bytes lie in the model file (checked to lie inside
    /// it), nil when it carries none. A CUSTOM operator's options: a FlexBuffer map for
    /// MediaPipe's operators (`custom_options_format` FLEXBUFFERS, the only value the schema
    /// allows), read through `OptionsTable.customOptions()`.
    public let customOptions: Range<Int>?
}

/// A subgraph: tensors and the operators connecting them. Subgraph 0 is the main graph.
public struct SubGraph: Sendable, Equatable {
    public let name: String?
    public let tensors: [TensorInfo]
    /// Indices of the graph's input tensors.
    public let inputs: [Int]
    /// Indices of the graph's output tensors.
    public let outputs: [Int]
    /// Operators in an order where each input is a constant, a graph input, a variable or the
    /// output of an earlier operator (validated at load).
    public let operators: [OperatorInfo]
}
