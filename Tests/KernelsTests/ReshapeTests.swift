import Kernels
import Tensor
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("RESHAPE")
struct ReshapeTests {
    private func outputDims(_ inputs: [Operand], newShape: [Int32]? = nil) throws -> [Int] {
        try Reshape.prepare(inputs: inputs, options: .init(newShape: newShape)).outputShapes[0].dimensions
    }

    @Test func inferredDimensionAndCopiedValues() throws {
        let kernel = try Reshape.prepare(
            inputs: [Support.operand([2, 3, 4]), Support.int32Constant([2], [4, -1])], options: .init())
        #expect(kernel.outputShapes[0].dimensions == [4, 6])
        let input: [Float] = (0..<24).map { Float($0) * 0.5 }
        #expect(runReference(kernel, [input]) == input)
        #expect(try outputDims([Support.operand([2, 3, 4]), Support.int32Constant([3], [-1, 1, 2])]) == [12, 1, 2])
    }

    @Test func shapeComesFromTheOperandOrTheOptions() throws {
        // With a 1-D shape operand the operand wins over the options.
        #expect(try outputDims([Support.operand([6]), Support.int32Constant([2], [2, 3])], newShape: [3, 2]) == [2, 3])
        // Without one, the new_shape option is used.
        #expect(try outputDims([Support.operand([6])], newShape: [3, 2]) == [3, 2])
        #expect(try outputDims([Support.operand([6])], newShape: [-1, 2]) == [3, 2])
        // A shape operand that is not a vector is ignored, as TFLite does.
        #expect(try outputDims([Support.operand([6]), Support.int32Constant([1, 2], [2, 3])], newShape: [6, 1]) == [6, 1])
    }

    @Test func scalarsAndEmptyTensors() throws {
        // The legacy option [0] and an absent option both mean a scalar.
        #expect(try outputDims([Support.operand([1, 1])], newShape: [0]) == [])
        #expect(try outputDims([Support.operand([1])]) == [])
        // A shape operand [0] is a genuine empty vector.
        #expect(try outputDims([Support.operand([0, 3]), Support.int32Constant([1], [0])]) == [0])
        // -1 next to a zero size is inferred as 0 for an empty input.
        #expect(try outputDims([Support.operand([0, 3])], newShape: [0, -1]) == [0, 0])
    }

    @Test func prepareRejectsBadShapes() {
        let input = Support.operand([2, 3, 4])
        Support.expectError("RESHAPE", "expects 1 or 2 inputs") {
            try Reshape.prepare(inputs: [], options: .init(newShape: [24]))
        }
        Support.expectError("RESHAPE", "expects 1 or 2 inputs") {
            try Reshape.prepare(inputs: [input, input, input], options: .init(newShape: [24]))
        }
        Support.expectError("RESHAPE", "more than one -1") {
            try Reshape.prepare(inputs: [input, Support.int32Constant([3], [-1, 2, -1])], options: .init())
        }
        Support.expectError("RESHAPE", "constant") {
            try Reshape.prepare(inputs: [input, Support.operand([2])], options: .init())
        }
        Support.expectError("RESHAPE", "int32") {
            try Reshape.prepare(inputs: [input, Support.floatConstant([2], [4, 6])], options: .init())
        }
        Support.expectError("RESHAPE", "holds 1 values") {
            try Reshape.prepare(inputs: [input, Support.int32Constant([2], [24])], options: .init())
        }
        Support.expectError("RESHAPE", "dimension -2") {
            try Reshape.prepare(inputs: [input], options: .init(newShape: [-2, -12]))
        }
        Support.expectError("RESHAPE", "with 25 elements, but input [2, 3, 4] has 24") {
            try Reshape.prepare(inputs: [input], options: .init(newShape: [5, 5]))
        }
        Support.expectError("RESHAPE", "not a multiple of 5") {
            try Reshape.prepare(inputs: [input], options: .init(newShape: [5, -1]))
        }
        Support.expectError("RESHAPE", "multiply to 0") {
            try Reshape.prepare(inputs: [input], options: .init(newShape: [0, -1]))
        }
        Support.expectError("RESHAPE", "rank 9") {
            try Reshape.prepare(inputs: [input], options: .init(newShape: [2, 3, 4, 1, 1, 1, 1, 1, 1]))
        }
        Support.expectError("RESHAPE", "too many elements") {
            try Reshape.prepare(inputs: [input], options: .init(newShape: [1 << 30, 1 << 30]))
        }
        Support.expectError("RESHAPE", "scalar") {
            try Reshape.prepare(inputs: [input], options: .init())
        }
    }
}
