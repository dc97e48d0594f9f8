import FlatBufferReader
import Tensor

/// CONCATENATION: joins N ≥ 1 inputs along one axis.
///
/// Inputs: float32 tensors of equal rank (≥ 1) whose sizes agree on every
/// dimension except `axis`. Output: the same sizes, with the sum of the
/// inputs' sizes along `axis`; e.g. `[1, H, W, C1]` and `[1, H, W, C2]`
/// along axis 3 (or -1) give `[1, H, W, C1 + C2]`, input 0's channels first.
public struct Concatenation: OperatorDescriptor {
    /// CONCATENATION's options (TFLite `ConcatenationOptions`).
    public struct Options: Sendable, Hashable {
        /// The joined dimension; negative values count from the end (-1 = last).
        public var axis: Int
        /// Must be `.none`: TFLite rejects a fused activation on this op.
        public var activation: FusedActivation

        public init(axis: Int, activation: FusedActivation = .none) {
            self.axis = axis
            self.activation = activation
        }
    }

    public static let builtin = BuiltinOperator.concatenation
    public static let optionsType = BuiltinOptionsType.concatenation

    /// `ConcatenationOptions`: `axis` (default 0; `prepare` checks it against the inputs' rank)
    /// and `fused_activation_function` (TANH and SIGN_BIT refused here, the others by `prepare`).
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        typealias Fields = BuiltinOptionsFields.Concatenation
        return Options(
            axis: Int(try table.value(Fields.axis)),
            activation: try FusedActivation(table, Fields.fusedActivationFunction, op: "CONCATENATION"))
    }

    public let opName = "CONCATENATION"
    public let outputShapes: [TensorShape]
    /// Product of the output dimensions before the axis.
    let outerCount: Int
    /// Per input: the contiguous run it contributes to each outer slice
    /// (its size along the axis times the product of the later dimensions).
    let runLengths: [Int]

    /// Validates the axis, the activation and the agreement of the shapes.
    public static func prepare(inputs: [Operand], options: Options) throws -> Concatenation {
        guard let first = inputs.first?.shape else {
            throw KernelError(op: "CONCATENATION", "expects at least 1 input, got 0")
        }
        guard options.activation == .none else {
            throw KernelError(
                op: "CONCATENATION", "fused activation \(options.activation) is not supported; only NONE is")
        }
        let rank = first.rank
        guard options.axis >= -rank, options.axis < rank else {
            throw KernelError(
                op: "CONCATENATION", "axis \(options.axis) is out of range for rank-\(rank) input \(first)")
        }
        let axis = options.axis < 0 ? options.axis + rank : options.axis

        var axisSum = 0
        for (index, operand) in inputs.enumerated() {
            let shape = operand.shape
            guard shape.rank == rank else {
                throw KernelError(
                    op: "CONCATENATION", "input \(index) \(shape) has rank \(shape.rank) but input 0 \(first) has rank \(rank)")
            }
            for d in 0..<rank where d != axis && shape[d] != first[d] {
                throw KernelError(
                    op: "CONCATENATION",
                    "input \(index) \(shape) differs from input 0 \(first) at dimension \(d), which is not the axis \(axis)")
            }
            // Checked: next to a zero-sized dimension an axis size is unbounded.
            let (sum, overflow) = axisSum.addingReportingOverflow(shape[axis])
            guard !overflow else {
                throw KernelError(op: "CONCATENATION", "sizes along axis \(axis) overflow at input \(index) \(shape)")
            }
            axisSum = sum
        }
        var outputDims = first.dimensions
        outputDims[axis] = axisSum
        let output: TensorShape
        do {
            output = try TensorShape(outputDims)
        } catch {
            throw KernelError(op: "CONCATENATION", "joined shape is invalid: \(error)")
        }
        // A shape with a zero dimension passes TensorShape whatever its other
        // sizes, so these products are checked.
        var outer = 1, inner = 1
        var runLengths: [Int] = []
        var overflow = false
        for d in 0..<axis where !overflow {
            (outer, overflow) = outer.multipliedReportingOverflow(by: first[d])
        }
        for d in (axis + 1)..<rank where !overflow {
            (inner, overflow) = inner.multipliedReportingOverflow(by: first[d])
        }
        for operand in inputs where !overflow {
            let (length, lengthOverflow) = operand.shape[axis].multipliedReportingOverflow(by: inner)
            runLengths.append(length)
            overflow = lengthOverflow
        }
        guard !overflow else {
            throw KernelError(op: "CONCATENATION", "sizes of input 0 \(first) overflow")
        }
        return Concatenation(outputShapes: [output], outerCount: outer, runLengths: runLengths)
    }

    /// One copy per input per outer row, with the outer rows split over
    /// `runner` in memory-bound tasks. Bit-identical to `runReference`.
    public func run(_ io: KernelIO, runner: ParallelRunner) {
        let total = outputShapes[0].elementCount
        guard total > 0 else { return }
        runner.forEach(
            outerCount, minimumPerChunk: minimumRowsPerTask(rowLength: total / outerCount),
            ConcatenationRows(kernel: self, io: io))
    }

    /// Writes outer rows `rows` of `run`.
    fileprivate func writeRows(_ rows: Range<Int>, _ io: KernelIO) {
        let y = io.outputs[0], inputs = io.inputs
        let rowLength = outputShapes[0].elementCount / outerCount
        for row in rows {
            var destination = y + row * rowLength
            for (k, length) in runLengths.enumerated() {
                copyFloats(inputs[k] + row * length, to: destination, count: length)
                destination += length
            }
        }
    }

    public func runReference(_ io: KernelIO) {
        // Input k viewed as [outer, runLengths[k]]; output as [outer, Σ runLengths]:
        // each output row is input 0's row, then input 1's, and so on.
        // Nothing to write; also keeps a zero-sized dimension from leaving
        // the loops over the other (unbounded) sizes spinning.
        guard outputShapes[0].elementCount > 0 else { return }
        let y = io.outputs[0]
        var destination = 0
        for row in 0..<outerCount {
            for (k, length) in runLengths.enumerated() {
                let x = io.inputs[k] + row * length
                for i in 0..<length { y[destination + i] = x[i] }
                destination += length
            }
        }
    }
}

/// The outer rows of one CONCATENATION invocation, for `ParallelRunner.forEach`.
private struct ConcatenationRows: ParallelWork {
    let kernel: Concatenation
    let io: KernelIO

    func run(_ rows: Range<Int>, thread: Int) { kernel.writeRows(rows, io) }
}
