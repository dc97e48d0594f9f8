import Inference
import TestSupport
import Testing

/// A sparse constant read by an operator without a DENSIFY in between is
/// refused with a typed error naming the tensor, also when another input of
/// the same operator is faulty: the operands are checked in order, after
/// every constant input has been read, so the first faulty one is reported.
@Suite struct SparseConstantErrorTests {
    /// CONV_2D(input `[1, 2, 2, 2]`, filter `[2, 1, 1, 2]`, bias of
    /// `biasCount` floats) → `[1, 2, 2, 2]`, the filter stored sparse (one
    /// value per output channel, CSR over the input channels) or dense.
    static func model(sparseFilter: Bool, biasCount: Int) -> [UInt8] {
        var model = TestModel()
        model.operatorCodes = [TestModel.OperatorCode(deprecatedBuiltinCode: 3, builtinCode: 3, version: 1)]
        model.buffers = [
            TestModel.Buffer(),
            TestModel.Buffer(data: TestModel.float32Bytes(sparseFilter ? [1, 2] : [1, 0, 0, 2])),
            TestModel.Buffer(data: TestModel.float32Bytes([Float](repeating: 0.5, count: biasCount))),
        ]
        var graph = TestModel.SubGraph()
        graph.tensors = [
            TestModel.Tensor(name: "input", type: 0, shape: [1, 2, 2, 2], buffer: 0),
            TestModel.Tensor(
                name: "filter", type: 0, shape: [2, 1, 1, 2], buffer: 1, sparsity: sparseFilter ? .diagonal2x1x1x2 : nil),
            TestModel.Tensor(name: "bias", type: 0, shape: [Int32(biasCount)], buffer: 2),
            TestModel.Tensor(name: "output", type: 0, shape: [1, 2, 2, 2], buffer: 0),
        ]
        graph.inputs = [0]
        graph.outputs = [3]
        graph.operators = [
            TestModel.Operator(
                opcodeIndex: 0, inputs: [0, 1, 2], outputs: [3], optionsType: 1,
                options: [0: .int8(1), 1: .int32(1), 2: .int32(1)]),
        ]
        model.subgraphs = [graph]
        return model.encode().bytes
    }

    /// The message of the error `Interpreter(bytes:)` throws with the
    /// reference and with the fast kernels; nil where the model loads.
    static func loadErrors(_ bytes: [UInt8]) -> [String?] {
        [Interpreter.Options(mode: .reference), Interpreter.Options()].map { options in
            do {
                _ = try Interpreter(bytes: bytes, options: options)
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    static let sparseInputMessage = "sparse input 'filter' without a DENSIFY operator"

    @Test func theSameModelWithADenseFilterLoads() {
        #expect(Self.loadErrors(Self.model(sparseFilter: false, biasCount: 2)) == [nil, nil])
    }

    @Test func aSparseFilterWithoutDensifyIsRefused() {
        for message in Self.loadErrors(Self.model(sparseFilter: true, biasCount: 2)) {
            #expect(message?.contains(Self.sparseInputMessage) == true, "\(message ?? "loaded")")
        }
    }

    @Test func theFirstFaultyInputIsReportedWhenTwoAre() {
        // A bias of 3 values for 2 output channels: faulty too, but after the filter.
        for message in Self.loadErrors(Self.model(sparseFilter: true, biasCount: 3)) {
            #expect(message?.contains(Self.sparseInputMessage) == true, "\(message ?? "loaded")")
        }
        // With the filter stored dense, the bias's fault is the one reported.
        for message in Self.loadErrors(Self.model(sparseFilter: false, biasCount: 3)) {
            #expect(message.map { $0.contains("bias") && !$0.contains("DENSIFY") } == true, "\(message ?? "loaded")")
        }
    }
}
