import Testing
import Pipeline

@Suite struct FilterTests {
    private let millisecond: Int64 = 1_000_000  // ns

    @Test func lowPassPassesTheFirstSampleThenBlends() {
        var filter = LowPassFilter(alpha: 0.1)
        #expect(filter.lastRawValue == nil)
        #expect(filter.apply(1) == 1)
        #expect(isClose(filter.apply(0), 0.9, 1e-7))
        #expect(isClose(filter.apply(0), 0.81, 1e-7))
        #expect(filter.lastRawValue == 0)
        #expect(isClose(filter.apply(1, alpha: 1.5), 0.829, 1e-6))  // out-of-range α ignored
        #expect(filter.alpha == 0.1)
        #expect(filter.apply(5, alpha: 1) == 5)
    }

    @Test func oneEuroFirstSamplePassesThroughAtAnyTimestamp() {
        for timestamp: Int64 in [0, 1, 33 * millisecond, 1 << 60] {
            var filter = OneEuroFilter(minCutoff: 0.05, beta: 80, derivateCutoff: 1)
            #expect(filter.apply(12.5, timestampNanoseconds: timestamp, valueScale: 0.01) == 12.5)
        }
    }

    /// Hand-computed: 10 Hz from the timestamps (100 ms apart), derivative α_d = α(1 Hz) =
    /// 1/(1 + (1/2π)/0.1) = 0.3858695; dx = (1 − 0)·1·10 = 10 → edx = 3.858695.
    @Test func oneEuroMatchesHandComputedSteps() {
        var still = OneEuroFilter(minCutoff: 1, beta: 0, derivateCutoff: 1)
        #expect(still.apply(0, timestampNanoseconds: 100 * millisecond, valueScale: 1) == 0)
        // β = 0: cutoff = 1 Hz, y = α(1)·1 = 0.3858695.
        #expect(isClose(Float(still.apply(1, timestampNanoseconds: 200 * millisecond, valueScale: 1)), 0.3858695, 1e-6))
        #expect(still.frequency == 10)

        var fast = OneEuroFilter(minCutoff: 1, beta: 0.5, derivateCutoff: 1)
        _ = fast.apply(0, timestampNanoseconds: 100 * millisecond, valueScale: 1)
        // cutoff = 1 + 0.5·3.858695 = 2.929348 Hz → α = 1/(1 + 1/(2π·2.929348·0.1)) = 0.6479572.
        #expect(isClose(Float(fast.apply(1, timestampNanoseconds: 200 * millisecond, valueScale: 1)), 0.6479572, 1e-6))

        // valueScale multiplies the derivative: scale 2 with β = 0.25 is the same as scale 1 with β = 0.5.
        var scaled = OneEuroFilter(minCutoff: 1, beta: 0.25, derivateCutoff: 1)
        _ = scaled.apply(0, timestampNanoseconds: 100 * millisecond, valueScale: 2)
        #expect(isClose(Float(scaled.apply(1, timestampNanoseconds: 200 * millisecond, valueScale: 2)), 0.6479572, 1e-6))
    }

    @Test func oneEuroTakesTheFrequencyFromTimestamps() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, derivateCutoff: 1)
        #expect(filter.frequency == 30)
        _ = filter.apply(0, timestampNanoseconds: 40 * millisecond, valueScale: 1)
        #expect(filter.frequency == 1e9 / Double(40 * millisecond + 1))  // t_prev starts at −1
        _ = filter.apply(0, timestampNanoseconds: 90 * millisecond, valueScale: 1)
        #expect(isClose(Float(filter.frequency), 20, 1e-4))
        _ = filter.apply(0, timestampNanoseconds: 100 * millisecond, valueScale: 1)
        #expect(isClose(Float(filter.frequency), 100, 1e-3))

        // A first sample at t = 0 keeps the configured frequency, and so does the next one
        // (the update is skipped while t_prev = 0).
        var fromZero = OneEuroFilter(frequency: 25, minCutoff: 1, beta: 0, derivateCutoff: 1)
        _ = fromZero.apply(1, timestampNanoseconds: 0, valueScale: 1)
        _ = fromZero.apply(1, timestampNanoseconds: 10 * millisecond, valueScale: 1)
        #expect(fromZero.frequency == 25)
        _ = fromZero.apply(1, timestampNanoseconds: 20 * millisecond, valueScale: 1)
        #expect(isClose(Float(fromZero.frequency), 100, 1e-3))
    }

    @Test func oneEuroIgnoresStaleTimestamps() {
        var filter = OneEuroFilter(minCutoff: 1, beta: 0, derivateCutoff: 1)
        var reference = filter
        _ = filter.apply(0, timestampNanoseconds: 100 * millisecond, valueScale: 1)
        _ = reference.apply(0, timestampNanoseconds: 100 * millisecond, valueScale: 1)
        #expect(filter.apply(7, timestampNanoseconds: 100 * millisecond, valueScale: 1) == 7)  // equal: raw
        #expect(filter.apply(9, timestampNanoseconds: 50 * millisecond, valueScale: 1) == 9)  // earlier: raw
        // The state is unchanged: the next sample filters exactly as without the stale ones.
        #expect(filter.apply(1, timestampNanoseconds: 200 * millisecond, valueScale: 1)
                == reference.apply(1, timestampNanoseconds: 200 * millisecond, valueScale: 1))
    }

    @Test func oneEuroKeepsAConstantSignalConstant() {
        var filter = OneEuroFilter(OneEuroParameters.poseLandmarks)
        for frame in 0..<200 {
            let output = filter.apply(431.25, timestampNanoseconds: Int64(frame) * 33 * millisecond + 1, valueScale: 0.004)
            #expect(output == 431.25, "frame \(frame)")
        }
    }

    @Test func presetsCarryTheDocumentedParameters() {
        #expect(OneEuroParameters.poseLandmarks == OneEuroParameters(minCutoff: 0.05, beta: 80, derivateCutoff: 1))
        #expect(OneEuroParameters.poseWorldLandmarks
                == OneEuroParameters(minCutoff: 0.1, beta: 40, derivateCutoff: 1, disableValueScaling: true))
        #expect(OneEuroParameters.legacyAuxiliaryLandmarks == OneEuroParameters(minCutoff: 0.01, beta: 10, derivateCutoff: 1))
        #expect(OneEuroParameters.poseLandmarks.frequency == 30 && OneEuroParameters.poseLandmarks.minAllowedObjectScale == 1e-6)
        #expect(VisibilitySmoother().alpha == 0.1)
    }

    /// The smoother works in pixels with value scale 1/object scale: compare against filters
    /// driven by hand.
    @Test func landmarksSmootherFiltersPixelsWithTheObjectScale() throws {
        let (width, height) = (200, 100)
        let frames: [[RawLandmark]] = [
            [RawLandmark(x: 0.1, y: 0.2, z: 0.01, visibility: 0.9), RawLandmark(x: 0.5, y: 0.6, z: 0.02)],
            [RawLandmark(x: 0.15, y: 0.25, z: 0.03, visibility: 0.8), RawLandmark(x: 0.45, y: 0.7, z: 0.0)],
        ]
        var smoother = LandmarksSmoother(parameters: .poseLandmarks)
        var manual = [OneEuroFilter](repeating: OneEuroFilter(.poseLandmarks), count: 6)
        for (index, frame) in frames.enumerated() {
            let timestamp = Int64(index + 1) * 33_333  // µs
            let output = try smoother.smooth(frame, imageWidth: width, imageHeight: height, timestampMicroseconds: timestamp)
            // Object scale from the landmarks' pixel bounding box: ((Δx) + (Δy)) / 2.
            let xs = frame.map { $0.x * Float(width) }
            let ys = frame.map { $0.y * Float(height) }
            let scale = ((xs.max()! - xs.min()!) + (ys.max()! - ys.min()!)) / 2
            for (k, landmark) in frame.enumerated() {
                let pixels = [landmark.x * Float(width), landmark.y * Float(height), landmark.z * Float(width)]
                let filtered = (0..<3).map {
                    Float(manual[3 * k + $0].apply(Double(pixels[$0]), timestampNanoseconds: timestamp * 1000, valueScale: Double(1 / scale)))
                }
                #expect(output[k].x == filtered[0] / Float(width))
                #expect(output[k].y == filtered[1] / Float(height))
                #expect(output[k].z == filtered[2] / Float(width))
                #expect(output[k].visibility == landmark.visibility)  // only coordinates are filtered
            }
        }
        #expect(!smoother.isEmpty)
    }

    @Test func objectScaleRectOverridesTheLandmarkBounds() throws {
        let first = [RawLandmark(x: 0.1, y: 0.1, z: 0), RawLandmark(x: 0.2, y: 0.3, z: 0)]
        let second = [RawLandmark(x: 0.15, y: 0.1, z: 0), RawLandmark(x: 0.2, y: 0.35, z: 0)]
        let rect = NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: 0.25)  // (50 + 50)/2 on 100×200
        var withRect = LandmarksSmoother(parameters: .poseLandmarks)
        var filter = OneEuroFilter(.poseLandmarks)
        _ = try withRect.smooth(first, imageWidth: 100, imageHeight: 200, timestampMicroseconds: 1000, objectScaleRect: rect)
        let output = try withRect.smooth(second, imageWidth: 100, imageHeight: 200, timestampMicroseconds: 34_000, objectScaleRect: rect)
        let valueScale = Double(1 / Float(50))  // 1/object scale, in Float as the smoother has it
        _ = filter.apply(Double(first[0].x * 100), timestampNanoseconds: 1_000_000, valueScale: valueScale)
        let expected = filter.apply(Double(second[0].x * 100), timestampNanoseconds: 34_000_000, valueScale: valueScale)
        #expect(output[0].x == Float(expected) / 100)
    }

    @Test func tinyObjectsPassThroughAndEmptyInputResets() throws {
        var smoother = LandmarksSmoother(parameters: .poseLandmarks)
        let point = [RawLandmark(x: 0.3, y: 0.3, z: 0), RawLandmark(x: 0.3, y: 0.3, z: 0)]  // scale 0
        #expect(try smoother.smooth(point, imageWidth: 10, imageHeight: 10, timestampMicroseconds: 1) == point)
        #expect(smoother.isEmpty)  // state untouched
        _ = try smoother.smooth([RawLandmark(x: 0.1, y: 0.1, z: 0), RawLandmark(x: 0.5, y: 0.5, z: 0)],
                                imageWidth: 10, imageHeight: 10, timestampMicroseconds: 2)
        #expect(!smoother.isEmpty)
        #expect(throws: PipelineInputError.landmarkCountChanged(expected: 2, actual: 1)) {
            try smoother.smooth([RawLandmark(x: 0.1, y: 0.1, z: 0)], imageWidth: 10, imageHeight: 10, timestampMicroseconds: 3)
        }
        #expect(try smoother.smooth([], imageWidth: 10, imageHeight: 10, timestampMicroseconds: 4).isEmpty)
        #expect(smoother.isEmpty)
        #expect(throws: PipelineInputError.timestampOutOfRange(microseconds: Int64.max / 10)) {
            try smoother.smooth(point, imageWidth: 10, imageHeight: 10, timestampMicroseconds: Int64.max / 10)
        }
    }

    @Test func worldSmootherUsesRawMetresWithoutValueScaling() throws {
        var smoother = LandmarksSmoother(parameters: .poseWorldLandmarks)
        var filter = OneEuroFilter(.poseWorldLandmarks)
        let frames: [Float] = [0.1, 0.3, 0.2]
        for (index, value) in frames.enumerated() {
            let timestamp = Int64(index) * 40_000 + 40_000
            let output = try smoother.smooth([RawWorldLandmark(x: value, y: 0, z: 0, visibility: 0.5)], timestampMicroseconds: timestamp)
            #expect(output[0].x == Float(filter.apply(Double(value), timestampNanoseconds: timestamp * 1000, valueScale: 1)))
            #expect(output[0].visibility == 0.5)
        }
        #expect(try smoother.smooth([RawWorldLandmark](), timestampMicroseconds: 200_000).isEmpty)
        #expect(!smoother.isEmpty)  // world smoothers are never reset by an empty frame
    }

    @Test func visibilitySmootherFiltersOnlyVisibility() {
        var smoother = VisibilitySmoother()
        let first = smoother.smooth([RawLandmark(x: 0.1, y: 0.2, z: 0.3, visibility: 1, presence: 0.2)])
        #expect(first == [RawLandmark(x: 0.1, y: 0.2, z: 0.3, visibility: 1, presence: 0.2)])
        let second = smoother.smooth([RawLandmark(x: 0.4, y: 0.5, z: 0.6, visibility: 0, presence: 0.9)])
        #expect(isClose(second[0].visibility, 0.9, 1e-7))
        #expect(second[0].x == 0.4 && second[0].presence == 0.9)
        var world = VisibilitySmoother(alpha: 0.5)
        _ = world.smooth([RawWorldLandmark(x: 0, y: 0, z: 0, visibility: 1)])
        #expect(world.smooth([RawWorldLandmark(x: 0, y: 0, z: 0, visibility: 0)])[0].visibility == 0.5)
    }

    @Test func segmentationBlendFollowsTheUncertainty() throws {
        // p = 0.5: t = 0 → u = 1 → out = p + (q − p)·0.7.
        #expect(isClose(SegmentationSmoothing.blend(current: 0.5, previous: 1), 0.85, 1e-6))
        // p = 1: X = 0.25, the polynomial gives 0.99996 → u ≈ 4.3e−5: the new value wins.
        let confident = SegmentationSmoothing.blend(current: 1, previous: 0)
        #expect(confident < 1 && confident > 0.9999)
        #expect(try SegmentationSmoothing.blend(current: [0.2, 0.5], previous: nil) == [0.2, 0.5])
        #expect(throws: PipelineInputError.self) { try SegmentationSmoothing.blend(current: [0.2], previous: [0.1, 0.1]) }
        #expect(SegmentationSmoothing.legacyPoseRatio == 0.7)
    }
}
