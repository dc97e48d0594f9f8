/// Low-pass smoothing of landmark `visibility` over time (MediaPipe
/// `VisibilitySmoothingCalculator`, docs/PIPELINE.md, "Filters" and "Pose smoothing"). One filter
/// per landmark; coordinates and presence pass through. Pose graphs apply it before the coordinate
/// smoother (``LandmarksSmoother``).
///
/// MediaPipe never resets these filters, not even when the object is lost: the state carries
/// over to the next time it appears. If the landmark count changes, the filters start afresh.
///
/// Thread safety: a `Sendable` value that carries filter state: each copy filters on its own;
/// mutate one copy from one thread at a time.
package struct VisibilitySmoother: Sendable {
    /// The low-pass α (pose landmarks and pose world landmarks: 0.1).
    package let alpha: Float
    private var filters: [LowPassFilter] = []

    package init(alpha: Float = 0.1) {
        self.alpha = alpha
    }

    /// Smooths the visibility of normalized landmarks.
    package mutating func smooth(_ landmarks: [RawLandmark]) -> [RawLandmark] {
        let visibilities = smoothVisibilities(landmarks.map(\.visibility))
        return zip(landmarks, visibilities).map { landmark, visibility in
            var result = landmark
            result.visibility = visibility
            return result
        }
    }

    /// Smooths the visibility of world landmarks.
    package mutating func smooth(_ landmarks: [RawWorldLandmark]) -> [RawWorldLandmark] {
        let visibilities = smoothVisibilities(landmarks.map(\.visibility))
        return zip(landmarks, visibilities).map { landmark, visibility in
            var result = landmark
            result.visibility = visibility
            return result
        }
    }

    private mutating func smoothVisibilities(_ values: [Float]) -> [Float] {
        guard !values.isEmpty else { return [] }
        if filters.count != values.count {
            filters = Array(repeating: LowPassFilter(alpha: alpha), count: values.count)
        }
        return values.indices.map { filters[$0].apply(values[$0]) }
    }
}
