/// Removal of duplicate hands, **Tasks flavour only** (MediaPipe
/// `HandLandmarksDeduplicationCalculator`, docs/PIPELINE.md, "Duplicate hands").
///
/// Hands are visited in order. Hand *i* is suppressed if some already retained hand *j*
/// satisfies both:
/// * at least 10 of the 21 landmark pairs are closer (pixels) than
///   `0.2 · max(base_i, base_j)`, with `base = max(|L0L5|, |L5L17|, |L17L0|)` in pixels;
/// * the IoU of the two landmark bounding boxes (normalized, axis-aligned) is > 0.2.
///
/// Remove a suppressed hand's landmarks, world landmarks, handedness and next-frame ROI.
///
/// Thread safety: a namespace of stateless functions of their arguments; safe to call from any
/// number of threads at once.
package enum HandDeduplication {
    package static let landmarksPerHand = 21
    static let minimumMatchingLandmarks = 10
    static let distanceRatio: Float = 0.2
    static let boundsIoUThreshold: Float = 0.2

    /// Indices (ascending) of the hands to keep.
    ///
    /// - Parameters:
    ///   - hands: each hand's 21 landmarks, normalized to the image.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    /// - Throws: ``PipelineInputError/unexpectedLandmarkCount(expected:actual:)`` if a hand
    ///   does not have exactly 21 landmarks.
    package static func retainedIndices(of hands: [[RawLandmark]], imageWidth: Int, imageHeight: Int) throws -> [Int] {
        for hand in hands where hand.count != landmarksPerHand {
            throw PipelineInputError.unexpectedLandmarkCount(expected: landmarksPerHand, actual: hand.count)
        }
        let width = Float(imageWidth)
        let height = Float(imageHeight)
        func distance(_ a: RawLandmark, _ b: RawLandmark) -> Float {
            let dx = (a.x - b.x) * width
            let dy = (a.y - b.y) * height
            return (dx * dx + dy * dy).squareRoot()
        }
        let baselines = hands.map { hand in
            max(distance(hand[0], hand[5]), distance(hand[5], hand[17]), distance(hand[17], hand[0]))
        }
        let bounds = hands.map(boundingBox)
        var retained: [Int] = []
        for i in hands.indices {
            let isDuplicate = retained.contains { j in
                let threshold = max(baselines[i], baselines[j]) * distanceRatio
                let matching = zip(hands[i], hands[j]).count { distance($0, $1) < threshold }
                return matching >= minimumMatchingLandmarks
                    && bounds[i].intersectionOverUnion(with: bounds[j]) > boundsIoUThreshold
            }
            if !isDuplicate { retained.append(i) }
        }
        return retained
    }

    private static func boundingBox(of hand: [RawLandmark]) -> RelativeBox {
        let xs = hand.map(\.x)
        let ys = hand.map(\.y)
        let xmin = xs.min() ?? 0
        let ymin = ys.min() ?? 0
        return RelativeBox(xmin: xmin, ymin: ymin, width: (xs.max() ?? 0) - xmin, height: (ys.max() ?? 0) - ymin)
    }
}
