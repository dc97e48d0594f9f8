#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FlatBufferReader
import Tensor

/// MediaPipe's custom operator `Landmarks2TransformMatrix`, version 2: the affine map from the
/// pixels of a small crop, aligned with a face feature, to the pixels of a feature map, fitted
/// to a subset of landmarks. face_landmark_with_attention uses it three times (lips, left eye,
/// right eye) to crop 16×16 patches of a 48×48 feature map (`TransformTensorBilinear`).
///
/// Input: landmarks `[1, N, 3]` (x, y, z per landmark; x and y in the pixels of the feature
/// map the matrix addresses: in the model, the 468 mesh landmarks times 0.25, from the 192×192
/// input to the 48×48 map; z is not read). Output: `[1, 4, 4]`, a row-major 4×4
/// matrix `M` taking a crop pixel `(u, v, 0, 1)` to a feature-map point, `M · (u, v, 0, 1)`.
/// Only the first two rows and the first, second and fourth columns carry the map; the rest
/// is the identity's.
///
/// The computation, in float32 throughout (options in `Options`):
/// 1. rotation `r = target − atan2(y_right − y_left, x_right − x_left)`, from the landmarks at
///    `leftRotationIndex` and `rightRotationIndex`;
/// 2. the subset's landmarks rotated by `r` about the origin; their bounding box gives the
///    crop's width and height and, rotated back by `−r`, its centre `(cx, cy)`;
/// 3. `M = Shift(cx, cy) · Rotation(−r) · Scale(scaleX · width / outputWidth,
///    scaleY · height / outputHeight) · Shift(−outputWidth / 2, −outputHeight / 2)`, each
///    product accumulated term by term from 0, as MediaPipe's CPU kernel
///    (`mediapipe/util/tflite/operations/landmarks_to_transform_matrix.cc`) multiplies its
///    matrices, with every multiply and add rounded on its own (no fused multiply-add, as that
///    kernel is built for baseline x86-64), and with the C library's `atan2f`, `cosf` and
///    `sinf`. The crop pixel `(0, 0)` maps to the box's corner, `(outputWidth, outputHeight)`
///    to the opposite one, enlarged by the scales about the centre.
///
/// Version 1 of the operator computes another matrix from other options; it is refused.
public struct LandmarksToTransformMatrix: OperatorDescriptor {
    /// The operator's custom options (a FlexBuffer map; keys in parentheses).
    public struct Options: Sendable, Hashable {
        /// The landmarks whose bounding box (after rotation) the crop covers (`subset_idxs`;
        /// the model stores them as pairs, an odd last one paired with itself, which changes
        /// no box).
        public var subset: [Int32]
        /// The landmarks from which the rotation is measured (`left_rotation_idx`,
        /// `right_rotation_idx`).
        public var leftRotationIndex: Int32
        public var rightRotationIndex: Int32
        /// The angle, in radians, the left-to-right direction is turned to
        /// (`target_rotation_radians`; 0 when absent).
        public var targetRotationRadians: Float
        /// The crop's size in pixels (`output_height`, `output_width`).
        public var outputHeight: Int32
        public var outputWidth: Int32
        /// How much larger than the box the crop is (`scale_x`, `scale_y`).
        public var scaleX: Float
        public var scaleY: Float

        public init(
            subset: [Int32], leftRotationIndex: Int32, rightRotationIndex: Int32, targetRotationRadians: Float = 0,
            outputHeight: Int32, outputWidth: Int32, scaleX: Float, scaleY: Float
        ) {
            self.subset = subset
            self.leftRotationIndex = leftRotationIndex
            self.rightRotationIndex = rightRotationIndex
            self.targetRotationRadians = targetRotationRadians
            self.outputHeight = outputHeight
            self.outputWidth = outputWidth
            self.scaleX = scaleX
            self.scaleY = scaleY
        }
    }

    public static let builtin = BuiltinOperator.custom
    public static let custom: CustomOperatorCode? = CustomOperatorCode("Landmarks2TransformMatrix", version: 2)
    public static let optionsType: UInt8 = 0

    /// Reads the FlexBuffer options. A missing key reads as 0 (as MediaPipe's parser reads
    /// it), so only `target_rotation_radians` may be left out; indices must be ≥ 0, the sizes
    /// and scales > 0 and the subset not empty (a `KernelError` otherwise), and a value of
    /// the wrong type is a `ModelError`.
    public static func readOptions(_ table: OptionsTable) throws -> Options {
        guard let map = try table.customOptions() else {
            throw KernelError(op: name, "carries no custom_options")
        }
        let options = Options(
            subset: try map.int32s("subset_idxs") ?? [],
            leftRotationIndex: try map.int32("left_rotation_idx") ?? 0,
            rightRotationIndex: try map.int32("right_rotation_idx") ?? 0,
            targetRotationRadians: try map.float("target_rotation_radians") ?? 0,
            outputHeight: try map.int32("output_height") ?? 0, outputWidth: try map.int32("output_width") ?? 0,
            scaleX: try map.float("scale_x") ?? 0, scaleY: try map.float("scale_y") ?? 0)
        try check(options)
        return options
    }

    /// The checks of MediaPipe's kernel, and a non-empty subset.
    static func check(_ options: Options) throws {
        guard !options.subset.isEmpty else { throw KernelError(op: name, "subset_idxs is empty") }
        for (key, index) in [("left_rotation_idx", options.leftRotationIndex), ("right_rotation_idx", options.rightRotationIndex)]
        where index < 0 {
            throw KernelError(op: name, "\(key) is \(index); it must be ≥ 0")
        }
        if let negative = options.subset.firstIndex(where: { $0 < 0 }) {
            throw KernelError(op: name, "subset_idxs[\(negative)] is \(options.subset[negative]); it must be ≥ 0")
        }
        for (key, size) in [("output_height", options.outputHeight), ("output_width", options.outputWidth)] where size <= 0 {
            throw KernelError(op: name, "\(key) is \(size); it must be > 0")
        }
        for (key, scale) in [("scale_x", options.scaleX), ("scale_y", options.scaleY)] where !(scale > 0) {
            throw KernelError(op: name, "\(key) is \(scale); it must be > 0")
        }
    }

    public let opName = "Landmarks2TransformMatrix"
    public let outputShapes = [TensorShape(validated: [1, 4, 4])]
    let options: Options

    /// Validates the operands: one input `[1, N, 3]` with every index of the options below `N`.
    public static func prepare(inputs: [Operand], options: Options) throws -> LandmarksToTransformMatrix {
        guard inputs.count == 1 else {
            throw KernelError(op: name, "expects 1 input (landmarks), got \(inputs.count)")
        }
        try check(options)
        let shape = inputs[0].shape
        guard shape.rank == 3, shape[0] == 1, shape[2] == 3 else {
            throw KernelError(op: name, "landmarks must have shape [1, N, 3], got \(shape)")
        }
        let count = shape[1]
        for index in options.subset + [options.leftRotationIndex, options.rightRotationIndex] where Int(index) >= count {
            throw KernelError(op: name, "landmark index \(index) is outside the \(count) landmarks")
        }
        return LandmarksToTransformMatrix(options: options)
    }

    public func runReference(_ io: KernelIO) {
        let landmarks = io.inputs[0], output = io.outputs[0]
        let o = options
        func x(_ index: Int32) -> Float { landmarks[Int(index) * 3] }
        func y(_ index: Int32) -> Float { landmarks[Int(index) * 3 + 1] }

        let left = o.leftRotationIndex, right = o.rightRotationIndex
        let rotation = o.targetRotationRadians - atan2f(y(right) - y(left), x(right) - x(left))

        // The subset rotated by `rotation` (each landmark as (x, y, 1) times the rotation's
        // 3×3 matrix, sums from 0 in column order), and its bounding box.
        let turn = Matrix3(cosf(rotation), -sinf(rotation), sinf(rotation), cosf(rotation))
        var minimum = turn.times(x(o.subset[0]), y(o.subset[0]), 1), maximum = minimum
        for index in o.subset.dropFirst() {
            let point = turn.times(x(index), y(index), 1)
            if maximum.x < point.x { maximum.x = point.x }
            if maximum.y < point.y { maximum.y = point.y }
            if minimum.x > point.x { minimum.x = point.x }
            if minimum.y > point.y { minimum.y = point.y }
        }
        let width = maximum.x - minimum.x, height = maximum.y - minimum.y
        // The box's centre, rotated back (its third coordinate is the first landmark's).
        let back = Matrix3(cosf(-rotation), -sinf(-rotation), sinf(-rotation), cosf(-rotation))
        let centre = back.times((minimum.x + maximum.x) / 2, (minimum.y + maximum.y) / 2, minimum.z)

        let angle = -rotation
        var matrix = Matrix4.identity
        matrix.multiply(by: Matrix4(rows: (1, 0, 0, centre.x), (0, 1, 0, centre.y)))
        matrix.multiply(by: Matrix4(rows: (cosf(angle), -sinf(angle), 0, 0), (sinf(angle), cosf(angle), 0, 0)))
        let scaleX = o.scaleX * width / Float(o.outputWidth), scaleY = o.scaleY * height / Float(o.outputHeight)
        matrix.multiply(by: Matrix4(rows: (scaleX, 0, 0, 0), (0, scaleY, 0, 0)))
        // Half the crop size, computed in double as MediaPipe does (exact for any int32 size).
        let shiftX = Float(-1.0 * (Double(o.outputWidth) / 2.0)), shiftY = Float(-1.0 * (Double(o.outputHeight) / 2.0))
        matrix.multiply(by: Matrix4(rows: (1, 0, 0, shiftX), (0, 1, 0, shiftY)))
        for i in 0..<16 { output[i] = matrix.elements[i] }
    }
}

/// A 3×3 matrix whose last row and column are the identity's, applied as MediaPipe applies
/// its 3×3 matrices: each output coordinate summed from 0, one rounded product at a time.
private struct Matrix3 {
    let a: Float, b: Float, c: Float, d: Float

    /// The rotation-like matrix `[[a, b, 0], [c, d, 0], [0, 0, 1]]`.
    init(_ a: Float, _ b: Float, _ c: Float, _ d: Float) {
        (self.a, self.b, self.c, self.d) = (a, b, c, d)
    }

    func times(_ x: Float, _ y: Float, _ z: Float) -> (x: Float, y: Float, z: Float) {
        var rx: Float = 0
        rx += a * x
        rx += b * y
        rx += 0 * z
        var ry: Float = 0
        ry += c * x
        ry += d * y
        ry += 0 * z
        var rz: Float = 0
        rz += 0 * x
        rz += 0 * y
        rz += 1 * z
        return (rx, ry, rz)
    }
}

/// A row-major 4×4 float matrix, multiplied as MediaPipe's kernel multiplies its matrices.
private struct Matrix4 {
    var elements: SIMD16<Float>

    static let identity = Matrix4(rows: (1, 0, 0, 0), (0, 1, 0, 0))

    /// The matrix with rows `first`, `second`, (0, 0, 1, 0) and (0, 0, 0, 1).
    init(rows first: (Float, Float, Float, Float), _ second: (Float, Float, Float, Float)) {
        elements = [
            first.0, first.1, first.2, first.3, second.0, second.1, second.2, second.3,
            0, 0, 1, 0, 0, 0, 0, 1,
        ]
    }

    /// `self = self · other`, each element summed from 0 over k = 0, 1, 2, 3.
    mutating func multiply(by other: Matrix4) {
        var result = SIMD16<Float>()
        for row in 0..<4 {
            for column in 0..<4 {
                var sum: Float = 0
                for k in 0..<4 { sum += elements[row * 4 + k] * other.elements[k * 4 + column] }
                result[row * 4 + column] = sum
            }
        }
        elements = result
    }
}
