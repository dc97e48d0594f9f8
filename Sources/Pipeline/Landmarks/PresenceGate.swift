/// The landmark models' presence check (`ThresholdingCalculator`, docs/PIPELINE.md,
/// "Pose landmark model" and "Hand landmark model"): a result counts only if the model's presence
/// flag is **strictly greater** than the threshold. When it fails, the ROI gives no landmarks,
/// world landmarks, mask, handedness or next-frame ROI.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct PresenceGate: Sendable, Hashable {
    /// Tasks `min_pose_presence_confidence` / `min_hand_presence_confidence` (0.5); the legacy
    /// flavour uses `min_tracking_confidence` here.
    package var threshold: Float

    package init(threshold: Float = 0.5) {
        self.threshold = threshold
    }

    /// `flag > threshold`; a NaN flag fails.
    package func passes(_ flag: Float) -> Bool {
        flag > threshold
    }

    /// Reads the flag from the model output and tests it.
    ///
    /// - Parameter flagTensor: `[1, 1]` float32, already a probability (pose_landmark_full
    ///   `Identity_1`, hand_landmark `Identity_1`: both models end in a sigmoid).
    /// - Throws: ``PipelineInputError/tensorSizeMismatch(tensor:expected:actual:)`` unless the
    ///   buffer holds exactly one value.
    package func passes(flagTensor: UnsafeBufferPointer<Float>) throws -> Bool {
        guard flagTensor.count == 1 else {
            throw PipelineInputError.tensorSizeMismatch(tensor: "presence flag", expected: 1, actual: flagTensor.count)
        }
        return passes(flagTensor[0])
    }
}
