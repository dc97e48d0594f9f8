import FlatBufferReader
import Inference
import Kernels
import TestSupport
import Testing

/// A DEQUANTIZE or DENSIFY folded at load time whose output's shape holds another number of
/// values than its input is refused with a typed error naming the operator: the readers of its
/// output size their copies by the output's shape, so folding it would let them read or write
/// past their buffers (a bit flipped in a model's operator list can point a DEQUANTIZE at a
/// larger weight tensor).
@Suite struct FoldedConstantShapeTests {
    /// `folding`(filter values `[2, 1, 1, 2]`) → `weights` of `weightsShape`, then CONV_2D(input
    /// `[1, 2, 2, 2]`, weights, bias `[2]`) → `[1, 2, 2, 2]`. For DENSIFY the filter is stored
    /// sparse (`TestModel.Sparsity.diagonal2x1x1x2`).
    static func model(folding builtin: BuiltinOperator, weightsShape: [Int32]) -> [UInt8] {
        var model = TestModel()
        model.operatorCodes = [
            TestModel.OperatorCode(
                deprecatedBuiltinCode: Int8(builtin.rawValue), builtinCode: builtin.rawValue, version: 1),
            TestModel.OperatorCode(deprecatedBuiltinCode: 3, builtinCode: 3, version: 1),
        ]
        let sparse = builtin == .densify
        model.buffers = [
            TestModel.Buffer(),
            TestModel.Buffer(data: TestModel.float32Bytes(sparse ? [1, 2] : [1, 0, 0, 2])),
            TestModel.Buffer(data: TestModel.float32Bytes([0.5, 0.5])),
        ]
        var graph = TestModel.SubGraph()
        graph.tensors = [
            TestModel.Tensor(name: "input", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            TestModel.Tensor(name: "filter", type: 0, shape: [2, 1, 1, 2], buffer: 1, sparsity: sparse ? .diagonal2x1x1x2 : nil),
            TestModel.Tensor(name: "weights", type: 0, shape: weightsShape, buffer: 0),
            TestModel.Tensor(name: "bias", type: 0, shape: [2], buffer: 2),
            TestModel.Tensor(name: "output", type: 0, shape: [1, 2, 2, 2], buffer: 0),
        ]
        graph.inputs = [0]
        graph.outputs = [4]
        graph.operators = [
            TestModel.Operator(opcodeIndex: 0, inputs: [1], outputs: [2]),
            TestModel.Operator(
                opcodeIndex: 1, inputs: [0, 2, 3], outputs: [4], optionsType: 1,
                options: [0: .int8(1), 1: .int32(1), 2: .int32(1)]),
        ]
        model.subgraphs = [graph]
        return model.encode().bytes
    }

    @Test(arguments: [BuiltinOperator.dequantize, .densify])
    func outputShapeOfAnotherSizeIsRefused(_ builtin: BuiltinOperator) throws {
        for shape: [Int32] in [[1, 1, 1, 2], [4, 1, 1, 2]] {
            let error = #expect(throws: InterpreterError.self) {
                try Interpreter(bytes: Self.model(folding: builtin, weightsShape: shape))
            }
            guard case .invalidOperator(0, let kernelError)? = error else {
                Issue.record("expected an invalid operator 0, got \(String(describing: error))")
                continue
            }
            let holds = shape.reduce(1) { $0 * Int($1) }
            #expect(
                kernelError.op == builtin.description && kernelError.message.contains("holds \(holds)"),
                "\(kernelError)")
        }
    }

    /// The same models with the output's shape matching load and run.
    @Test(arguments: [BuiltinOperator.dequantize, .densify])
    func outputShapeOfTheSameSizeLoads(_ builtin: BuiltinOperator) throws {
        let interpreter = try Interpreter(bytes: Self.model(folding: builtin, weightsShape: [2, 1, 1, 2]))
        try interpreter.setInput([Float](repeating: 1, count: 8), at: 0)
        interpreter.invoke()
        // Each output pixel: channel 0 = 1·1 + 0.5, channel 1 = 2·1 + 0.5.
        #expect(try interpreter.output(at: 0) == [1.5, 2.5, 1.5, 2.5, 1.5, 2.5, 1.5, 2.5])
    }
}
