#if canImport(Glibc)
import Glibc
#endif
import FlatBufferReader
import Inference
import Kernels
import Tensor
import TestSupport
import Testing

private typealias Support = ElementwiseTestSupport

@Suite("Landmarks2TransformMatrix")
struct LandmarksToTransformMatrixTests {
    /// The lips' options of face_landmark_with_attention, with a subset of the test's choosing.
    static func options(subset: [Int32], left: Int32 = 0, right: Int32 = 1, target: Float = 0,
                        size: (Int32, Int32) = (16, 16), scale: (Float, Float) = (1, 1))
        -> LandmarksToTransformMatrix.Options
    {
        .init(
            subset: subset, leftRotationIndex: left, rightRotationIndex: right, targetRotationRadians: target,
            outputHeight: size.0, outputWidth: size.1, scaleX: scale.0, scaleY: scale.1)
    }

    static func matrix(_ landmarks: [[Float]], _ options: LandmarksToTransformMatrix.Options) throws -> [Float] {
        let kernel = try LandmarksToTransformMatrix.prepare(
            inputs: [Support.operand([1, landmarks.count, 3])], options: options)
        return runReference(kernel, [landmarks.flatMap { $0 }])
    }

    // MARK: The reference

    /// Row-major matrix product of `a` (n×n) and `b`, each element summed from 0 over k in order.
    static func product(_ a: [Float], _ b: [Float], _ n: Int) -> [Float] {
        var c = [Float](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in 0..<n {
                var sum: Float = 0
                for k in 0..<n { sum = sum + a[i * n + k] * b[k * n + j] }
                c[i * n + j] = sum
            }
        }
        return c
    }

    /// A 3×3 matrix times the column (x, y, z), each coordinate summed from 0.
    static func apply(_ m: [Float], _ v: [Float]) -> [Float] {
        (0..<3).map { i in
            var sum: Float = 0
            for k in 0..<3 { sum = sum + m[i * 3 + k] * v[k] }
            return sum
        }
    }

    /// MediaPipe's version-2 matrix, written out plainly.
    static func reference(_ landmarks: [[Float]], _ o: LandmarksToTransformMatrix.Options) -> [Float] {
        let l = landmarks[Int(o.leftRotationIndex)], r = landmarks[Int(o.rightRotationIndex)]
        let rotation = o.targetRotationRadians - atan2f(r[1] - l[1], r[0] - l[0])
        let turn: [Float] = [cosf(rotation), -sinf(rotation), 0, sinf(rotation), cosf(rotation), 0, 0, 0, 1]
        let back: [Float] = [cosf(-rotation), -sinf(-rotation), 0, sinf(-rotation), cosf(-rotation), 0, 0, 0, 1]
        let turned = o.subset.map { apply(turn, [landmarks[Int($0)][0], landmarks[Int($0)][1], 1]) }
        var low = turned[0], high = turned[0]
        for p in turned.dropFirst() {
            if high[0] < p[0] { high[0] = p[0] }
            if high[1] < p[1] { high[1] = p[1] }
            if low[0] > p[0] { low[0] = p[0] }
            if low[1] > p[1] { low[1] = p[1] }
        }
        let width = high[0] - low[0], height = high[1] - low[1]
        let centre = apply(back, [(low[0] + high[0]) / 2, (low[1] + high[1]) / 2, low[2]])
        let a = -rotation
        var m: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        m = product(m, [1, 0, 0, centre[0], 0, 1, 0, centre[1], 0, 0, 1, 0, 0, 0, 0, 1], 4)
        m = product(m, [cosf(a), -sinf(a), 0, 0, sinf(a), cosf(a), 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 4)
        let sx = o.scaleX * width / Float(o.outputWidth), sy = o.scaleY * height / Float(o.outputHeight)
        m = product(m, [sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 4)
        let tx = Float(-Double(o.outputWidth) / 2), ty = Float(-Double(o.outputHeight) / 2)
        return product(m, [1, 0, 0, tx, 0, 1, 0, ty, 0, 0, 1, 0, 0, 0, 0, 1], 4)
    }

    // MARK: Hand-computed cases

    @Test func levelBoxGivesScaleAndShift() throws {
        // Left (0, 0) to right (1, 0): no rotation. The subset's box is [2, 6] × [1, 3]: 4 × 2,
        // centred at (4, 2). Crop pixel (0, 0) maps to the box's corner (2, 1), (16, 16) to (6, 3).
        let landmarks: [[Float]] = [[0, 0, 0], [1, 0, 0], [2, 1, 5], [6, 3, -5], [3, 2, 0]]
        let m = try Self.matrix(landmarks, Self.options(subset: [2, 3, 4]))
        #expect(m == [0.25, 0, 0, 2, 0, 0.125, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1])
        // Scales of 1.5 enlarge the crop about the centre.
        let wide = try Self.matrix(landmarks, Self.options(subset: [2, 3, 4], scale: (1.5, 1.5)))
        #expect(wide == [0.375, 0, 0, 1, 0, 0.1875, 0, 0.5, 0, 0, 1, 0, 0, 0, 0, 1])
    }

    @Test func quarterTurn() throws {
        // Left (0, 0) to right (0, 1) points down: rotation −π/2 levels it. The subset (0, 0),
        // (0, 4), (1, 2) turned is (0, 0), (4, 0), (2, −1): a 4 × 1 box centred at (2, −0.5),
        // which turned back is (0.5, 2). The crop's x runs down the image, its y to the left:
        // crop (0, 0) maps to (1, 0), (16, 16) to (0, 4).
        let landmarks: [[Float]] = [[0, 0, 0], [0, 4, 0], [1, 2, 0], [0, 1, 0]]
        let m = try Self.matrix(landmarks, Self.options(subset: [0, 1, 2], left: 0, right: 3))
        let expected: [Float] = [0, -0.0625, 0, 1, 0.25, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        for (index, (got, want)) in zip(m, expected).enumerated() {
            #expect(abs(got - want) < 1e-6, "element \(index): \(got), expected \(want)")
        }
        #expect(m == Self.reference(landmarks, Self.options(subset: [0, 1, 2], left: 0, right: 3)))
    }

    // MARK: Sweep

    @Test func matchesReference() throws {
        let seed = SeededGenerator.seed()
        var rng = SeededGenerator(seed: seed)
        for trial in 0..<300 {
            let count = Int.random(in: 2...40, using: &rng)
            let spread = [Float(1), 48, 1000].randomElement(using: &rng)!
            var landmarks = (0..<count).map { _ in (0..<3).map { _ in Float.random(in: -spread...spread, using: &rng) } }
            if trial % 10 == 0 { landmarks[1] = landmarks[0] }  // coincident rotation landmarks: atan2(0, 0)
            let subset = (0..<Int.random(in: 1...12, using: &rng)).map { _ in Int32.random(in: 0..<Int32(count), using: &rng) }
            let options = Self.options(
                subset: subset, left: Int32.random(in: 0..<Int32(count), using: &rng),
                right: Int32.random(in: 0..<Int32(count), using: &rng),
                target: trial % 3 == 0 ? 0 : Float.random(in: -4...4, using: &rng),
                size: (Int32.random(in: 1...64, using: &rng), Int32.random(in: 1...64, using: &rng)),
                scale: (Float.random(in: 0.1...3, using: &rng), Float.random(in: 0.1...3, using: &rng)))
            let kernel = try LandmarksToTransformMatrix.prepare(inputs: [Support.operand([1, count, 3])], options: options)
            let expected = Self.reference(landmarks, options)
            let input = landmarks.flatMap { $0 }
            #expect(runReference(kernel, [input]).map(\.bitPattern) == expected.map(\.bitPattern), "\(options), seed \(seed)")
            expectFastMatchesReference(kernel, [input], "\(options), seed \(seed)")
        }
    }

    // MARK: Operands and options

    @Test func prepareRejectsBadOperandsAndOptions() {
        let name = "Landmarks2TransformMatrix"
        let good = Self.options(subset: [0, 1])
        Support.expectError(name, "expects 1 input") {
            try LandmarksToTransformMatrix.prepare(inputs: [], options: good)
        }
        Support.expectError(name, "must have shape [1, N, 3]") {
            try LandmarksToTransformMatrix.prepare(inputs: [Support.operand([1, 4, 2])], options: good)
        }
        Support.expectError(name, "landmark index 4 is outside the 4 landmarks") {
            try LandmarksToTransformMatrix.prepare(inputs: [Support.operand([1, 4, 3])], options: Self.options(subset: [0, 4]))
        }
        Support.expectError(name, "subset_idxs is empty") {
            try LandmarksToTransformMatrix.prepare(inputs: [Support.operand([1, 4, 3])], options: Self.options(subset: []))
        }
        Support.expectError(name, "left_rotation_idx is -1") {
            try LandmarksToTransformMatrix.prepare(
                inputs: [Support.operand([1, 4, 3])], options: Self.options(subset: [0], left: -1))
        }
        Support.expectError(name, "output_width is 0") {
            try LandmarksToTransformMatrix.prepare(
                inputs: [Support.operand([1, 4, 3])], options: Self.options(subset: [0], size: (16, 0)))
        }
        Support.expectError(name, "scale_y is nan") {
            try LandmarksToTransformMatrix.prepare(
                inputs: [Support.operand([1, 4, 3])], options: Self.options(subset: [0], scale: (1, .nan)))
        }
    }

    static let lipsOptionEntries: [String: FlexBufferEncoding.Value] = [
        "left_rotation_idx": .int(0), "right_rotation_idx": .int(1), "subset_idxs": .ints([2, 3, 4]),
        "output_height": .int(16), "output_width": .int(16), "scale_x": .float(1.5), "scale_y": .float(1.5),
        "target_rotation_radians": .float(0),
    ]

    static func model(_ options: [UInt8]?, version: Int32 = 2, landmarks: Int32 = 5) -> [UInt8] {
        SingleOperatorModel.bytes(
            .custom, inputs: [.init(shape: [1, landmarks, 3])], outputShape: [1, 4, 4],
            customCode: "Landmarks2TransformMatrix", version: version, customOptions: options)
    }

    @Test func runsInAModelAndReadsItsOptions() throws {
        let landmarks: [Float] = [0, 0, 0, 1, 0, 0, 2, 1, 5, 6, 3, -5, 3, 2, 0]
        for mode in Interpreter.ExecutionMode.allCases {
            let output = try SingleOperatorModel.run(
                Self.model(FlexBufferEncoding.map(Self.lipsOptionEntries)), inputs: [landmarks], mode: mode)
            #expect(output == [0.375, 0, 0, 1, 0, 0.1875, 0, 0.5, 0, 0, 1, 0, 0, 0, 0, 1], "\(mode)")
        }
        // target_rotation_radians may be left out (0); an int reads as a float.
        var entries = Self.lipsOptionEntries
        entries["target_rotation_radians"] = nil
        entries["scale_x"] = .int(1)
        let output = try SingleOperatorModel.run(
            Self.model(FlexBufferEncoding.map(entries)), inputs: [landmarks], mode: .reference)
        #expect(output == [0.25, 0, 0, 2, 0, 0.1875, 0, 0.5, 0, 0, 1, 0, 0, 0, 0, 1])
    }

    @Test func refusesBadOptionsAndVersions() {
        func withEntry(_ key: String, _ value: FlexBufferEncoding.Value?) -> [UInt8] {
            var entries = Self.lipsOptionEntries
            entries[key] = value
            return Self.model(FlexBufferEncoding.map(entries))
        }
        // Values the kernel cannot use: KernelErrors.
        SingleOperatorModel.expectInvalidOperator(withEntry("scale_x", nil), "scale_x is 0.0")
        SingleOperatorModel.expectInvalidOperator(withEntry("subset_idxs", .ints([0, -3])), "subset_idxs[1] is -3")
        SingleOperatorModel.expectInvalidOperator(withEntry("subset_idxs", .ints([0, 5])), "landmark index 5 is outside")
        SingleOperatorModel.expectInvalidOperator(Self.model(nil), "carries no custom_options")
        SingleOperatorModel.expectInvalidOperator(
            Self.model(FlexBufferEncoding.map(Self.lipsOptionEntries), version: 1), "version 1; only version 2")
        // Values of the wrong type, and bytes that are no FlexBuffer: ModelErrors.
        for bytes in [
            withEntry("scale_y", .string("1.5")), withEntry("subset_idxs", .int(3)), withEntry("output_height", .float(16)),
            Self.model([0x01, 0x02, 0x03]), Self.model(Array(FlexBufferEncoding.map(Self.lipsOptionEntries).dropLast(3))),
        ] {
            SingleOperatorModel.expectLoadError(bytes) {
                if case .invalidModel = $0 { return true }
                return false
            }
        }
    }
}
