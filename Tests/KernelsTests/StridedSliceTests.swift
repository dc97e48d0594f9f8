import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("STRIDED_SLICE")
struct StridedSliceTests {
    private func slice(
        _ dims: [Int], begin: [Int32], end: [Int32], strides: [Int32], options: StridedSlice.Options = .init()
    ) throws -> StridedSlice {
        let rank = dims.count
        return try StridedSlice.prepare(
            inputs: [
                Support.operand(dims), Support.int32Constant([rank], begin), Support.int32Constant([rank], end),
                Support.int32Constant([rank], strides),
            ],
            options: options)
    }

    /// The input 0, 1, 2, … of `dims`, sliced by the reference kernel.
    private func sliced(_ kernel: StridedSlice, _ dims: [Int]) -> [Float] {
        runReference(kernel, [(0..<dims.reduce(1, *)).map(Float.init)])
    }

    @Test func takesTheFirstHalfOfTheChannels() throws {
        // hand_recrop's slices: [1, 2, 2, 8] → the first 4 channels of every pixel.
        let kernel = try slice([1, 2, 2, 8], begin: [0, 0, 0, 0], end: [1, 2, 2, 4], strides: [1, 1, 1, 1])
        #expect(kernel.outputShapes[0].dimensions == [1, 2, 2, 4])
        let expected = (0..<4).flatMap { pixel in (0..<4).map { Float(pixel * 8 + $0) } }
        #expect(sliced(kernel, [1, 2, 2, 8]) == expected)
    }

    @Test func negativeIndicesStridesAndMasks() throws {
        // Every second element from the end backwards: begin masked → the last index.
        let backwards = try slice([7], begin: [0], end: [0], strides: [-2], options: .init(beginMask: 1, endMask: 1))
        #expect(sliced(backwards, [7]) == [6, 4, 2, 0])
        // -3 counts from the end; an end beyond the axis is clamped to it.
        let tail = try slice([7], begin: [-3], end: [100], strides: [1])
        #expect(sliced(tail, [7]) == [4, 5, 6])
        // An empty range gives an empty axis.
        let empty = try slice([7], begin: [5], end: [2], strides: [1])
        #expect(empty.outputShapes[0].dimensions == [0])
        // Shrinking axis 0 takes row 1 and drops the axis: [3, 4] → [4].
        let row = try slice([3, 4], begin: [1, 1], end: [0, 3], strides: [1, 1], options: .init(shrinkAxisMask: 1))
        #expect(row.outputShapes[0].dimensions == [2])
        #expect(sliced(row, [3, 4]) == [5, 6])
    }

    @Test func fastMatchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let rank = Int.random(in: 1...5, using: &rng)
            let dims = (0..<rank).map { _ in Int.random(in: 1...6, using: &rng) }
            let begin = dims.map { Int32.random(in: -Int32($0) - 1...Int32($0) + 1, using: &rng) }
            let end = dims.map { Int32.random(in: -Int32($0) - 1...Int32($0) + 1, using: &rng) }
            let strides = dims.map { _ in [Int32(-3), -2, -1, 1, 1, 1, 2, 3].randomElement(using: &rng)! }
            let options = StridedSlice.Options(
                beginMask: Int32.random(in: 0..<(1 << rank), using: &rng),
                endMask: Int32.random(in: 0..<(1 << rank), using: &rng))
            let kernel = try slice(dims, begin: begin, end: end, strides: strides, options: options)
            let input = (0..<dims.reduce(1, *)).map { _ in Float.random(in: -1...1, using: &rng) }
            expectFastMatchesReference(
                kernel, [input], "dims \(dims) begin \(begin) end \(end) strides \(strides) \(options), seed \(seed)")
        }
    }

    @Test func prepareRejectsBadOperands() {
        Support.expectError("STRIDED_SLICE", "expects 4 inputs") {
            try StridedSlice.prepare(inputs: [Support.operand([2])], options: .init())
        }
        Support.expectError("STRIDED_SLICE", "stride of axis 0 is 0") {
            try slice([4], begin: [0], end: [4], strides: [0])
        }
        Support.expectError("STRIDED_SLICE", "begin must have shape [2]") {
            try StridedSlice.prepare(
                inputs: [
                    Support.operand([2, 2]), Support.int32Constant([1], [0]), Support.int32Constant([2], [2, 2]),
                    Support.int32Constant([2], [1, 1]),
                ],
                options: .init())
        }
        Support.expectError("STRIDED_SLICE", "end must be a constant tensor") {
            try StridedSlice.prepare(
                inputs: [
                    Support.operand([2]), Support.int32Constant([1], [0]), Support.operand([1]),
                    Support.int32Constant([1], [1]),
                ],
                options: .init())
        }
        Support.expectError("STRIDED_SLICE", "begin 5 of shrunk axis 0 is outside its size 4") {
            try slice([4], begin: [5], end: [6], strides: [1], options: .init(shrinkAxisMask: 1))
        }
        Support.expectError("STRIDED_SLICE", "rank 6") {
            try slice([1, 1, 1, 1, 1, 1], begin: [0, 0, 0, 0, 0, 0], end: [1, 1, 1, 1, 1, 1], strides: [1, 1, 1, 1, 1, 1])
        }
    }

    /// A model of one STRIDED_SLICE with `options` (field id → value), sliced `[2, 3, 8]`.
    private func model(options: [Int: TestModel.Field]?, outputShape: [Int32] = [2, 3, 4]) -> [UInt8] {
        SingleOperatorModel.bytes(
            .stridedSlice,
            inputs: [
                .init(shape: [2, 3, 8]), .int32([3], [0, 0, 0]), .int32([3], [2, 3, 8]), .int32([3], [1, 1, 2]),
            ],
            outputShape: outputShape, optionsType: options.map { _ in BuiltinOptionsType.stridedSlice },
            options: options)
    }

    @Test func runsInAModelAndReadsItsOptions() throws {
        var rng = SeededGenerator.announced()
        let input = (0..<48).map { _ in Float.random(in: -1...1, using: &rng) }
        let reference = runReference(
            try slice([2, 3, 8], begin: [0, 0, 0], end: [2, 3, 8], strides: [1, 1, 2]), [input])
        for options in [nil, [:]] as [[Int: TestModel.Field]?] {
            for mode in Interpreter.ExecutionMode.allCases {
                let output = try SingleOperatorModel.run(model(options: options), inputs: [input], mode: mode, threads: 2)
                #expect(output.map(\.bitPattern) == reference.map(\.bitPattern), "\(mode)")
            }
        }
        // shrink_axis_mask (field 4) on axis 0: the first [3, 4] block.
        let shrunk = try SingleOperatorModel.run(
            model(options: [4: .int32(1)], outputShape: [3, 4]), inputs: [input], mode: .reference)
        #expect(shrunk == Array(reference.prefix(12)))
        // ellipsis_mask (field 2) and new_axis_mask (field 3) are refused.
        SingleOperatorModel.expectInvalidOperator(model(options: [2: .int32(1)]), "ellipsis_mask is 1; only 0 is supported")
        SingleOperatorModel.expectInvalidOperator(model(options: [3: .int32(2)]), "new_axis_mask is 2; only 0 is supported")
        SingleOperatorModel.expectInvalidOperator(model(options: [5: .uint8(1)]), "offset is true")
    }
}
