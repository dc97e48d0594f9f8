import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("TransformLandmarks")
struct TransformLandmarksTests {
    static func kernel(_ count: Int, dimensions: Int) throws -> TransformLandmarks {
        try TransformLandmarks.prepare(
            inputs: [Support.operand([1, count, dimensions]), Support.operand([1, 4, 4])], options: .init())
    }

    /// MediaPipe's version-2 transform, written out plainly.
    static func reference(_ landmarks: [Float], dimensions: Int, matrix m: [Float]) -> [Float] {
        var output = landmarks
        for start in stride(from: 0, to: landmarks.count, by: dimensions) {
            let point: [Float] = [landmarks[start], landmarks[start + 1], 0, 1]
            for row in 0..<2 {
                var sum = m[row * 4] * point[0]
                for k in 1..<4 { sum = sum + m[row * 4 + k] * point[k] }
                output[start + row] = sum
            }
        }
        return output
    }

    @Test func handComputedCases() throws {
        let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        let points: [Float] = [1, 2, 3, -4, 5.5, -6]
        #expect(runReference(try Self.kernel(2, dimensions: 3), [points, identity]) == points)
        // A quarter turn, (x, y) → (−y, x), then a shift by (10, 20); z is copied.
        let turn: [Float] = [0, -1, 7, 10, 1, 0, 7, 20, 9, 9, 9, 9, 9, 9, 9, 9]
        #expect(runReference(try Self.kernel(2, dimensions: 3), [points, turn]) == [8, 21, 3, 4.5, 16, -6])
        #expect(runReference(try Self.kernel(3, dimensions: 2), [points, turn]) == [8, 21, 14, 23, 16, 25.5])
    }

    @Test func matchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            let count = Int.random(in: 1...90, using: &rng), dimensions = Int.random(in: 2...3, using: &rng)
            let landmarks = (0..<(count * dimensions)).map { _ in Float.random(in: -200...200, using: &rng) }
            let m = (0..<16).map { _ in Float.random(in: -3...3, using: &rng) }
            let kernel = try Self.kernel(count, dimensions: dimensions)
            let expected = Self.reference(landmarks, dimensions: dimensions, matrix: m)
            let context = "\(count) landmarks of \(dimensions), seed \(seed)"
            #expect(runReference(kernel, [landmarks, m]).map(\.bitPattern) == expected.map(\.bitPattern), "\(context)")
            expectFastMatchesReference(kernel, [landmarks, m], context)
        }
    }

    @Test func prepareRejectsBadOperands() {
        let name = "TransformLandmarks"
        Support.expectError(name, "expects 2 inputs") {
            try TransformLandmarks.prepare(inputs: [Support.operand([1, 5, 2])], options: .init())
        }
        for dims in [[1, 5, 4], [2, 5, 2], [5, 2]] {
            Support.expectError(name, "landmarks must have shape [1, N, 2] or [1, N, 3]") {
                try TransformLandmarks.prepare(inputs: [Support.operand(dims), Support.operand([1, 4, 4])], options: .init())
            }
        }
        Support.expectError(name, "matrix must hold a 4×4 matrix") {
            try TransformLandmarks.prepare(inputs: [Support.operand([1, 5, 2]), Support.operand([3, 3])], options: .init())
        }
    }

    static func model(version: Int32 = 2, customOptions: [UInt8]? = nil) -> [UInt8] {
        SingleOperatorModel.bytes(
            .custom, inputs: [.init(shape: [1, 5, 2]), .init(shape: [1, 4, 4])], outputShape: [1, 5, 2],
            customCode: "TransformLandmarks", version: version, customOptions: customOptions)
    }

    @Test func runsInAModel() throws {
        var rng = SeededGenerator.announced()
        let landmarks = (0..<10).map { _ in Float.random(in: -50...50, using: &rng) }
        let m = (0..<16).map { _ in Float.random(in: -2...2, using: &rng) }
        let expected = Self.reference(landmarks, dimensions: 2, matrix: m)
        // Version 2 reads no options, whatever the operator carries.
        for options in [nil, [0xff]] as [[UInt8]?] {
            for mode in Interpreter.ExecutionMode.allCases {
                let output = try SingleOperatorModel.run(
                    Self.model(customOptions: options), inputs: [landmarks, m], mode: mode)
                #expect(output.map(\.bitPattern) == expected.map(\.bitPattern), "\(mode)")
            }
        }
        SingleOperatorModel.expectInvalidOperator(Self.model(version: 1), "version 1; only version 2")
        // Another custom code has no kernel.
        SingleOperatorModel.expectLoadError(
            SingleOperatorModel.bytes(
                .custom, inputs: [.init(shape: [1, 5, 2]), .init(shape: [1, 4, 4])], outputShape: [1, 5, 2],
                customCode: "TransformLandmarksV3", version: 2)
        ) {
            if case .unsupportedCustomOperator(0, "TransformLandmarksV3") = $0 { return true }
            return false
        }
    }
}
