import FlatBufferReader
import Tensor

/// MediaPipe's custom operator `TransformLandmarks`, version 2: landmarks mapped by an affine
/// matrix. face_landmark_with_attention uses it to carry the landmarks it predicts on each
/// 16×16 crop (lips, eyes, irises) back to the pixels of its 192×192 input, with the matrix of
/// `Landmarks2TransformMatrix` multiplied element-wise by a constant (a MUL of the model: 4 in
/// the translation column, from feature-map to input pixels).
///
/// Inputs: `landmarks` `[1, N, D]`, D = 2 (x, y) or 3 (x, y, z), and `matrix`, 16 values
/// (`[1, 4, 4]`), a row-major 4×4 matrix of which rows 0 and 1 are read. Output: the shape of
/// `landmarks`, each landmark `(x, y[, z])` becoming
/// `(m00·x + m01·y + m02·0 + m03·1, m10·x + m11·y + m12·0 + m13·1[, z])`, float32 sums in
/// that order without fused multiply-add, as MediaPipe's CPU kernel
/// (`mediapipe/util/tflite/operations/transform_landmarks.cc`) computes them; z is copied.
/// The operator carries no options (version 2 ignores any custom options it has).
public struct TransformLandmarks: OperatorDescriptor {
    public typealias Options = NoOptions
    public static let builtin = BuiltinOperator.custom
    public static let custom: CustomOperatorCode? = CustomOperatorCode("TransformLandmarks", version: 2)
    public static let optionsType: UInt8 = 0

    public let opName = "TransformLandmarks"
    public let outputShapes: [TensorShape]
    /// Landmarks, and values per landmark (2 or 3).
    let count: Int, dimensions: Int

    /// Validates the operands: `landmarks` `[1, N, 2]` or `[1, N, 3]`, `matrix` of 16 values.
    public static func prepare(inputs: [Operand], options: NoOptions) throws -> TransformLandmarks {
        guard inputs.count == 2 else {
            throw KernelError(op: name, "expects 2 inputs (landmarks, matrix), got \(inputs.count)")
        }
        let landmarks = inputs[0].shape, matrix = inputs[1].shape
        guard landmarks.rank == 3, landmarks[0] == 1, landmarks[2] == 2 || landmarks[2] == 3 else {
            throw KernelError(op: name, "landmarks must have shape [1, N, 2] or [1, N, 3], got \(landmarks)")
        }
        guard matrix.elementCount == 16 else {
            throw KernelError(op: name, "matrix must hold a 4×4 matrix (16 values), got \(matrix)")
        }
        return TransformLandmarks(outputShapes: [landmarks], count: landmarks[1], dimensions: landmarks[2])
    }

    public func runReference(_ io: KernelIO) {
        let points = io.inputs[0], m = io.inputs[1], output = io.outputs[0]
        for landmark in 0..<count {
            let at = landmark * dimensions
            let x = points[at], y = points[at + 1]
            output[at] = m[0] * x + m[1] * y + m[2] * 0 + m[3] * 1
            output[at + 1] = m[4] * x + m[5] * y + m[6] * 0 + m[7] * 1
            if dimensions == 3 { output[at + 2] = points[at + 2] }
        }
    }
}
