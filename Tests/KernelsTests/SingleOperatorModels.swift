import FlatBufferReader
import Inference
import Kernels
import TestSupport
import Testing

/// TFLite models of one operator, built in memory (`TestModel`) and run through the
/// interpreter, for the tests of ops declared by their kernels (`OperatorDescriptor`).
enum SingleOperatorModel {
    /// One input tensor of the operator.
    struct Input {
        var shape: [Int32]
        /// Values of a constant input (a float32 buffer); nil for a graph input.
        var constant: [Float]? = nil
        /// The tensor type (`TensorType`, 0 = FLOAT32).
        var type: Int8 = 0

        /// A constant int32 input (shapes, axes, paddings).
        static func int32(_ shape: [Int32], _ values: [Int32]) -> Input {
            Input(shape: shape, int32Values: values, type: 2)
        }

        /// Values of a constant int32 input.
        private(set) var int32Values: [Int32]? = nil

        init(shape: [Int32], constant: [Float]? = nil, type: Int8 = 0) {
            self.shape = shape
            self.constant = constant
            self.type = type
        }

        private init(shape: [Int32], int32Values: [Int32], type: Int8) {
            self.shape = shape
            self.int32Values = int32Values
            self.type = type
        }
    }

    /// A model whose one operator of `builtin` reads tensors `0..<inputs.count` (graph inputs
    /// unless constant) and writes tensor `inputs.count` of `outputShape`, the graph output.
    /// `optionsType` and `options` become the operator's `builtin_options` union (absent when
    /// nil); `operatorInputs` replaces the operator's input list (e.g. to add a -1);
    /// `customCode` names a CUSTOM operator, `version` is the operator code's version and
    /// `customOptions` the operator's `custom_options` bytes.
    static func bytes(
        _ builtin: BuiltinOperator, inputs: [Input], outputShape: [Int32], optionsType: UInt8? = nil,
        options: [Int: TestModel.Field]? = nil, operatorInputs: [Int32]? = nil, customCode: String? = nil,
        version: Int32 = 1, customOptions: [UInt8]? = nil
    ) -> [UInt8] {
        var model = TestModel()
        model.operatorCodes = [
            TestModel.OperatorCode(
                deprecatedBuiltinCode: Int8(clamping: builtin.rawValue), builtinCode: builtin.rawValue,
                customCode: customCode, version: version),
        ]
        var graph = TestModel.SubGraph()
        for (index, input) in inputs.enumerated() {
            var buffer: UInt32 = 0
            if let values = input.constant {
                model.buffers.append(TestModel.Buffer(data: TestModel.float32Bytes(values)))
                buffer = UInt32(model.buffers.count - 1)
            } else if let values = input.int32Values {
                let bytes = values.flatMap { value in withUnsafeBytes(of: value.littleEndian, Array.init) }
                model.buffers.append(TestModel.Buffer(data: bytes))
                buffer = UInt32(model.buffers.count - 1)
            } else {
                graph.inputs.append(Int32(index))
            }
            graph.tensors.append(TestModel.Tensor(name: "input\(index)", type: input.type, shape: input.shape, buffer: buffer))
        }
        let output = Int32(inputs.count)
        graph.tensors.append(TestModel.Tensor(name: "output", type: 0, shape: outputShape, buffer: 0))
        graph.outputs = [output]
        graph.operators = [
            TestModel.Operator(
                opcodeIndex: 0, inputs: operatorInputs ?? (0..<output).map { $0 }, outputs: [output],
                optionsType: optionsType, options: options, customOptions: customOptions),
        ]
        model.subgraphs = [graph]
        return model.encode().bytes
    }

    /// Output 0 of the model in `bytes` for the graph inputs `inputs` (in order), run in `mode`
    /// with `threads` threads.
    static func run(
        _ bytes: [UInt8], inputs: [[Float]], mode: Interpreter.ExecutionMode, threads: Int = 1
    ) throws -> [Float] {
        let interpreter = try Interpreter(bytes: bytes, options: .init(threadCount: threads, mode: mode))
        for (index, values) in inputs.enumerated() {
            try interpreter.setInput(values, at: index)
        }
        interpreter.invoke()
        return try interpreter.output(at: 0)
    }

    /// Expects loading `bytes` to fail with `InterpreterError.invalidOperator` for operator 0
    /// whose message contains `fragment`.
    static func expectInvalidOperator(
        _ bytes: [UInt8], _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: InterpreterError.self, sourceLocation: sourceLocation) {
            try Interpreter(bytes: bytes)
        }
        guard case .invalidOperator(0, let kernelError)? = error else {
            Issue.record("expected an invalid operator 0, got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(kernelError.message.contains(fragment), "\(kernelError)", sourceLocation: sourceLocation)
    }

    /// Expects loading `bytes` to fail with an `InterpreterError` that `matches` accepts.
    static func expectLoadError(
        _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (InterpreterError) -> Bool
    ) {
        let error = #expect(throws: InterpreterError.self, sourceLocation: sourceLocation) {
            try Interpreter(bytes: bytes)
        }
        if let error {
            #expect(matches(error), "\(error)", sourceLocation: sourceLocation)
        }
    }
}
