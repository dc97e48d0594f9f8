/// Exponential moving average with `Float` state (MediaPipe `LowPassFilter`,
/// docs/PIPELINE.md, "Filters").
///
/// The first sample passes through; after that `y = α·x + (1 − α)·y_prev`. As in MediaPipe,
/// `α·x` is a `Float` product while `(1 − α)·y_prev` and the sum are evaluated in `Double`,
/// then the result is stored as `Float`. The filter also remembers the last raw input.
///
/// Thread safety: a `Sendable` value that carries filter state: each copy filters on its own;
/// mutate one copy from one thread at a time.
package struct LowPassFilter: Sendable, Hashable {
    /// The smoothing factor in `[0, 1]`; 1 = no smoothing.
    package private(set) var alpha: Float
    /// The last raw input, `nil` before the first sample.
    package private(set) var lastRawValue: Float?
    /// The last output, `nil` before the first sample.
    package private(set) var lastValue: Float?

    /// An `alpha` outside `[0, 1]` (or NaN) is ignored as MediaPipe ignores it, leaving 1
    /// (pass-through) here.
    package init(alpha: Float) {
        self.alpha = 1
        setAlpha(alpha)
    }

    /// Filters one sample with the current alpha.
    package mutating func apply(_ value: Float) -> Float {
        let result: Float
        if let previous = lastValue {
            result = Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(previous))
        } else {
            result = value
        }
        lastRawValue = value
        lastValue = result
        return result
    }

    /// Sets alpha (ignored when outside `[0, 1]`, keeping the previous one) and filters.
    package mutating func apply(_ value: Float, alpha newAlpha: Float) -> Float {
        setAlpha(newAlpha)
        return apply(value)
    }

    private mutating func setAlpha(_ newAlpha: Float) {
        if newAlpha >= 0 && newAlpha <= 1 { alpha = newAlpha }
    }
}
