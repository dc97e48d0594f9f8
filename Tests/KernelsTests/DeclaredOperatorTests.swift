import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

/// The ops that read their own options (`OperatorDescriptor`) — CONV_2D, DEPTHWISE_CONV_2D,
/// FULLY_CONNECTED, ADD, MAX_POOL_2D, RESHAPE, CONCATENATION, DEPTH_TO_SPACE, LOGISTIC, MEAN,
/// PAD, PRELU, RESIZE_BILINEAR — loaded from one-operator models: each option field reaches
/// the kernel (the reference mode's output is the one those options give), a wrong options
/// table or value is a typed error, and an input may be absent (-1) only where the op allows.
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

    /// CONV_2D of a 4×4 map of ones with a 3×3 filter of -1 and no bias (-1): padding, strides
    /// and activation reach the kernel; zero strides or dilations, another op's table, a
    /// padding outside its enum and an absent filter are refused.
    @Test func convolutionReadsItsOptions() throws {
        func model(
            _ options: [Int: TestModel.Field]?, optionsType: UInt8? = BuiltinOptionsType.conv2D,
            operatorInputs: [Int32] = [0, 1, -1]
        ) -> [UInt8] {
            SingleOperatorModel.bytes(
                .conv2D, inputs: [.init(shape: [1, 4, 4, 1]), .init(shape: [1, 3, 3, 1], constant: [Float](repeating: -1, count: 9))],
                outputShape: [1, 2, 2, 1], optionsType: optionsType, options: options, operatorInputs: operatorInputs)
        }
        let ones = [Float](repeating: 1, count: 16)
        let valid: [Int: TestModel.Field] = [0: .int8(1), 1: .int32(1), 2: .int32(1)]
        #expect(try SingleOperatorModel.run(model(valid), inputs: [ones], mode: .reference) == [-9, -9, -9, -9])
        var relu = valid
        relu[3] = .int8(1)
        #expect(try SingleOperatorModel.run(model(relu), inputs: [ones], mode: .reference) == [0, 0, 0, 0])
        // SAME with strides 2: the padding taps (bottom and right) are left out.
        let same: [Int: TestModel.Field] = [0: .int8(0), 1: .int32(2), 2: .int32(2)]
        #expect(try SingleOperatorModel.run(model(same), inputs: [ones], mode: .reference) == [-9, -6, -6, -4])

        SingleOperatorModel.expectInvalidOperator(model([0: .int8(1)]), "stride_w is 0, must be >= 1")
        SingleOperatorModel.expectInvalidOperator(model(nil, optionsType: nil), "stride_w is 0, must be >= 1")
        var dilation = valid
        dilation[5] = .int32(0)
        SingleOperatorModel.expectInvalidOperator(model(dilation), "dilation_h_factor is 0, must be >= 1")
        SingleOperatorModel.expectInvalidOperator(
            model([0: .int32Vector([1, 8])], optionsType: BuiltinOptionsType.reshape),
            "options table of union type \(BuiltinOptionsType.reshape)")
        var tanh = valid
        tanh[3] = .int8(4)
        SingleOperatorModel.expectInvalidOperator(model(tanh), "fused activation tanh is not supported")
        var padding = valid
        padding[0] = .int8(7)
        SingleOperatorModel.expectLoadError(model(padding)) {
            guard case .invalidModel(.invalidEnum(let what, 7)) = $0 else { return false }
            return what.contains("operator 0 (CONV_2D) options: padding (Padding)")
        }
        SingleOperatorModel.expectInvalidOperator(
            model(valid, operatorInputs: [0, -1, -1]), "input 1 is -1 (absent), but CONV_2D requires it")
    }

    /// DEPTHWISE_CONV_2D refuses a negative depth multiplier; FULLY_CONNECTED reads its
    /// activation.
    @Test func weightedOpsReadTheirOptions() throws {
        let depthwise = SingleOperatorModel.bytes(
            .depthwiseConv2D, inputs: [.init(shape: [1, 4, 4, 1]), .init(shape: [1, 3, 3, 1], constant: [Float](repeating: 1, count: 9))],
            outputShape: [1, 2, 2, 1], optionsType: BuiltinOptionsType.depthwiseConv2D,
            options: [0: .int8(1), 1: .int32(1), 2: .int32(1), 3: .int32(-1)])
        SingleOperatorModel.expectInvalidOperator(depthwise, "depth_multiplier is -1, must be >= 0")
        for (code, expected) in [(Int8(0), [Float(-2)]), (1, [0])] {
            let fullyConnected = SingleOperatorModel.bytes(
                .fullyConnected, inputs: [.init(shape: [1, 2]), .init(shape: [1, 2], constant: [-1, -1])],
                outputShape: [1, 1], optionsType: BuiltinOptionsType.fullyConnected, options: [0: .int8(code)],
                operatorInputs: [0, 1, -1])
            #expect(try SingleOperatorModel.run(fullyConnected, inputs: [[1, 1]], mode: .reference) == expected)
        }
    }

    /// ADD reads its activation; a value outside `ActivationFunctionType` and an absent
    /// operand are refused.
    @Test func addReadsItsActivation() throws {
        func model(_ options: [Int: TestModel.Field], operatorInputs: [Int32] = [0, 1]) -> [UInt8] {
            SingleOperatorModel.bytes(
                .add, inputs: [.init(shape: [2]), .init(shape: [2], constant: [0, 0])], outputShape: [2],
                optionsType: BuiltinOptionsType.add, options: options, operatorInputs: operatorInputs)
        }
        #expect(try SingleOperatorModel.run(model([0: .int8(1)]), inputs: [[-1, 2]], mode: .reference) == [0, 2])
        #expect(try SingleOperatorModel.run(model([:]), inputs: [[-1, 2]], mode: .reference) == [-1, 2])
        SingleOperatorModel.expectLoadError(model([0: .int8(9)])) {
            guard case .invalidModel(.invalidEnum(let what, 9)) = $0 else { return false }
            return what.contains("fused_activation_function (ActivationFunctionType)")
        }
        SingleOperatorModel.expectInvalidOperator(
            model([0: .int8(1)], operatorInputs: [0, -1]), "input 1 is -1 (absent), but ADD requires it")
    }

    /// MAX_POOL_2D reads its window and strides and refuses a zero-sized window.
    @Test func maxPoolReadsItsWindow() throws {
        func model(_ options: [Int: TestModel.Field]) -> [UInt8] {
            SingleOperatorModel.bytes(
                .maxPool2D, inputs: [.init(shape: [1, 4, 4, 1])], outputShape: [1, 2, 2, 1],
                optionsType: BuiltinOptionsType.pool2D, options: options)
        }
        let input = (0..<16).map(Float.init)
        let window: [Int: TestModel.Field] = [0: .int8(1), 1: .int32(2), 2: .int32(2), 3: .int32(2), 4: .int32(2)]
        #expect(try SingleOperatorModel.run(model(window), inputs: [input], mode: .reference) == [5, 7, 13, 15])
        var empty = window
        empty[3] = .int32(0)
        SingleOperatorModel.expectInvalidOperator(model(empty), "filter_width is 0, must be >= 1")
    }

    /// RESHAPE takes its shape from `new_shape` when the shape operand is absent (-1), and
    /// refuses a `new_shape` with two -1.
    @Test func reshapeReadsNewShape() throws {
        func model(_ newShape: [Int32]) -> [UInt8] {
            SingleOperatorModel.bytes(
                .reshape, inputs: [.init(shape: [4])], outputShape: [2, 2], optionsType: BuiltinOptionsType.reshape,
                options: [0: .int32Vector(newShape)], operatorInputs: [0, -1])
        }
        #expect(try SingleOperatorModel.run(model([2, -1]), inputs: [[1, 2, 3, 4]], mode: .reference) == [1, 2, 3, 4])
        SingleOperatorModel.expectInvalidOperator(model([-1, -1]), "new_shape [-1, -1] must hold dimensions >= 0 and at most one -1")
        SingleOperatorModel.expectInvalidOperator(model([2, -2]), "new_shape [2, -2] must hold dimensions >= 0 and at most one -1")
    }

    /// CONCATENATION reads its axis (negative from the end) and refuses one outside the rank.
    @Test func concatenationReadsItsAxis() throws {
        func model(axis: Int32) -> [UInt8] {
            SingleOperatorModel.bytes(
                .concatenation, inputs: [.init(shape: [1, 1, 1, 2]), .init(shape: [1, 1, 1, 2], constant: [5, 6])],
                outputShape: [1, 1, 1, 4], optionsType: BuiltinOptionsType.concatenation, options: [0: .int32(axis)])
        }
        #expect(try SingleOperatorModel.run(model(axis: -1), inputs: [[1, 2]], mode: .reference) == [1, 2, 5, 6])
        SingleOperatorModel.expectInvalidOperator(model(axis: 4), "axis 4 is out of range for rank-4 input")
    }

    /// An operator no kernel implements is refused by name; a CUSTOM one by its custom code.
    @Test func operatorsWithoutAKernelAreNamed() {
        let floor = SingleOperatorModel.bytes(.floor, inputs: [.init(shape: [4])], outputShape: [4])
        SingleOperatorModel.expectLoadError(floor) {
            if case .unsupportedOperator(0, "FLOOR") = $0 { return true }
            return false
        }
        let custom = SingleOperatorModel.bytes(
            .custom, inputs: [.init(shape: [4])], outputShape: [4], customCode: "MaxPoolingWithArgmax2D")
        SingleOperatorModel.expectLoadError(custom) {
            guard case .unsupportedCustomOperator(0, "MaxPoolingWithArgmax2D") = $0 else { return false }
            return "\($0)" == "operator 0: custom operator 'MaxPoolingWithArgmax2D' is not supported"
        }
    }
}
