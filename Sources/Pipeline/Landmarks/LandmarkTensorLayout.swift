/// How a landmark model lays out its landmark tensors, and the decoding of them
/// (MediaPipe `TensorsToLandmarksCalculator`, docs/PIPELINE.md, "Landmark decoding and projection",
/// "Pose landmark model" and "Hand landmark model").
///
/// Landmark *i* reads values `[i·d, i·d + d)`: x, y, then z if `d ≥ 3`, visibility and presence
/// if `d ≥ 4` / `d ≥ 5`, both passed through a sigmoid. The normalized output is
/// `x/W_t`, `y/H_t`, `z/W_t/normalizeZ` (0 without z) in the crop's frame.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct LandmarkTensorLayout: Sendable, Hashable {
    /// Landmarks in the tensor (39 pose, 21 hand, 468 face).
    package let landmarkCount: Int
    /// Values per landmark in the normalized-landmark tensor, 2...5 (5 pose, 3 hand and face,
    /// 2 hand recrop).
    package let valuesPerLandmark: Int
    /// Model input width in pixels, the unit of x and z in the tensor (256 pose, 224 hand, 192 face).
    package let inputWidth: Int
    /// Model input height in pixels, the unit of y (256 pose, 224 hand, 192 face).
    package let inputHeight: Int
    /// Extra divisor of z (1 pose and face, 0.4 hand).
    package let normalizeZ: Float

    /// - Throws: ``PipelineInputError/invalidOption(name:reason:)`` for non-positive counts or
    ///   sizes, `valuesPerLandmark` outside 2...5, a non-positive `normalizeZ`, or a tensor size
    ///   that overflows `Int`.
    package init(landmarkCount: Int, valuesPerLandmark: Int, inputWidth: Int, inputHeight: Int, normalizeZ: Float) throws {
        guard landmarkCount > 0 else {
            throw PipelineInputError.invalidOption(name: "landmarkCount", reason: "\(landmarkCount) is not positive")
        }
        guard (2...5).contains(valuesPerLandmark) else {
            throw PipelineInputError.invalidOption(
                name: "valuesPerLandmark", reason: "\(valuesPerLandmark) is not in 2...5")
        }
        guard inputWidth > 0, inputHeight > 0 else {
            throw PipelineInputError.invalidOption(
                name: "input size", reason: "\(inputWidth)×\(inputHeight) is not positive")
        }
        guard normalizeZ > 0 else {
            throw PipelineInputError.invalidOption(name: "normalizeZ", reason: "\(normalizeZ) is not positive")
        }
        guard !landmarkCount.multipliedReportingOverflow(by: valuesPerLandmark).overflow else {
            throw PipelineInputError.sizeOutOfRange(what: "landmark tensor")
        }
        self.init(
            validLandmarkCount: landmarkCount, valuesPerLandmark: valuesPerLandmark,
            inputWidth: inputWidth, inputHeight: inputHeight, normalizeZ: normalizeZ)
    }

    private init(validLandmarkCount: Int, valuesPerLandmark: Int, inputWidth: Int, inputHeight: Int, normalizeZ: Float) {
        self.landmarkCount = validLandmarkCount
        self.valuesPerLandmark = valuesPerLandmark
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.normalizeZ = normalizeZ
    }

    /// pose_landmark_full.tflite: `Identity` [1,195] = 39 × (x, y, z, visibility, presence) in
    /// pixels of the 256×256 crop, normalize_z 1; `Identity_4` [1,117] = 39 × (x, y, z) metres.
    package static let pose = LandmarkTensorLayout(
        validLandmarkCount: 39, valuesPerLandmark: 5, inputWidth: 256, inputHeight: 256, normalizeZ: 1)

    /// hand_landmark_full/lite.tflite: `Identity` [1,63] = 21 × (x, y, z) in pixels of the
    /// 224×224 crop, normalize_z 0.4; `Identity_3` [1,63] = 21 × (x, y, z) metres.
    package static let hand = LandmarkTensorLayout(
        validLandmarkCount: 21, valuesPerLandmark: 3, inputWidth: 224, inputHeight: 224, normalizeZ: 0.4)

    /// face_landmark.tflite: `conv2d_21` [1,1,1,1404] = 468 × (x, y, z) in pixels of the
    /// 192×192 crop, normalize_z 1. No world landmarks.
    package static let face = LandmarkTensorLayout(
        validLandmarkCount: 468, valuesPerLandmark: 3, inputWidth: 192, inputHeight: 192, normalizeZ: 1)

    /// hand_recrop.tflite: `output_crop` [1,1,1,4] = 2 × (x, y) in pixels of the 256×256 crop:
    /// the two points that align the holistic graph's hand ROI. No world landmarks.
    package static let handRecrop = LandmarkTensorLayout(
        validLandmarkCount: 2, valuesPerLandmark: 2, inputWidth: 256, inputHeight: 256, normalizeZ: 1)

    /// Decodes the landmark tensor to landmarks normalized to the crop.
    ///
    /// - Parameter values: `[1, landmarkCount · valuesPerLandmark]` float32.
    /// - Throws: ``PipelineInputError/tensorSizeMismatch(tensor:expected:actual:)``.
    package func decodeLandmarks(_ values: UnsafeBufferPointer<Float>) throws -> [RawLandmark] {
        let stride = valuesPerLandmark
        let expected = landmarkCount * stride  // overflow-checked in init
        guard values.count == expected else {
            throw PipelineInputError.tensorSizeMismatch(tensor: "landmarks", expected: expected, actual: values.count)
        }
        let width = Float(inputWidth)
        let height = Float(inputHeight)
        return (0..<landmarkCount).map { index in
            let base = index * stride
            var landmark = RawLandmark(
                x: values[base] / width, y: values[base + 1] / height,
                z: stride > 2 ? values[base + 2] / width / normalizeZ : 0)
            if stride > 3 { landmark.visibility = sigmoid(values[base + 3]) }
            if stride > 4 { landmark.presence = sigmoid(values[base + 4]) }
            return landmark
        }
    }

    /// Array convenience for ``decodeLandmarks(_:)-(UnsafeBufferPointer<Float>)``.
    package func decodeLandmarks(_ values: [Float]) throws -> [RawLandmark] {
        try values.withUnsafeBufferPointer { try decodeLandmarks($0) }
    }

    /// Decodes the world-landmark tensor: the raw values, in metres, unrotated.
    ///
    /// - Parameter values: `[1, landmarkCount · 3]` float32 (x, y, z per landmark).
    /// - Throws: ``PipelineInputError/tensorSizeMismatch(tensor:expected:actual:)``.
    package func decodeWorldLandmarks(_ values: UnsafeBufferPointer<Float>) throws -> [RawWorldLandmark] {
        let expected = landmarkCount * 3  // landmarkCount · valuesPerLandmark did not overflow, 3 ≤ that
        guard values.count == expected else {
            throw PipelineInputError.tensorSizeMismatch(
                tensor: "world landmarks", expected: expected, actual: values.count)
        }
        return (0..<landmarkCount).map { index in
            RawWorldLandmark(x: values[3 * index], y: values[3 * index + 1], z: values[3 * index + 2])
        }
    }

    /// Array convenience for ``decodeWorldLandmarks(_:)-(UnsafeBufferPointer<Float>)``.
    package func decodeWorldLandmarks(_ values: [Float]) throws -> [RawWorldLandmark] {
        try values.withUnsafeBufferPointer { try decodeWorldLandmarks($0) }
    }
}
