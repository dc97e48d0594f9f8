import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

/// The ops that moved to reading their own options (`OperatorDescriptor`) —
/// DEPTH_TO_SPACE, LOGISTIC, MEAN, PAD, PRELU, RESIZE_BILINEAR — loaded from one-operator
/// models: each option field reaches the kernel (the reference mode's output is the kernel's
/// reference output with those options), and a wrong options table or value is a typed error.
/// Their kernels' own sweeps are in their test files.
@Suite struct DeclaredOperatorTests {
    /// Expects the model in `bytes`, run in reference mode on `input`, to give `expected` bit for bit.
    private func expectReference(
        _ bytes: [UInt8], _ input: [Float], _ expected: [Float], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let output = try SingleOperatorModel.run(bytes, inputs: [input], mode: .reference)
        #expect(output.map(\.bitPattern) == expected.map(\.bitPattern), sourceLocation: sourceLocation)
    }

    @Test func depthToSpaceReadsItsBlockSize() throws {
        let input: [Float] = (0..<16).map(Float.init)
        let kernel = try DepthToSpace.prepare(inputs: [Support.operand([1, 1, 2, 8])], options: .init(blockSize: 2))
        let bytes = SingleOperatorModel.bytes(
            .depthToSpace, inputs: [.init(shape: [1, 1, 2, 8])], outputShape: [1, 2, 4, 2],
            optionsType: BuiltinOptionsType.depthToSpace, options: [0: .int32(2)])
        try expectReference(bytes, input, runReference(kernel, [input]))
        // block_size 0, given or by default, and another op's table.
        for options: [Int: TestModel.Field]? in [[0: .int32(0)], [:], nil] {
            let zero = SingleOperatorModel.bytes(
                .depthToSpace, inputs: [.init(shape: [1, 1, 2, 8])], outputShape: [1, 2, 4, 2],
                optionsType: options == nil ? nil : BuiltinOptionsType.depthToSpace, options: options)
            SingleOperatorModel.expectInvalidOperator(zero, "block size 0 must be ≥ 1")
        }
        let reducer = SingleOperatorModel.bytes(
            .depthToSpace, inputs: [.init(shape: [1, 1, 2, 8])], outputShape: [1, 2, 4, 2],
            optionsType: BuiltinOptionsType.reducer, options: [0: .int32(2)])
        SingleOperatorModel.expectInvalidOperator(reducer, "options table of union type \(BuiltinOptionsType.reducer)")
    }

    @Test func resizeBilinearReadsItsCoordinateModes() throws {
        var rng = SeededGenerator.announced()
        let input = sweepValues(3 * 4 * 2, using: &rng)
        for (align, half) in [(false, false), (true, false), (false, true)] {
            let kernel = try ResizeBilinear.prepare(
                inputs: [Support.operand([1, 3, 4, 2]), Support.int32Constant([2], [5, 7])],
                options: .init(alignCorners: align, halfPixelCenters: half))
            let bytes = SingleOperatorModel.bytes(
                .resizeBilinear, inputs: [.init(shape: [1, 3, 4, 2]), .int32([2], [5, 7])], outputShape: [1, 5, 7, 2],
                optionsType: BuiltinOptionsType.resizeBilinear,
                options: [2: .uint8(align ? 1 : 0), 3: .uint8(half ? 1 : 0)])
            try expectReference(bytes, input, runReference(kernel, [input, [5, 7].map(Float.init)]))
        }
    }

    @Test func meanReadsKeepDims() throws {
        let input: [Float] = [1, 2, 3, 4, 5, 6]
        for keepDims in [false, true] {
            let bytes = SingleOperatorModel.bytes(
                .mean, inputs: [.init(shape: [2, 3]), .int32([1], [1])], outputShape: keepDims ? [2, 1] : [2],
                optionsType: BuiltinOptionsType.reducer, options: [0: .uint8(keepDims ? 1 : 0)])
            let interpreter = try Interpreter(bytes: bytes, options: .init(mode: .reference))
            try interpreter.setInput(input)
            interpreter.invoke()
            #expect(try interpreter.output(at: 0) == [2, 5])
        }
    }

    @Test func padWithAndWithoutItsEmptyTable() throws {
        let input: [Float] = [1, 2, 3, 4]
        for optionsType in [nil, BuiltinOptionsType.pad] {
            let bytes = SingleOperatorModel.bytes(
                .pad, inputs: [.init(shape: [2, 2]), .int32([2, 2], [1, 0, 0, 1])], outputShape: [3, 3],
                optionsType: optionsType, options: optionsType.map { _ in [:] })
            try expectReference(bytes, input, [0, 0, 0, 1, 2, 0, 3, 4, 0])
        }
    }

    @Test func tablelessOpsRefuseATable() throws {
        let input: [Float] = [-2, -0.5, 0, 3]
        let logistic = SingleOperatorModel.bytes(.logistic, inputs: [.init(shape: [4])], outputShape: [4])
        try expectReference(logistic, input, runReference(try Logistic.prepare(inputs: [Support.operand([4])]), [input]))
        let prelu = SingleOperatorModel.bytes(
            .prelu, inputs: [.init(shape: [4]), .init(shape: [1], constant: [0.25])], outputShape: [4])
        try expectReference(prelu, input, [-0.5, -0.125, 0, 3])
        let logisticWithTable = SingleOperatorModel.bytes(
            .logistic, inputs: [.init(shape: [4])], outputShape: [4], optionsType: BuiltinOptionsType.add,
            options: [0: .int8(0)])
        SingleOperatorModel.expectInvalidOperator(logisticWithTable, "expected none")
        let preluWithTable = SingleOperatorModel.bytes(
            .prelu, inputs: [.init(shape: [4]), .init(shape: [1], constant: [0.25])], outputShape: [4],
            optionsType: BuiltinOptionsType.add, options: [0: .int8(0)])
        SingleOperatorModel.expectInvalidOperator(preluWithTable, "expected none")
    }
}
