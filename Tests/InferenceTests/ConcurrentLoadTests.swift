import TestSupport
import Testing

@testable import Inference

/// A load prepares a model's operators on the interpreter's threads: the same
/// kernels, hence the same outputs, and the same first error for any thread count.
@Suite struct ConcurrentLoadTests {
    /// `operatorCount` CONV_2D operators in a chain, each `[1, 3, 3, 4]` →
    /// `[1, 3, 3, 4]` with a 1×1 filter and a bias of its own; the operators in
    /// `faulty` have a bias of 5 values for 4 output channels. The graph's outputs are the
    /// outputs of the operators `outputs` lists, in that order (by default the last one's).
    static func chain(operatorCount: Int, faulty: Set<Int> = [], outputs: [Int]? = nil) -> [UInt8] {
        var model = TestModel()
        model.operatorCodes = [TestModel.OperatorCode(deprecatedBuiltinCode: 3, builtinCode: 3, version: 1)]
        model.buffers = [TestModel.Buffer()]
        var graph = TestModel.SubGraph()
        graph.tensors = [TestModel.Tensor(name: "x0", type: 0, shape: [1, 3, 3, 4], buffer: 0)]
        for k in 0..<operatorCount {
            let biasCount = faulty.contains(k) ? 5 : 4
            let filter = (0..<16).map { Float(($0 * 7 + k * 3) % 11) / 8 - 0.6 }
            let bias = (0..<biasCount).map { Float($0 + k) / 16 }
            model.buffers += [
                TestModel.Buffer(data: TestModel.float32Bytes(filter)),
                TestModel.Buffer(data: TestModel.float32Bytes(bias)),
            ]
            let input = graph.tensors.count - 1
            graph.tensors += [
                TestModel.Tensor(name: "filter\(k)", type: 0, shape: [4, 1, 1, 4], buffer: UInt32(model.buffers.count - 2)),
                TestModel.Tensor(name: "bias\(k)", type: 0, shape: [Int32(biasCount)], buffer: UInt32(model.buffers.count - 1)),
                TestModel.Tensor(name: "x\(k + 1)", type: 0, shape: [1, 3, 3, 4], buffer: 0),
            ]
            graph.operators.append(TestModel.Operator(
                opcodeIndex: 0, inputs: [Int32(input), Int32(input + 1), Int32(input + 2)],
                outputs: [Int32(input + 3)], optionsType: 1,
                options: [0: .int8(1), 1: .int32(1), 2: .int32(1), 3: .int8(1)]))
        }
        graph.inputs = [0]
        // Operator k writes tensor 3k + 3.
        graph.outputs = (outputs ?? [operatorCount - 1]).map { Int32(3 * $0 + 3) }
        model.subgraphs = [graph]
        return model.encode().bytes
    }

    @Test func theFirstFaultyOperatorIsReportedWhateverTheThreadCount() {
        let bytes = Self.chain(operatorCount: 7, faulty: [2, 5])
        let messages = [1, 2, 3, 8].map { threads in
            do {
                _ = try Interpreter(bytes: bytes, options: .init(threadCount: threads))
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(messages[0].contains("operator 2"), "\(messages[0])")
        #expect(messages.allSatisfy { $0 == messages[0] }, "\(messages)")
    }

    @Test func theSameOutputsWhateverTheThreadCount() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        let input = rng.floats(36)
        let bytes = Self.chain(operatorCount: 9)
        let outputs = try [1, 2, 4].map { threads in
            let interpreter = try Interpreter(bytes: bytes, options: .init(threadCount: threads))
            try interpreter.setInput(input)
            interpreter.invoke()
            return try interpreter.output(at: 0).map(\.bitPattern)
        }
        #expect(outputs[1] == outputs[0] && outputs[2] == outputs[0], "seed \(seed)")
    }

    @Test func concurrentMapKeepsTheOrderAndEachItemsError() {
        struct Odd: Error, Equatable { let item: Int }
        for threads in [1, 2, 3, 16] {
            let results = concurrentMap(Array(0..<10), threadCount: threads) { item in
                guard item % 2 == 0 else { throw Odd(item: item) }
                return item * item
            }
            #expect(results.count == 10)
            for (item, result) in results.enumerated() {
                switch result {
                case .success(let value): #expect(item % 2 == 0 && value == item * item, "\(threads) threads")
                case .failure(let error): #expect(error as? Odd == Odd(item: item), "\(threads) threads")
                }
            }
        }
        #expect(concurrentMap([Int](), threadCount: 4) { $0 }.isEmpty)
    }
}
