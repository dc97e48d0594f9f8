import FlatBufferReader
import Foundation
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("TransformTensorBilinear")
struct TransformTensorBilinearTests {
    static func kernel(_ input: [Int], output: (Int, Int)) throws -> TransformTensorBilinear {
        try TransformTensorBilinear.prepare(
            inputs: [Support.operand(input), Support.operand([1, 4, 4])],
            options: .init(outputHeight: Int32(output.0), outputWidth: Int32(output.1)))
    }

    /// A 4×4 matrix from its first two rows.
    static func matrix(_ x: [Float], _ y: [Float]) -> [Float] { x + y + [0, 0, 1, 0, 0, 0, 0, 1] }

    /// MediaPipe's version-2 sampling, written out plainly: `input` `[1, h, w, c]`.
    static func reference(
        _ input: [Float], h: Int, w: Int, c: Int, matrix m: [Float], outputHeight: Int, outputWidth: Int
    ) -> [Float] {
        var x = Array(m[0..<4]), y = Array(m[4..<8])
        // Corners to centres, in double as MediaPipe's kernel computes it.
        x[3] = Float(Double(x[3]) + (Double(x[0]) * 0.5 + Double(x[1]) * 0.5 - 0.5))
        y[3] = Float(Double(y[3]) + (Double(y[0]) * 0.5 + Double(y[1]) * 0.5 - 0.5))
        func value(_ row: Int, _ column: Int, _ channel: Int) -> Float {
            row < 0 || column < 0 || row >= h || column >= w ? 0 : input[(row * w + column) * c + channel]
        }
        var output: [Float] = []
        for v in 0..<outputHeight {
            for u in 0..<outputWidth {
                let px = x[0] * Float(u) + x[1] * Float(v) + x[2] * 0 + x[3] * 1
                let py = y[0] * Float(u) + y[1] * Float(v) + y[2] * 0 + y[3] * 1
                let inside = px >= 0 && px <= Float(w - 1) && py >= 0 && py <= Float(h - 1)
                for channel in 0..<c {
                    guard inside else {
                        output.append(0)
                        continue
                    }
                    let column = Int(px.rounded(.down)), row = Int(py.rounded(.down))
                    let fx = px - px.rounded(.down), fy = py - py.rounded(.down)
                    let q11 = value(row, column, channel), q21 = value(row, column + 1, channel)
                    let q12 = value(row + 1, column, channel), q22 = value(row + 1, column + 1, channel)
                    let upper = Float((1.0 - Double(fx)) * Double(q11) + Double(fx * q21))
                    let lower = Float((1.0 - Double(fx)) * Double(q12) + Double(fx * q22))
                    output.append(Float(Double(fy * lower) + (1.0 - Double(fy)) * Double(upper)))
                }
            }
        }
        return output
    }

    // MARK: Hand-computed cases

    @Test func identityCopiesTheInput() throws {
        // The identity maps pixel corners to corners, so pixel centres to centres: a copy.
        let input: [Float] = (0..<(5 * 4 * 3)).map { Float($0) * 0.5 - 7 }
        let kernel = try Self.kernel([1, 5, 4, 3], output: (5, 4))
        let identity = Self.matrix([1, 0, 0, 0], [0, 1, 0, 0])
        #expect(runReference(kernel, [input, identity]) == input)
        expectFastMatchesReference(kernel, [input, identity], "identity")
    }

    @Test func halvingAveragesPairsAndOutsideIsZero() throws {
        // Scale 2: output pixel u samples 2u + 0.5, halfway between input pixels 2u and 2u + 1.
        let input: [Float] = [0, 2, 4, 8, 16, 32, 64, 128]  // [1, 2, 4, 1]
        let kernel = try Self.kernel([1, 2, 4, 1], output: (1, 2))
        let halving = Self.matrix([2, 0, 0, 0], [0, 2, 0, 0])
        // Row 0.5: the mean of the two rows, then of the column pairs.
        let halved: [Float] = [12.5, 51]  // (0 + 2 + 16 + 32) / 4, (4 + 8 + 64 + 128) / 4
        #expect(runReference(kernel, [input, halving]) == halved)
        // Shifted one pixel right: output pixel 1 samples column 4.5, outside: 0.
        let shifted = Self.matrix([2, 0, 0, 1], [0, 2, 0, 0])
        let shiftedHalves: [Float] = [25.5, 0]  // (2 + 4 + 32 + 64) / 4, then outside
        #expect(runReference(kernel, [input, shifted]) == shiftedHalves)
        // A point on the last column blends with a column past it, which counts as 0 (weight 0).
        let last = Self.matrix([1, 0, 0, 3], [0, 1, 0, 0])
        let lastKernel = try Self.kernel([1, 2, 4, 1], output: (1, 1))
        #expect(runReference(lastKernel, [input, last]) == [8])
    }

    // MARK: Sweep

    @Test func matchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<200 {
            let (h, w, c) = (Int.random(in: 1...12, using: &rng), Int.random(in: 1...12, using: &rng), Int.random(in: 1...40, using: &rng))
            let (oh, ow) = (Int.random(in: 1...10, using: &rng), Int.random(in: 1...10, using: &rng))
            let input = (0..<(h * w * c)).map { _ in Float.random(in: -4...4, using: &rng) }
            var m: [Float]
            switch trial % 4 {
            case 0:  // an integer grid: samples on pixels, on the last row and column, and past them
                m = Self.matrix(
                    [Float(Int.random(in: 0...2, using: &rng)), 0, 0, Float(Int.random(in: -2...2, using: &rng))],
                    [0, Float(Int.random(in: 0...2, using: &rng)), 0, Float(Int.random(in: -2...2, using: &rng))])
            default:  // a rotation, scale and shift mapping the output roughly over the input
                let angle = Float.random(in: -3.2...3.2, using: &rng), scale = Float.random(in: 0.2...2, using: &rng)
                let (cs, sn) = (scale * cos(angle), scale * sin(angle))
                m = Self.matrix(
                    [cs, -sn, Float.random(in: -1...1, using: &rng), Float.random(in: -3...Float(w), using: &rng)],
                    [sn, cs, Float.random(in: -1...1, using: &rng), Float.random(in: -3...Float(h), using: &rng)])
            }
            let kernel = try Self.kernel([1, h, w, c], output: (oh, ow))
            #expect(kernel.outputShapes[0].dimensions == [1, oh, ow, c])
            let expected = Self.reference(input, h: h, w: w, c: c, matrix: m, outputHeight: oh, outputWidth: ow)
            let context = "input [1, \(h), \(w), \(c)] output \(oh)×\(ow) matrix \(m.prefix(8)), seed \(seed)"
            #expect(runReference(kernel, [input, m]).map(\.bitPattern) == expected.map(\.bitPattern), "\(context)")
            expectFastMatchesReference(kernel, [input, m], context)
        }
    }

    @Test func nanMatrixGivesZeros() throws {
        let kernel = try Self.kernel([1, 2, 2, 2], output: (2, 2))
        let input: [Float] = [1, 2, 3, 4, 5, 6, 7, 8]
        let m = Self.matrix([.nan, 0, 0, 0], [0, 1, 0, 0])
        #expect(runReference(kernel, [input, m]) == [Float](repeating: 0, count: 8))
        expectFastMatchesReference(kernel, [input, m], "NaN matrix")
    }

    // MARK: Operands and options

    @Test func prepareRejectsBadOperands() {
        let name = "TransformTensorBilinear"
        Support.expectError(name, "expects 2 inputs") {
            try TransformTensorBilinear.prepare(inputs: [Support.operand([1, 2, 2, 1])], options: .init(outputHeight: 1, outputWidth: 1))
        }
        Support.expectError(name, "input must have shape [1, H, W, C]") {
            try Self.kernel([2, 2, 2, 1], output: (1, 1))
        }
        Support.expectError(name, "matrix must hold a 4×4 matrix") {
            try TransformTensorBilinear.prepare(
                inputs: [Support.operand([1, 2, 2, 1]), Support.operand([1, 2, 4])], options: .init(outputHeight: 1, outputWidth: 1))
        }
        Support.expectError(name, "output_height is 0") { try Self.kernel([1, 2, 2, 1], output: (0, 1)) }
        Support.expectError(name, "output_width is -2") { try Self.kernel([1, 2, 2, 1], output: (1, -2)) }
    }

    static func model(_ options: [UInt8]?, version: Int32 = 2, outputShape: [Int32] = [1, 2, 2, 3]) -> [UInt8] {
        SingleOperatorModel.bytes(
            .custom, inputs: [.init(shape: [1, 4, 4, 3]), .init(shape: [1, 4, 4])], outputShape: outputShape,
            customCode: "TransformTensorBilinear", version: version, customOptions: options)
    }

    @Test func runsInAModelAndReadsItsOptions() throws {
        var rng = SeededGenerator.announced()
        let input = (0..<48).map { _ in Float.random(in: -1...1, using: &rng) }
        let m = Self.matrix([2, 0.25, 0, 0.5], [-0.25, 2, 0, 0.25])
        let expected = Self.reference(input, h: 4, w: 4, c: 3, matrix: m, outputHeight: 2, outputWidth: 2)
        let options = FlexBufferEncoding.map(["output_height": .int(2), "output_width": .int(2)])
        for mode in Interpreter.ExecutionMode.allCases {
            let output = try SingleOperatorModel.run(Self.model(options), inputs: [input, m], mode: mode, threads: 2)
            #expect(output.map(\.bitPattern) == expected.map(\.bitPattern), "\(mode)")
        }
        // The model's own bytes (1-byte slots) read the same.
        let real: [UInt8] = [
            0x6f, 0x75, 0x74, 0x70, 0x75, 0x74, 0x5f, 0x68, 0x65, 0x69, 0x67, 0x68, 0x74, 0x00, 0x6f, 0x75, 0x74, 0x70,
            0x75, 0x74, 0x5f, 0x77, 0x69, 0x64, 0x74, 0x68, 0x00, 0x02, 0x1c, 0x0f, 0x02, 0x01, 0x02, 0x10, 0x10, 0x04,
            0x04, 0x04, 0x24, 0x01,
        ]
        let table = OptionsTable.custom(real, location: "operator 195")
        #expect(try TransformTensorBilinear.readOptions(table) == .init(outputHeight: 16, outputWidth: 16))
    }

    @Test func refusesBadOptionsAndVersions() {
        SingleOperatorModel.expectInvalidOperator(
            Self.model(FlexBufferEncoding.map(["output_height": .int(2)])), "output_width is 0")
        SingleOperatorModel.expectInvalidOperator(Self.model(nil), "carries no custom_options")
        SingleOperatorModel.expectInvalidOperator(
            Self.model(FlexBufferEncoding.map(["output_height": .int(2), "output_width": .int(2)]), version: 1),
            "version 1; only version 2")
        // Options that disagree with the declared output.
        SingleOperatorModel.expectLoadError(
            Self.model(FlexBufferEncoding.map(["output_height": .int(3), "output_width": .int(2)]))
        ) {
            if case .outputShapeMismatch = $0 { return true }
            return false
        }
        for options in [
            FlexBufferEncoding.map(["output_height": .string("2"), "output_width": .int(2)]),
            FlexBufferEncoding.map(["output_height": .int(2), "output_width": .ints([2])]),
            [0x00, 0x00, 0x00],
        ] {
            SingleOperatorModel.expectLoadError(Self.model(options)) {
                if case .invalidModel = $0 { return true }
                return false
            }
        }
    }
}
