import FlatBufferReader
import Tensor

/// An operator as a TFLite model holds it, declared by its kernel: the builtin code (and, for a
/// CUSTOM operator, its custom code and version), the options table it carries, how that
/// table's fields (or the custom operator's FlexBuffer options) are read and checked, which
/// inputs may be absent, and how the kernel is prepared. Adding an operator is one kernel file
/// that conforms, one line in the interpreter's registry (`OperatorRegistry.descriptors`) and
/// its tests; nothing in the model reader, which only verifies the options table against the
/// schema (`BuiltinOptionsFields`).
///
/// Loading an operator of `builtin` runs `prepare(inputs:optionsTable:context:)`: the carried
/// table must be `optionsType` or none (then every field reads as its schema default),
/// `readOptions` reads and checks the fields (through `BuiltinOptionsFields`), and
/// `prepare(inputs:options:context:)` checks the operands and builds the kernel. Every failure
/// is a typed error: `ModelError` for a field that cannot be read or an enum value outside its
/// schema enum, `KernelError` for anything the kernel cannot run.
public protocol OperatorDescriptor: PreparedKernel {
    /// The operator's options, as the kernel takes them.
    associatedtype Options: Sendable
    /// The TFLite builtin operator code, e.g. `.mul`; `.custom` for a custom operator.
    static var builtin: BuiltinOperator { get }
    /// For a custom operator (`builtin` `.custom`), the `custom_code` and operator version it
    /// implements, e.g. MediaPipe's `TransformLandmarks` version 2; nil (the default) for a
    /// builtin one. A model's CUSTOM operator runs with the descriptor of its code, and only at
    /// that version: another version of a custom operator may mean another computation.
    static var custom: CustomOperatorCode? { get }
    /// The `BuiltinOptionsType` member the operator carries (e.g. `BuiltinOptionsType.mul`), 0
    /// when the schema gives it no options table.
    static var optionsType: UInt8 { get }
    /// The input positions at which the model may give -1 (an absent optional input), e.g.
    /// `[2]` for a convolution's bias. None by default.
    static var optionalInputPositions: [Int] { get }
    /// Reads and checks the option fields the kernel needs from `table`.
    static func readOptions(_ table: OptionsTable) throws -> Options
    /// Validates the operands (absent optional inputs dropped) and options; builds the kernel.
    static func prepare(inputs: [Operand], options: Options) throws -> Self
    /// The operator as a load in `context` prepares it. By default the kernel of
    /// `prepare(inputs:options:)`, whatever the context; the weighted ops build their kernel for
    /// the context's instruction set, or only validate it when the load does not read weights.
    static func prepare(inputs: [Operand], options: Options, context: PrepareContext) throws -> PreparedOperator
}

/// The name and version a custom operator's kernel implements (`OperatorDescriptor.custom`).
public struct CustomOperatorCode: Sendable, Hashable {
    /// The operator code's `custom_code`, e.g. `TransformTensorBilinear`.
    public var code: String
    /// The operator code's `version`.
    public var version: Int32

    public init(_ code: String, version: Int32) {
        self.code = code
        self.version = version
    }
}

/// What a load tells every operator it prepares besides its operands and options. Only the
/// weighted ops (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) read it.
public struct PrepareContext: Sendable {
    /// The microkernel family of the kernels that have two.
    public var instructionSet: KernelInstructionSet
    /// Whether a CONV_2D leaves a 1×1 filter stored as compressed rows unpacked, for the
    /// caller to pack (`Conv2D.prepare(inputs:options:instructionSet:defersCompressedRows:)`).
    public var defersCompressedRows: Bool
    /// Whether weights are read and packed. Without, the weighted ops are only validated
    /// (their `validate`, which accepts `ConstantData.unreadFloat32` weights); every other op
    /// is prepared either way, as none reads float constant values at prepare time.
    public var readsWeights: Bool
    /// How a pointwise DEPTHWISE_CONV_2D rounds (`PointwiseDepthwiseRounding`).
    public var pointwiseDepthwiseRounding: PointwiseDepthwiseRounding

    public init(
        instructionSet: KernelInstructionSet = .detected, defersCompressedRows: Bool = false,
        readsWeights: Bool = true, pointwiseDepthwiseRounding: PointwiseDepthwiseRounding = .fused
    ) {
        self.instructionSet = instructionSet
        self.defersCompressedRows = defersCompressedRows
        self.readsWeights = readsWeights
        self.pointwiseDepthwiseRounding = pointwiseDepthwiseRounding
    }
}

/// One operator after load-time preparation.
public enum PreparedOperator: Sendable {
    /// A kernel ready to run.
    case kernel(any PreparedKernel)
    /// A weighted op checked by its `validate` entry point, with no kernel built (the load
    /// does not read weights: `PrepareContext.readsWeights`).
    case validated(ValidatedOperator)

    /// Shapes of the outputs, in output order.
    public var outputShapes: [TensorShape] {
        switch self {
        case .kernel(let kernel): return kernel.outputShapes
        case .validated(let validated): return validated.outputShapes
        }
    }

    /// Multiply-accumulates per invocation.
    public var multiplyAccumulates: Int {
        switch self {
        case .kernel(let kernel): return kernel.multiplyAccumulates
        case .validated(let validated): return validated.multiplyAccumulates
        }
    }
}

/// The options of an operator that has none (no table, or an empty one).
public struct NoOptions: Sendable, Hashable {
    public init() {}
}

extension OperatorDescriptor where Options == NoOptions {
    public static func readOptions(_ table: OptionsTable) throws -> NoOptions { NoOptions() }
}

extension OperatorDescriptor {
    public static var optionalInputPositions: [Int] { [] }
    public static var custom: CustomOperatorCode? { nil }

    /// The operator's name in errors: the custom code of a custom operator, else the builtin
    /// name (e.g. `MUL`).
    public static var name: String { custom?.code ?? builtin.description }

    public static func prepare(inputs: [Operand], options: Options, context: PrepareContext) throws -> PreparedOperator {
        .kernel(try prepare(inputs: inputs, options: options))
    }

    /// Checks the carried table's type, reads the options and prepares the operator for
    /// `context`.
    public static func prepare(
        inputs: [Operand], optionsTable: OptionsTable, context: PrepareContext = PrepareContext()
    ) throws -> PreparedOperator {
        guard optionsTable.type == 0 || optionsTable.type == optionsType else {
            throw KernelError(
                op: name,
                "carries an options table of union type \(optionsTable.type), expected "
                    + (optionsType == 0 ? "none" : "\(optionsType) or none"))
        }
        return try prepare(inputs: inputs, options: readOptions(optionsTable), context: context)
    }
}
