import FlatBufferReader
import Tensor

/// An operator as a TFLite model holds it, declared by its kernel: the builtin code, the
/// options table it carries, how that table's fields are read and checked, and how the kernel
/// is prepared. A kernel that conforms needs one line in the interpreter's registry
/// (`OperatorRegistry.descriptors`) and nothing in the model reader.
///
/// Loading an operator of `builtin` runs `prepare(inputs:optionsTable:)`: the carried table must
/// be `optionsType` or none (then every field reads as its schema default), `readOptions` reads
/// and checks the fields, `prepare(inputs:options:)` checks the operands and builds the kernel.
/// Every failure is a typed error: `ModelError` for a field that cannot be read or an enum value
/// outside its schema enum, `KernelError` for anything the kernel cannot run.
public protocol OperatorDescriptor: PreparedKernel {
    /// The operator's options, as the kernel takes them.
    associatedtype Options: Sendable
    /// The TFLite builtin operator code, e.g. `.mul`.
    static var builtin: BuiltinOperator { get }
    /// The `BuiltinOptionsType` member the operator carries (e.g. `BuiltinOptionsType.mul`), 0
    /// when the schema gives it no options table.
    static var optionsType: UInt8 { get }
    /// Reads and checks the option fields the kernel needs from `table`.
    static func readOptions(_ table: OptionsTable) throws -> Options
    /// Validates the operands (absent optional inputs dropped) and options; builds the kernel.
    static func prepare(inputs: [Operand], options: Options) throws -> Self
}

/// The options of an operator that has none (no table, or an empty one).
public struct NoOptions: Sendable, Hashable {
    public init() {}
}

extension OperatorDescriptor where Options == NoOptions {
    public static func readOptions(_ table: OptionsTable) throws -> NoOptions { NoOptions() }
}

extension OperatorDescriptor {
    /// Checks the carried table's type, reads the options and prepares the kernel.
    public static func prepare(inputs: [Operand], optionsTable: OptionsTable) throws -> any PreparedKernel {
        guard optionsTable.type == 0 || optionsTable.type == optionsType else {
            throw KernelError(
                op: builtin.description,
                "carries an options table of union type \(optionsTable.type), expected "
                    + (optionsType == 0 ? "none" : "\(optionsType) or none"))
        }
        return try prepare(inputs: inputs, options: readOptions(optionsTable))
    }
}

extension FusedActivation {
    /// The activation a `fused_activation_function` field names. Throws `KernelError` for TANH
    /// and SIGN_BIT, which no kernel here fuses.
    public init(_ value: ActivationFunction, op: String) throws {
        switch value {
        case .none: self = .none
        case .relu: self = .relu
        case .reluN1To1: self = .reluN1To1
        case .relu6: self = .relu6
        case .tanh, .signBit:
            throw KernelError(op: op, "fused activation \(value) is not supported")
        }
    }
}
