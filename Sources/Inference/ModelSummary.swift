/// Static facts about a loaded model, for `landmarker inspect` and benchmarks.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public struct ModelSummary: Sendable, Codable {
    /// Operators in the file by name (a custom operator by its custom code, e.g.
    /// `TransformLandmarks`), folded ones included.
    public let operatorHistogram: [String: Int]
    /// Operators that run at invoke time (after DEQUANTIZE/DENSIFY folding).
    public let preparedOperatorCount: Int
    /// Float weights and biases the kernels read.
    public let parameterCount: Int
    /// Multiply-accumulates per invocation.
    public let multiplyAccumulates: Int
    /// Bytes of the activation arena.
    public let arenaBytes: Int

    /// Floating-point operations per invocation (2 per multiply-accumulate).
    public var flops: Int { 2 * multiplyAccumulates }
}
