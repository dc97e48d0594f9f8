import Kernels
import Tensor
import TestSupport
import Testing

/// `validate` of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED must accept
/// and reject exactly what `prepare` does, with the same error and the same
/// output shape and cost, while given the weights only as unread constants.
/// The sweep draws small valid shapes and options at random and gives half
/// of the cases one defect.
@Suite struct WeightedValidationTests {
    /// The outcome of `prepare` or `validate`, comparable.
    enum Outcome: Equatable {
        case accepted(shapes: [TensorShape], multiplyAccumulates: Int)
        case rejected(KernelError)
    }

    static func outcome(_ prepare: () throws -> any PreparedKernel) -> Outcome {
        outcome { () throws -> ValidatedOperator in
            let kernel = try prepare()
            return ValidatedOperator(outputShapes: kernel.outputShapes, multiplyAccumulates: kernel.multiplyAccumulates)
        }
    }

    static func outcome(_ validate: () throws -> ValidatedOperator) -> Outcome {
        do {
            let result = try validate()
            return .accepted(shapes: result.outputShapes, multiplyAccumulates: result.multiplyAccumulates)
        } catch let error as KernelError {
            return .rejected(error)
        } catch {
            Issue.record("unexpected error type: \(error)")
            return .rejected(KernelError(op: "?", "\(error)"))
        }
    }

    /// Input, weights and an optional bias, as read and as unread operands:
    /// a valid set for `weightDimensions`, then in half the cases one defect
    /// (a zero or changed dimension, a wrong rank, a runtime, int32 or
    /// miscounted constant, a bias of the wrong size, an extra operand).
    static func operands(
        input inputDimensions: [Int], weights weightDimensions: [Int], biasCount: Int,
        using generator: inout SeededGenerator
    ) -> (read: [Operand], unread: [Operand]) {
        var input = inputDimensions, weights = weightDimensions, bias = biasCount
        var weightKind = 0, extraOperand = false, hasBias = Bool.random(using: &generator)
        if Bool.random(using: &generator) {
            switch Int.random(in: 0..<9, using: &generator) {
            case 0: input[Int.random(in: input.indices, using: &generator)] = 0
            case 1: weights[Int.random(in: weights.indices, using: &generator)] = 0
            case 2: weights[Int.random(in: weights.indices, using: &generator)] += 1
            case 3: input.removeLast()
            case 4: weights.append(1)
            case 5: weightKind = Int.random(in: 1...3, using: &generator)
            case 6: bias += 1; hasBias = true
            case 7: extraOperand = true
            default: input[0] += 1
            }
        }
        func constant(_ dimensions: [Int], kind: Int) -> (read: Operand, unread: Operand) {
            let shape = TensorShape(validated: dimensions)
            switch kind {
            case 1:
                return (Operand(shape: shape), Operand(shape: shape))
            case 2:
                let operand = Operand(shape: shape, constant: .int32([Int32](repeating: 1, count: shape.elementCount)))
                return (operand, operand)
            default:
                let count = shape.elementCount + (kind == 3 ? 1 : 0)
                let values = ConvTestSupport.randomFloats(count, using: &generator)
                return (
                    Operand(shape: shape, constant: .float32(values)),
                    Operand(shape: shape, constant: .unreadFloat32(count: count)))
            }
        }
        let activation = Operand(shape: TensorShape(validated: input))
        let filter = constant(weights, kind: weightKind)
        var read = [activation, filter.read], unread = [activation, filter.unread]
        if hasBias {
            let biasOperand = constant([bias], kind: 0)
            read.append(biasOperand.read)
            unread.append(biasOperand.unread)
        }
        if extraOperand {
            read.append(activation)
            unread.append(activation)
        }
        return (read, unread)
    }

    static func padding(using generator: inout SeededGenerator) -> Padding {
        Bool.random(using: &generator) ? .same : .valid
    }

    @Test func validateMatchesPrepare() {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        var accepted: [String: Int] = [:]
        /// Expects equal outcomes and counts the accepted ones per op.
        func expectSame(_ op: String, _ prepared: Outcome, _ validated: Outcome, trial: Int) {
            #expect(prepared == validated, "\(op) trial \(trial), seed \(seed) (LANDMARKER_SEED)")
            if case .accepted = prepared { accepted[op, default: 0] += 1 }
        }
        for trial in 0..<600 {
            func size() -> Int { Int.random(in: 1...6, using: &generator) }
            let batch = size(), height = size(), width = size(), channels = size()
            let kernelHeight = Int.random(in: 1...3, using: &generator)
            let kernelWidth = Int.random(in: 1...3, using: &generator)
            let stride = Int.random(in: 0..<12, using: &generator) == 0 ? 0 : Int.random(in: 1...3, using: &generator)
            let dilation = Int.random(in: 1...2, using: &generator)
            let activation: FusedActivation = Bool.random(using: &generator) ? .relu : .none

            let outputChannels = size()
            let (read, unread) = Self.operands(
                input: [batch, height, width, channels],
                weights: [outputChannels, kernelHeight, kernelWidth, channels], biasCount: outputChannels,
                using: &generator)
            let conv = Conv2D.Options(
                padding: Self.padding(using: &generator), strideH: stride, strideW: max(stride, 1),
                dilationH: dilation, dilationW: 1, activation: activation)
            expectSame(
                "CONV_2D", Self.outcome { try Conv2D.prepare(inputs: read, options: conv) },
                Self.outcome { try Conv2D.validate(inputs: unread, options: conv) }, trial: trial)

            let multiplier = Int.random(in: 1...2, using: &generator)
            let (readDepthwise, unreadDepthwise) = Self.operands(
                input: [batch, height, width, channels],
                weights: [1, kernelHeight, kernelWidth, channels * multiplier], biasCount: channels * multiplier,
                using: &generator)
            let depthwise = DepthwiseConv2D.Options(
                padding: Self.padding(using: &generator), strideH: max(stride, 1), strideW: stride,
                dilationH: 1, dilationW: dilation, depthMultiplier: multiplier, activation: activation)
            expectSame(
                "DEPTHWISE_CONV_2D",
                Self.outcome { try DepthwiseConv2D.prepare(inputs: readDepthwise, options: depthwise) },
                Self.outcome { try DepthwiseConv2D.validate(inputs: unreadDepthwise, options: depthwise) },
                trial: trial)

            let (readFC, unreadFC) = Self.operands(
                input: [batch, channels], weights: [outputChannels, channels], biasCount: outputChannels,
                using: &generator)
            let fullyConnected = FullyConnected.Options(
                activation: activation, keepNumDims: Bool.random(using: &generator))
            expectSame(
                "FULLY_CONNECTED",
                Self.outcome { try FullyConnected.prepare(inputs: readFC, options: fullyConnected) },
                Self.outcome { try FullyConnected.validate(inputs: unreadFC, options: fullyConnected) },
                trial: trial)
        }
        // The sweep must reach the accepting path of every op, not only errors.
        for op in ["CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"] {
            #expect(
                accepted[op, default: 0] >= 100,
                "\(op): only \(accepted[op, default: 0]) of 600 accepted, seed \(seed)")
        }
    }

    /// Packing can fail for shapes whose own element counts are valid: the
    /// padded GEMM panels of 3 outputs × 2^29 inputs exceed 2^31 floats (one
    /// output's row-major weights, 2^29 floats, fit). `validate` reports it
    /// without allocating anything.
    @Test func validateReportsOversizedPacking() throws {
        let inputs = [
            Operand(shape: TensorShape(validated: [1, 1 << 29])),
            Operand(shape: TensorShape(validated: [3, 1 << 29]), constant: .unreadFloat32(count: 3 << 29)),
        ]
        #expect(throws: KernelError.self) {
            try FullyConnected.validate(inputs: inputs, options: .init())
        }
        #expect(throws: KernelError.self) {
            try PackedGemmWeights.checkSize(outputChannels: 3, inputChannels: 1 << 29)
        }
        try PackedGemmWeights.checkSize(outputChannels: 1, inputChannels: 1 << 29)
    }
}
