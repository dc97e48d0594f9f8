import TestSupport

extension TestModel {
    /// Operator code indices of `valid`.
    enum Code {
        static let conv2D: UInt32 = 0, add: UInt32 = 1, densify: UInt32 = 2
    }

    /// Conv2DOptions with strides 1 and the given padding.
    static let conv2DOptions: [Int: Field] = [0: .int8(1), 1: .int32(1), 2: .int32(1)]

    /// A small valid model. Subgraph 0:
    /// - tensor 0 `input` `[1, 2, 2, 2]` (graph input), tensor 1 `filter` `[2, 1, 1, 2]` (buffer 1),
    ///   tensor 2 `bias` `[2]` (buffer 2), tensor 3 `conv` `[1, 2, 2, 2]`, tensor 4 `sum` `[1, 2, 2, 2]`;
    /// - tensor 5 `sparse` `[2, 3]` (CSR, 3 values in buffer 3), tensor 6 `dense` `[2, 3]`;
    /// - operator 0 CONV_2D(0, 1, 2) -> 3, operator 1 ADD(3, 0) -> 4, operator 2 DENSIFY(5) -> 6;
    /// - outputs 4 and 6.
    static var valid: TestModel {
        var model = TestModel()
        model.operatorCodes = [
            OperatorCode(deprecatedBuiltinCode: 3, builtinCode: 3, version: 1),
            OperatorCode(deprecatedBuiltinCode: 0, builtinCode: 0),
            OperatorCode(deprecatedBuiltinCode: 124, builtinCode: 124),
            OperatorCode(deprecatedBuiltinCode: 22, builtinCode: 22),
            OperatorCode(deprecatedBuiltinCode: 2),
        ]
        model.buffers = [
            Buffer(),
            Buffer(data: float32Bytes([1, 2, 3, 4])),
            Buffer(data: float32Bytes([0.5, -0.5])),
            Buffer(data: float32Bytes([7, 8, 9])),
            Buffer(data: Array("1.0".utf8)),
        ]
        model.metadata = [("min_runtime_version", 4)]
        var graph = SubGraph()
        graph.tensors = [
            Tensor(name: "input", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            Tensor(name: "filter", type: 0, shape: [2, 1, 1, 2], buffer: 1),
            Tensor(name: "bias", type: 0, shape: [2], buffer: 2),
            Tensor(name: "conv", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            Tensor(name: "sum", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            Tensor(
                name: "sparse", type: 0, shape: [2, 3], buffer: 3,
                sparsity: Sparsity(
                    traversalOrder: [0, 1],
                    dimensions: [
                        Dimension(format: 0, denseSize: 2),
                        Dimension(format: 1, segments: .uint8([0, 1, 3]), indices: .uint16([2, 0, 1])),
                    ])),
            Tensor(name: "dense", type: 0, shape: [2, 3], buffer: 0),
        ]
        graph.inputs = [0]
        graph.outputs = [4, 6]
        graph.operators = [
            Operator(opcodeIndex: Code.conv2D, inputs: [0, 1, 2], outputs: [3], optionsType: 1, options: conv2DOptions),
            Operator(opcodeIndex: Code.add, inputs: [3, 0], outputs: [4], optionsType: 11, options: [0: .int8(1)]),
            Operator(opcodeIndex: Code.densify, inputs: [5], outputs: [6]),
        ]
        model.subgraphs = [graph]
        return model
    }
}
