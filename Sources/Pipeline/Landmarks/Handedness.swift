/// One handedness classification (MediaPipe `Category` / `Classification`).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct HandednessCategory: Sendable, Hashable, Codable {
    /// Class index: 0 gets the model's score s, 1 gets 1 − s.
    package var index: Int
    /// In `[0.5, 1]` for the reported (top) class.
    package var score: Float
    /// "Left" or "Right", by the convention it was decoded with.
    package var label: String

    package init(index: Int, score: Float, label: String) {
        self.index = index
        self.score = score
        self.label = label
    }
}

/// Which label belongs to which class index (docs/PIPELINE.md, "Handedness"). For the same hand and
/// the same raw score the two conventions report opposite labels.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package enum HandednessConvention: Sendable, Hashable {
    /// Tasks API ≥ 0.10.5 (this package's public API): index 0 = "Right", 1 = "Left"; labels
    /// name the subject's hands in a non-mirrored image.
    case tasks
    /// Legacy `mp.solutions.hands`: index 0 = "Left", 1 = "Right", which assumes a mirrored
    /// (selfie) image.
    case legacy

    /// The labels of class 0 and class 1.
    package var labels: (index0: String, index1: String) {
        switch self {
        case .tasks: return ("Right", "Left")
        case .legacy: return ("Left", "Right")
        }
    }

    /// Binary top-1 decoding of the hand model's handedness output (`TensorsToClassificationCalculator`,
    /// `binary_classification: true`, `top_k: 1`): class 0 scores `s`, class 1 scores `1 − s`;
    /// the larger is reported, class 0 on a tie.
    ///
    /// - Parameter score: hand_landmark `Identity_2` [1,1], already a sigmoid output.
    package func decode(score: Float) -> HandednessCategory {
        let complement = Float(1.0 - Double(score))
        if complement > score {
            return HandednessCategory(index: 1, score: complement, label: labels.index1)
        }
        return HandednessCategory(index: 0, score: score, label: labels.index0)
    }
}
