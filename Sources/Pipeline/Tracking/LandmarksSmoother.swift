/// Per-landmark, per-axis One-Euro smoothing of a landmark list over time
/// (MediaPipe `LandmarksSmoothingCalculator` with a `one_euro_filter`, docs/PIPELINE.md, "Filters"
/// and "Pose smoothing").
///
/// One smoother follows one object. Each call is one frame; timestamps are microseconds and
/// must increase (a sample at or before the previous timestamp passes through unfiltered).
///
/// Thread safety: a `Sendable` value that carries filter state: each copy filters on its own;
/// mutate one copy from one thread at a time.
package struct LandmarksSmoother: Sendable {
    package let parameters: OneEuroParameters
    private var filters: [OneEuroFilter] = []  // 3 per landmark: x, y, z

    package init(parameters: OneEuroParameters) {
        self.parameters = parameters
    }

    /// `true` until the first filtered frame, and again after ``reset()``.
    package var isEmpty: Bool { filters.isEmpty }

    /// Forgets all filter state.
    package mutating func reset() {
        filters.removeAll()
    }

    /// Smooths normalized landmarks (the normalized-landmark smoother of a pose graph).
    ///
    /// Coordinates are converted to pixels (`x·W`, `y·H`, `z·W`), filtered, and converted back.
    /// The object scale is `(w·W + h·H)/2` of `objectScaleRect` when given, otherwise
    /// `((max x − min x) + (max y − min y))/2` of the landmarks in pixels; the derivative is
    /// scaled by its inverse. Below `minAllowedObjectScale` the landmarks pass through and the
    /// state is untouched. An empty list resets the smoother (the object was lost) and returns
    /// empty, as MediaPipe's normalized smoothers do.
    ///
    /// - Parameters:
    ///   - landmarks: normalized to the image.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    ///   - timestampMicroseconds: the frame time.
    ///   - objectScaleRect: Tasks pose: the next-frame ROI built from this frame's auxiliary
    ///     landmarks (×1.25); legacy: the alignment rect without ×1.25.
    /// - Throws: ``PipelineInputError/landmarkCountChanged(expected:actual:)`` if the count
    ///   differs from the frame that created the state;
    ///   ``PipelineInputError/timestampOutOfRange(microseconds:)``.
    package mutating func smooth(
        _ landmarks: [RawLandmark], imageWidth: Int, imageHeight: Int,
        timestampMicroseconds: Int64, objectScaleRect: NormalizedRect? = nil
    ) throws -> [RawLandmark] {
        guard !landmarks.isEmpty else {
            reset()
            return []
        }
        let width = Float(imageWidth)
        let height = Float(imageHeight)
        let pixels = landmarks.map { SIMD3<Float>($0.x * width, $0.y * height, $0.z * width) }
        let objectScale = objectScaleRect.map { ($0.width * width + $0.height * height) / 2 }
        guard let smoothed = try filter(pixels, timestampMicroseconds: timestampMicroseconds, objectScale: objectScale) else {
            return landmarks
        }
        return zip(landmarks, smoothed).map { landmark, point in
            var result = landmark
            result.x = point.x / width
            result.y = point.y / height
            result.z = point.z / width
            return result
        }
    }

    /// What MediaPipe's normalized smoothing calculator gives with no filter (`no_filter`): the
    /// landmarks converted to pixels and back, `(x·W)/W`, `(y·H)/H`, `(z·W)/W` in `Float`, which
    /// can move a coordinate by its last bit.
    package static func pixelRoundTrip(_ landmarks: [RawLandmark], imageWidth: Int, imageHeight: Int) -> [RawLandmark] {
        let width = Float(imageWidth)
        let height = Float(imageHeight)
        return landmarks.map { landmark in
            var result = landmark
            result.x = landmark.x * width / width
            result.y = landmark.y * height / height
            result.z = landmark.z * width / width
            return result
        }
    }

    /// Smooths world landmarks (metres). MediaPipe never resets the world smoothers: after a
    /// gap they continue from the old state (the long dt makes α ≈ 1). Call ``reset()`` only
    /// to deviate from that on purpose. An empty list returns empty and changes nothing.
    ///
    /// - Throws: as ``smooth(_:imageWidth:imageHeight:timestampMicroseconds:objectScaleRect:)``.
    package mutating func smooth(_ landmarks: [RawWorldLandmark], timestampMicroseconds: Int64) throws -> [RawWorldLandmark] {
        guard !landmarks.isEmpty else { return [] }
        let points = landmarks.map { SIMD3<Float>($0.x, $0.y, $0.z) }
        guard let smoothed = try filter(points, timestampMicroseconds: timestampMicroseconds, objectScale: nil) else {
            return landmarks
        }
        return zip(landmarks, smoothed).map { landmark, point in
            var result = landmark
            result.x = point.x
            result.y = point.y
            result.z = point.z
            return result
        }
    }

    /// Filters points; `nil` means "pass through unfiltered" (object too small).
    private mutating func filter(
        _ points: [SIMD3<Float>], timestampMicroseconds: Int64, objectScale: Float?
    ) throws -> [SIMD3<Float>]? {
        let (nanoseconds, overflow) = timestampMicroseconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { throw PipelineInputError.timestampOutOfRange(microseconds: timestampMicroseconds) }
        if !filters.isEmpty && filters.count != points.count * 3 {
            throw PipelineInputError.landmarkCountChanged(expected: filters.count / 3, actual: points.count)
        }
        var valueScale: Float = 1
        if !parameters.disableValueScaling {
            let scale = objectScale ?? Self.boundingScale(of: points)
            guard scale >= parameters.minAllowedObjectScale else { return nil }  // NaN also passes through
            valueScale = 1 / scale
        }
        if filters.isEmpty {
            filters = Array(repeating: OneEuroFilter(parameters), count: points.count * 3)
        }
        return points.indices.map { index in
            var result = SIMD3<Float>()
            for axis in 0..<3 {
                result[axis] = Float(filters[index * 3 + axis].apply(
                    Double(points[index][axis]), timestampNanoseconds: nanoseconds, valueScale: Double(valueScale)))
            }
            return result
        }
    }

    /// `((max x − min x) + (max y − min y)) / 2` of a non-empty point list.
    private static func boundingScale(of points: [SIMD3<Float>]) -> Float {
        var lower = points[0]
        var upper = points[0]
        for point in points.dropFirst() {
            lower = pointwiseMin(lower, point)
            upper = pointwiseMax(upper, point)
        }
        return ((upper.x - lower.x) + (upper.y - lower.y)) / 2
    }
}
