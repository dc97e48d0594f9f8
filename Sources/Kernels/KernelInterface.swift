import Tensor

/// The constant contents of an operand, known at prepare (load) time.
public enum ConstantData: Sendable {
    case float32([Float])
    /// A float constant stored as IEEE 754 half precision (a float16 tensor
    /// of the file, which a DEQUANTIZE widens), read in place: its values
    /// are these halves widened to float32, exactly (`floatValues`). The ops
    /// that pack float16 weight panels (CONV_2D, FULLY_CONNECTED) pack the
    /// halves as they are, without a float32 copy or any other copy. The
    /// bytes are borrowed: valid only during the call that receives them
    /// (a kernel's `prepare`, which keeps only what it packs or copies).
    case float16(Float16Bytes)
    /// A float constant that a DENSIFY rebuilds from a tensor stored as
    /// compressed rows: its values are those rows densified (`floatValues`).
    /// CONV_2D and FULLY_CONNECTED pack their weights from the stored values
    /// alone.
    case compressedRows(CompressedRowFilter)
    case int32([Int32])
    /// A float32 constant of `count` values that were not read. Only the
    /// `validate` entry points of the weighted ops (CONV_2D, DEPTHWISE_CONV_2D,
    /// FULLY_CONNECTED) accept it in place of weights and bias: they check
    /// shapes, options and counts without reading or packing any value. Every
    /// other op ignores the values of its float constants at prepare time.
    case unreadFloat32(count: Int)

    /// The values as integers (for shape, axis and padding operands), or nil
    /// if the constant is not int32.
    public var int32Values: [Int32]? {
        if case .int32(let values) = self { return values }
        return nil
    }

    /// The values as floats (weights, biases), float16 ones widened exactly,
    /// or nil if the constant is not a float one or was not read.
    public var floatValues: [Float]? {
        switch self {
        case .float32(let values): return values
        case .float16(let halves): return Dequantize.float16ToFloat32(halves)
        case .compressedRows(let filter): return filter.densified()
        case .int32, .unreadFloat32: return nil
        }
    }
}

/// Float16 values as a model file stores them, read in place: little-endian
/// IEEE 754 halves, 2 bytes each, at any alignment. The memory belongs to the
/// caller, which keeps it valid and unchanged only during the call it passes
/// this to; the receiver copies or packs what it keeps.
public struct Float16Bytes: @unchecked Sendable {
    /// The halves' bytes (an even count).
    public let bytes: UnsafeRawBufferPointer

    /// The halves in `bytes`. - Precondition: `bytes.count` is even.
    public init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count % 2 == 0, "float16 data has an odd byte count \(bytes.count)")
        self.bytes = bytes
    }

    /// The number of values.
    public var count: Int { bytes.count / 2 }
}

/// What a weighted op's `validate` establishes without building its kernel:
/// the output shapes and cost its `prepare` would give for the same operands
/// and options (and it throws whatever `prepare` would throw).
public struct ValidatedOperator: Sendable {
    /// Shapes of the outputs, in output order.
    public let outputShapes: [TensorShape]
    /// Multiply-accumulates per invocation.
    public let multiplyAccumulates: Int

    public init(outputShapes: [TensorShape], multiplyAccumulates: Int) {
        self.outputShapes = outputShapes
        self.multiplyAccumulates = multiplyAccumulates
    }
}

/// What a kernel knows about one input at prepare time: its shape and, for a
/// constant (weights, bias, shape operands), its values.
public struct Operand: Sendable {
    public var shape: TensorShape
    public var constant: ConstantData?

    public init(shape: TensorShape, constant: ConstantData? = nil) {
        self.shape = shape
        self.constant = constant
    }
}

/// A shape, option or operand that a kernel cannot run with. Raised at
/// prepare time, never from inside a kernel.
public struct KernelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The builtin op name, e.g. "CONV_2D".
    public var op: String
    /// What is wrong, in words.
    public var message: String

    public init(op: String, _ message: String) {
        self.op = op
        self.message = message
    }

    public var description: String { "\(op): \(message)" }
}

/// Pointers to an operator's tensors for one invocation, in the operator's
/// input and output order. All tensors are float32, dense, row-major (NHWC
/// for 4-D). Constant inputs point at their folded float32 values, except for
/// kernels whose `readsConstantInputs` is false (see there).
/// Every pointer may be read one `SIMD16<Float>` past its last element.
public struct KernelIO: @unchecked Sendable {
    public var inputs: [UnsafePointer<Float>]
    public var outputs: [UnsafeMutablePointer<Float>]
    /// Scratch memory of at least `workspaceSize(threadCount:)` floats, shared by
    /// all operators (they run one after another); empty when none was asked for.
    public var workspace: UnsafeMutableBufferPointer<Float>

    public init(
        inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>],
        workspace: UnsafeMutableBufferPointer<Float> = UnsafeMutableBufferPointer(start: nil, count: 0)
    ) {
        self.inputs = inputs
        self.outputs = outputs
        self.workspace = workspace
    }
}

/// An operator whose options and operand shapes have been validated and whose
/// constant operands have been packed. Created by each op's `prepare`.
///
/// Running it performs no allocation and cannot fail: everything that could
/// go wrong was checked when it was prepared.
public protocol PreparedKernel: Sendable {
    /// The op name, e.g. "CONV_2D".
    var opName: String { get }
    /// Shapes of the outputs, in output order.
    var outputShapes: [TensorShape] { get }
    /// Multiply-accumulates per invocation (0 for ops that do none).
    var multiplyAccumulates: Int { get }
    /// Runs the plain reference kernel on the calling thread.
    func runReference(_ io: KernelIO)
    /// Runs the fastest kernel available, splitting work over `runner`.
    /// Results are bit-identical for every thread count.
    func run(_ io: KernelIO, runner: ParallelRunner)
    /// Floats of scratch memory `run` needs with `threadCount` threads.
    func workspaceSize(threadCount: Int) throws -> Int
    /// Whether the kernels read constant inputs through `KernelIO.inputs`. Kernels that
    /// copied (and packed) their constants at prepare time return false; their constant
    /// input pointers then point at a placeholder, so no second copy of the weights is kept.
    var readsConstantInputs: Bool { get }
}

extension PreparedKernel {
    public var multiplyAccumulates: Int { 0 }
    /// Default: ops without a fast kernel run their reference kernel.
    public func run(_ io: KernelIO, runner: ParallelRunner) { runReference(io) }
    /// Default: no scratch memory.
    public func workspaceSize(threadCount: Int) throws -> Int { 0 }
    /// Default: constant inputs are read through `KernelIO.inputs`.
    public var readsConstantInputs: Bool { true }
}
