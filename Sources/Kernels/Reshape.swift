import FlatBufferReader
import Tensor

/// RESHAPE: the same elements in the same row-major order under a new shape.
///
/// Inputs, in order: `input` (any shape) and an optional `shape` operand, a
/// constant int32 vector `[rank]` holding the new dimensions. As in TFLite, a
/// `shape` operand that is not 1-D is ignored and the `newShape` option is
/// used instead; an absent `newShape` (or the legacy `[0]`) means a scalar.
/// One new dimension may be -1: it is inferred so that the element counts
/// match. Output: the new shape, with as many elements as the input.
public struct Reshape: OperatorDescriptor {
    /// RESHAPE's options (TFLite `ReshapeOptions`).
    public struct Options: Sendable, Hashable {
        /// The `new_shape` field of the options table, if present.
        public var newShape: [Int32]?

        public init(newShape: [Int32]? = nil) {
            self.newShape = newShape
        }
    }

    public static let builtin = BuiltinOperator.reshape
    public static let optionsType = BuiltinOptionsType.reshape
    /// The shape operand may be absent (the options give the shape).
    public static let optionalInputPositions = [1]

    /// `ReshapeOptions.new_shape` (absent by default): refused with a `KernelError` unless its
    /// entries are ≥ -1 with at most one -1, even when a shape operand takes its place.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        let newShape = try table.values(BuiltinOptionsFields.Reshape.newShape)
        if let shape = newShape, !shape.allSatisfy({ $0 >= -1 }) || shape.filter({ $0 == -1 }).count > 1 {
            throw KernelError(op: "RESHAPE", "new_shape \(shape) must hold dimensions >= 0 and at most one -1")
        }
        return Options(newShape: newShape)
    }

    public let opName = "RESHAPE"
    public let outputShapes: [TensorShape]

    /// Validates the requested shape against the input's element count.
    public static func prepare(inputs: [Operand], options: Options) throws -> Reshape {
        guard inputs.count == 1 || inputs.count == 2 else {
            throw KernelError(op: "RESHAPE", "expects 1 or 2 inputs (input, shape), got \(inputs.count)")
        }
        let input = inputs[0].shape
        let requested: [Int32]
        let source: String
        if inputs.count == 2, inputs[1].shape.rank == 1 {
            let shapeOperand = inputs[1]
            guard let constant = shapeOperand.constant else {
                throw KernelError(op: "RESHAPE", "the shape operand must be a constant tensor; a computed shape is not supported")
            }
            guard let values = constant.int32Values else {
                throw KernelError(op: "RESHAPE", "the shape operand must be int32")
            }
            guard values.count == shapeOperand.shape.elementCount else {
                throw KernelError(
                    op: "RESHAPE",
                    "the shape operand holds \(values.count) values but its shape \(shapeOperand.shape) needs \(shapeOperand.shape.elementCount)")
            }
            requested = values
            source = "shape operand"
        } else if let newShape = options.newShape {
            // Legacy converters wrote [0] to mean a scalar.
            requested = newShape == [0] ? [] : newShape
            source = "new_shape option"
        } else {
            requested = []
            source = "absent new_shape option (a scalar)"
        }

        guard requested.count <= TensorShape.maxRank else {
            throw KernelError(
                op: "RESHAPE", "\(source) \(requested) has rank \(requested.count); at most \(TensorShape.maxRank) is supported")
        }
        var dims = requested.map { Int($0) }
        var inferredAxis: Int?
        var knownCount = 1
        for (axis, size) in dims.enumerated() {
            if size == -1 {
                guard inferredAxis == nil else {
                    throw KernelError(op: "RESHAPE", "\(source) \(requested) has more than one -1 dimension")
                }
                inferredAxis = axis
            } else {
                guard size >= 0 else {
                    throw KernelError(op: "RESHAPE", "\(source) \(requested) has dimension \(size); sizes must be ≥ 0 or -1")
                }
                let (product, overflow) = knownCount.multipliedReportingOverflow(by: size)
                guard !overflow, product <= TensorShape.maxElements else {
                    throw KernelError(op: "RESHAPE", "\(source) \(requested) has too many elements")
                }
                knownCount = product
            }
        }
        if let axis = inferredAxis {
            if knownCount == 0 {
                guard input.elementCount == 0 else {
                    throw KernelError(
                        op: "RESHAPE",
                        "cannot infer the -1 dimension of \(source) \(requested): the other sizes multiply to 0 but input \(input) has \(input.elementCount) elements")
                }
                dims[axis] = 0
            } else {
                guard input.elementCount % knownCount == 0 else {
                    throw KernelError(
                        op: "RESHAPE",
                        "cannot infer the -1 dimension of \(source) \(requested): \(input.elementCount) elements of input \(input) are not a multiple of \(knownCount)")
                }
                dims[axis] = input.elementCount / knownCount
            }
        }
        let output: TensorShape
        do {
            output = try TensorShape(dims)
        } catch {
            throw KernelError(op: "RESHAPE", "\(source) \(requested) is invalid: \(error)")
        }
        guard output.elementCount == input.elementCount else {
            throw KernelError(
                op: "RESHAPE",
                "\(source) \(requested) gives \(output) with \(output.elementCount) elements, but input \(input) has \(input.elementCount)")
        }
        return Reshape(outputShapes: [output])
    }

    /// One copy of the whole buffer.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        copyFloats(io.inputs[0], to: io.outputs[0], count: outputShapes[0].elementCount)
    }

    public func runReference(_ io: KernelIO) {
        // x and y hold the same elements in the same order; only the shape differs.
        let x = io.inputs[0], y = io.outputs[0]
        for i in 0..<outputShapes[0].elementCount { y[i] = x[i] }
    }
}
