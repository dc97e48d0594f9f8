import Inference
import TestSupport
import Testing

/// A model whose weights are stored sparse (compressed rows, each folded by a
/// DENSIFY) computes what the same model with the weights stored dense
/// computes, bit for bit: in every execution mode, with and without the
/// sparse kernels, at one and two threads. The weights reach a 1×1
/// CONV_2D pair with a depthwise convolution between them (a channel-major
/// region), the DEPTHWISE_CONV_2D itself and a FULLY_CONNECTED.
@Suite struct SparseFilterModelTests {
    static let channels = 8

    /// Deterministic weights with about `density` of them non-zero.
    static func weights(_ count: Int, density: Double, seed: Int) -> [Float] {
        (0..<count).map { i in
            let hash = (i &* 2_654_435_761 &+ seed &* 40_503) & 0xFFFF
            guard Double(hash) / 65_536 < density else { return 0 }
            return Float(hash % 97) / 48 - 1
        }
    }

    /// `values` of `shape` as compressed rows (the last dimension compressed):
    /// each row's non-zeros (and its first zero, stored as −0) in ascending
    /// column order.
    static func sparsity(_ values: [Float], shape: [Int32]) -> (TestModel.Sparsity, [Float]) {
        let columns = Int(shape.last!), rows = values.count / columns
        var segments: [Int32] = [0], indices: [Int32] = [], stored: [Float] = []
        for row in 0..<rows {
            var storedAZero = false
            for column in 0..<columns {
                let value = values[row * columns + column]
                guard value != 0 || !storedAZero else { continue }
                storedAZero = storedAZero || value == 0
                indices.append(Int32(column))
                stored.append(value == 0 ? -0.0 : value)
            }
            segments.append(Int32(indices.count))
        }
        // Every level dense but the last.
        let dimensions = shape.dropLast().map { TestModel.Dimension(format: 0, denseSize: $0) }
            + [TestModel.Dimension(format: 1, segments: .int32(segments), indices: .uint8(indices.map(UInt8.init)))]
        return (TestModel.Sparsity(traversalOrder: (0..<Int32(shape.count)).map { $0 }, dimensions: dimensions), stored)
    }

    /// input `[1, 3, 3, C]` → CONV_2D 1×1 → DEPTHWISE_CONV_2D 3×3 → CONV_2D
    /// 1×1 → FULLY_CONNECTED to 3 outputs (`[9, 3]`), the four weight tensors
    /// stored sparse behind a DENSIFY each, or dense; about `densities` of
    /// each weight tensor's values are non-zero.
    static func model(sparse: Bool, densities: [Double] = [0.25, 0.6, 0.2, 0.5]) -> [UInt8] {
        let c = channels
        let weightShapes: [[Int32]] = [[Int32(c), 1, 1, Int32(c)], [1, 3, 3, Int32(c)], [Int32(c), 1, 1, Int32(c)], [3, Int32(c)]]
        var model = TestModel()
        model.operatorCodes = [
            TestModel.OperatorCode(deprecatedBuiltinCode: 3, builtinCode: 3, version: 1),  // CONV_2D
            TestModel.OperatorCode(deprecatedBuiltinCode: 4, builtinCode: 4, version: 1),  // DEPTHWISE_CONV_2D
            TestModel.OperatorCode(deprecatedBuiltinCode: 9, builtinCode: 9, version: 1),  // FULLY_CONNECTED
            TestModel.OperatorCode(deprecatedBuiltinCode: 124, builtinCode: 124),  // DENSIFY
        ]
        model.buffers = [TestModel.Buffer()]
        var graph = TestModel.SubGraph()
        graph.tensors = [TestModel.Tensor(name: "input", type: 0, shape: [1, 3, 3, Int32(c)], buffer: 0)]
        var weightTensors: [Int32] = []
        for (k, shape) in weightShapes.enumerated() {
            let count = shape.reduce(1) { $0 * Int($1) }
            let values = weights(count, density: densities[k], seed: k + 1)
            if sparse {
                let (sparsity, stored) = Self.sparsity(values, shape: shape)
                model.buffers.append(TestModel.Buffer(data: TestModel.float32Bytes(stored)))
                graph.tensors.append(TestModel.Tensor(
                    name: "sparse\(k)", type: 0, shape: shape, buffer: UInt32(model.buffers.count - 1), sparsity: sparsity))
                graph.tensors.append(TestModel.Tensor(name: "weights\(k)", type: 0, shape: shape, buffer: 0))
                graph.operators.append(TestModel.Operator(
                    opcodeIndex: 3, inputs: [Int32(graph.tensors.count - 2)], outputs: [Int32(graph.tensors.count - 1)]))
            } else {
                model.buffers.append(TestModel.Buffer(data: TestModel.float32Bytes(values)))
                graph.tensors.append(TestModel.Tensor(
                    name: "weights\(k)", type: 0, shape: shape, buffer: UInt32(model.buffers.count - 1)))
            }
            weightTensors.append(Int32(graph.tensors.count - 1))
        }
        let biasCounts = [c, c, c, 3]
        var biases: [Int32] = []
        for (k, count) in biasCounts.enumerated() {
            model.buffers.append(TestModel.Buffer(data: TestModel.float32Bytes(weights(count, density: 1, seed: 10 + k))))
            graph.tensors.append(TestModel.Tensor(
                name: "bias\(k)", type: 0, shape: [Int32(count)], buffer: UInt32(model.buffers.count - 1)))
            biases.append(Int32(graph.tensors.count - 1))
        }
        let outputShapes: [[Int32]] = [[1, 3, 3, Int32(c)], [1, 3, 3, Int32(c)], [1, 3, 3, Int32(c)], [9, 3]]
        let operators: [(code: UInt32, type: UInt8, options: [Int: TestModel.Field])] = [
            (0, 1, [0: .int8(0), 1: .int32(1), 2: .int32(1), 3: .int8(1)]),  // SAME, RELU
            (1, 2, [0: .int8(0), 1: .int32(1), 2: .int32(1), 3: .int32(1)]),  // SAME, multiplier 1
            (0, 1, [0: .int8(0), 1: .int32(1), 2: .int32(1)]),
            (2, 8, [:]),
        ]
        var previous: Int32 = 0
        for (k, op) in operators.enumerated() {
            graph.tensors.append(TestModel.Tensor(name: "x\(k + 1)", type: 0, shape: outputShapes[k], buffer: 0))
            let output = Int32(graph.tensors.count - 1)
            graph.operators.append(TestModel.Operator(
                opcodeIndex: op.code, inputs: [previous, weightTensors[k], biases[k]], outputs: [output],
                optionsType: op.type, options: op.options))
            previous = output
        }
        graph.inputs = [0]
        graph.outputs = [previous]
        model.subgraphs = [graph]
        return model.encode().bytes
    }

    /// With the first 1×1 filter too dense for a sparse kernel, the second is
    /// alone and no region is worth it: both convolutions, whose packing the
    /// load deferred until it knew, run packed.
    static let denseFirstFilter = [0.6, 0.6, 0.2, 0.5]

    @Test(arguments: [[0.25, 0.6, 0.2, 0.5], denseFirstFilter])
    func sparseWeightsComputeWhatDenseWeightsCompute(densities: [Double]) throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let input = rng.floats(9 * Self.channels)
        let sparse = Self.model(sparse: true, densities: densities), dense = Self.model(sparse: false, densities: densities)
        let settings: [(String, Interpreter.Options)] = [
            ("reference", .init(mode: .reference)),
            ("fast", .init(usesSparseKernels: false)),
            ("fast, sparse kernels", .init(usesSparseKernels: true)),
            ("fast, sparse kernels, 2 threads", .init(threadCount: 2, usesSparseKernels: true)),
        ]
        for (name, options) in settings {
            let outputs = try [sparse, dense].map { bytes in
                let interpreter = try Interpreter(bytes: bytes, options: options)
                try interpreter.setInput(input)
                interpreter.invoke()
                return try interpreter.output(at: 0)
            }
            #expect(outputs[0].count == 27, "\(name)")
            #expect(outputs[0].map(\.bitPattern) == outputs[1].map(\.bitPattern), "\(name), seed \(seed)")
        }
    }

    @Test func theConvolutionsRunAsASparseRegion() throws {
        let interpreter = try Interpreter(bytes: Self.model(sparse: true), options: .init(usesSparseKernels: true))
        var names: [String] = []
        try interpreter.setInput([Float](repeating: 0.5, count: 9 * Self.channels))
        interpreter.invokeProfiled { names.append($0.opName) }
        #expect(names.filter { $0.hasPrefix("CONV_2D(sparse CHW)") }.count == 2, "\(names)")
    }

    @Test func aLoneSparseConvolutionRunsPacked() throws {
        let interpreter = try Interpreter(
            bytes: Self.model(sparse: true, densities: Self.denseFirstFilter), options: .init(usesSparseKernels: true))
        var names: [String] = []
        try interpreter.setInput([Float](repeating: 0.5, count: 9 * Self.channels))
        interpreter.invokeProfiled { names.append($0.opName) }
        #expect(names.filter { $0 == "CONV_2D" }.count == 2, "\(names)")
        #expect(!names.contains { $0.contains("CHW") }, "\(names)")
    }
}
