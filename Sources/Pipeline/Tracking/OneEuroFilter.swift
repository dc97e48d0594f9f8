/// Parameters of a One-Euro filter and of the landmark smoother around it
/// (`OneEuroFilter` options of MediaPipe's `LandmarksSmoothingCalculator`, docs/PIPELINE.md,
/// "Filters" and "Pose smoothing").
///
/// The four filter constants are `Float`, as in MediaPipe's options proto: the filter computes
/// with their `Float` values widened to `Double` (a `minCutoff` of 0.1 is 0.10000000149011612
/// there), which decides the last bit of an output that falls near a rounding tie.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct OneEuroParameters: Sendable, Hashable {
    /// Initial sampling frequency in Hz, used until two timestamps give a real one (30).
    package var frequency: Float
    /// Cutoff frequency at zero speed, Hz.
    package var minCutoff: Float
    /// Speed coefficient: the cutoff grows by `beta · |filtered derivative|`.
    package var beta: Float
    /// Cutoff of the derivative's low-pass filter, Hz.
    package var derivateCutoff: Float
    /// Below this object scale (pixels) landmarks pass through unfiltered (1e−6).
    package var minAllowedObjectScale: Float
    /// With `true` the value scale is 1 and the object scale is not computed.
    package var disableValueScaling: Bool

    package init(
        frequency: Float = 30, minCutoff: Float = 1, beta: Float = 0, derivateCutoff: Float = 1,
        minAllowedObjectScale: Float = 1e-6, disableValueScaling: Bool = false
    ) {
        self.frequency = frequency
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivateCutoff = derivateCutoff
        self.minAllowedObjectScale = minAllowedObjectScale
        self.disableValueScaling = disableValueScaling
    }

    /// The 33 pose landmarks, both flavours: min_cutoff 0.05, beta 80, derivate_cutoff 1,
    /// value scaling on. Tasks takes the object scale from the next-frame ROI
    /// (2.5·‖aux1 − aux0‖); legacy from 2·‖aux1 − aux0‖ (no ×1.25), so Tasks' effective beta
    /// is 0.8× legacy's.
    package static let poseLandmarks = OneEuroParameters(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
    /// The 33 pose world landmarks, both flavours: 0.1 / 40 / 1, no value scaling.
    package static let poseWorldLandmarks = OneEuroParameters(
        minCutoff: 0.1, beta: 40, derivateCutoff: 1, disableValueScaling: true)
    /// Legacy only: the auxiliary landmarks feeding the next-frame ROI, 0.01 / 10 / 1, object
    /// scale as for ``poseLandmarks``. Tasks does not smooth them.
    package static let legacyAuxiliaryLandmarks = OneEuroParameters(minCutoff: 0.01, beta: 10, derivateCutoff: 1)
}

/// One-Euro filter for one scalar signal (MediaPipe `OneEuroFilter`, docs/PIPELINE.md, "Filters").
///
/// Arithmetic is `Double`; the two low-pass filters inside keep `Float` state.
///
/// Per sample at time `t` (ns):
/// * `t ≤ t_prev`: the value is returned unfiltered and nothing changes.
/// * Unless `t_prev = 0` or `t = 0`: `f = 1 / ((t − t_prev)·1e−9)`. `t_prev` starts at −1, so
///   the first sample sets a meaningless `f = 1e9/(t + 1)` (or keeps the configured one when
///   `t = 0`); the first output equals the input and its derivative is 0 either way.
/// * `dx = (x − x_prev_raw)·s·f` (0 on the first sample), with the *raw* previous input.
/// * `edx = LowPass_d(dx)` with `α(derivateCutoff)`; `cutoff = minCutoff + beta·|edx|`;
///   `y = LowPass_x(x)` with `α(cutoff)`.
/// * `α(fc) = 1 / (1 + τ/T_e)`, `τ = 1/(2π·fc)`, `T_e = 1/f`.
///
/// Thread safety: a `Sendable` value that carries filter state: each copy filters on its own;
/// mutate one copy from one thread at a time.
package struct OneEuroFilter: Sendable, Hashable {
    package let minCutoff: Double
    package let beta: Double
    package let derivateCutoff: Double
    /// Current sampling frequency estimate, Hz.
    package private(set) var frequency: Double
    private var lastTimestamp: Int64 = -1
    private var valueFilter: LowPassFilter
    private var derivativeFilter: LowPassFilter

    /// - Precondition: `frequency`, `minCutoff` and `derivateCutoff` are > 1e−6 (filter
    ///   constants are chosen by the program, not read from input).
    package init(frequency: Double = 30, minCutoff: Double, beta: Double, derivateCutoff: Double) {
        precondition(frequency > 1e-6 && minCutoff > 1e-6 && derivateCutoff > 1e-6,
                     "One-Euro frequency and cutoffs must be positive")
        self.frequency = frequency
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivateCutoff = derivateCutoff
        valueFilter = LowPassFilter(alpha: Float(Self.alpha(cutoff: minCutoff, frequency: frequency)))
        derivativeFilter = LowPassFilter(alpha: Float(Self.alpha(cutoff: derivateCutoff, frequency: frequency)))
    }

    package init(_ parameters: OneEuroParameters) {
        self.init(
            frequency: Double(parameters.frequency), minCutoff: Double(parameters.minCutoff),
            beta: Double(parameters.beta), derivateCutoff: Double(parameters.derivateCutoff))
    }

    /// Filters one sample.
    ///
    /// - Parameters:
    ///   - value: the sample.
    ///   - timestampNanoseconds: the sample's time in ns (MediaPipe: packet µs × 1000).
    ///   - valueScale: multiplies the derivative (1/object scale for landmarks).
    package mutating func apply(_ value: Double, timestampNanoseconds: Int64, valueScale: Double) -> Double {
        guard timestampNanoseconds > lastTimestamp else { return value }
        if lastTimestamp != 0 && timestampNanoseconds != 0 {
            let (difference, overflow) = timestampNanoseconds.subtractingReportingOverflow(lastTimestamp)
            let seconds = (overflow ? Double(timestampNanoseconds) - Double(lastTimestamp) : Double(difference)) * 1e-9
            frequency = 1.0 / seconds
        }
        lastTimestamp = timestampNanoseconds
        let derivative = valueFilter.lastRawValue.map { (value - Double($0)) * valueScale * frequency } ?? 0
        let filteredDerivative = Double(derivativeFilter.apply(
            Float(derivative), alpha: Float(Self.alpha(cutoff: derivateCutoff, frequency: frequency))))
        let cutoff = minCutoff + beta * abs(filteredDerivative)
        return Double(valueFilter.apply(Float(value), alpha: Float(Self.alpha(cutoff: cutoff, frequency: frequency))))
    }

    private static func alpha(cutoff: Double, frequency: Double) -> Double {
        let samplingPeriod = 1.0 / frequency
        let timeConstant = 1.0 / (2 * Double.pi * cutoff)
        return 1.0 / (1.0 + timeConstant / samplingPeriod)
    }
}
