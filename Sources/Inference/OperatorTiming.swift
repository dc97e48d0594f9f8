import Tensor

/// One operator's run in `Interpreter.invokeProfiled`.
public struct OperatorTiming: Sendable {
    /// The operator's position in execution order (after fusion and the channel-major
    /// rewrite, so it can differ from the model's operator index).
    public let index: Int
    /// The op name, with what fusion or layout added, e.g. "PAD+DEPTHWISE_CONV_2D(CHW)".
    public let opName: String
    /// The shape of the first output as the model states it (`[N, H, W, C]` also where a
    /// channel-major kernel stores it as `[N, C, H·W]`); nil if the operator has none.
    public let outputShape: TensorShape?
    /// Multiply-accumulates per invocation (0 for ops that do none).
    public let multiplyAccumulates: Int
    /// Wall time of this run, seconds.
    public let seconds: Double
}
