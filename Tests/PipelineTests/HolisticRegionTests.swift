import Foundation
import Pipeline
import Testing

/// The holistic graph's own geometry: the ROI tracking rule (`RoiTracking`), the hand region
/// from the pose (`HolisticHandRegion`), the face ROI from a detection's keypoints and the
/// two-value landmark layout of the hand-recrop model. Their MediaPipe outputs are checked bit
/// for bit through `HolisticGraphGoldenTests`; these are the edge cases.
@Suite struct HolisticRegionTests {
    private let width = 640, height = 480

    private func rect(_ x: Float, _ y: Float, size: Float = 0.25, rotation: Float = 0) -> NormalizedRect {
        NormalizedRect(xCenter: x, yCenter: y, width: size, height: size * Float(640) / 480, rotation: rotation)
    }

    /// Landmarks on a small ring around (x, y), all well inside `rect(x, y)`.
    private func landmarks(around x: Float, _ y: Float, radius: Float = 0.03) -> [RawLandmark] {
        (0..<8).map { k in
            let angle = Float(k) * .pi / 4
            return RawLandmark(x: x + radius * cos(angle), y: y + radius * sin(angle), z: 0)
        }
    }

    @Test func roiTrackingNeedsARecropAndKeepsAFittingPreviousROI() {
        let tracking = RoiTracking.holisticHand
        let recrop = rect(0.5, 0.5)
        #expect(tracking.roi(recrop: nil, previous: nil, imageWidth: width, imageHeight: height) == nil)
        #expect(tracking.roi(recrop: nil, previous: (landmarks(around: 0.5, 0.5), recrop),
                             imageWidth: width, imageHeight: height) == nil)
        #expect(tracking.roi(recrop: recrop, previous: nil, imageWidth: width, imageHeight: height) == recrop)
        let previous = rect(0.51, 0.49, size: 0.26, rotation: 0.1)
        #expect(tracking.roi(recrop: recrop, previous: (landmarks(around: 0.5, 0.5), previous),
                             imageWidth: width, imageHeight: height) == previous)
    }

    @Test func roiTrackingDropsThePreviousROIWhenAnyRequirementFails() {
        let tracking = RoiTracking.holisticHand  // 40°, 0.2, 0.4, margin −0.1
        let recrop = rect(0.5, 0.5)
        let inside = landmarks(around: 0.5, 0.5)
        func choice(_ previous: NormalizedRect, _ points: [RawLandmark]) -> NormalizedRect? {
            tracking.roi(recrop: recrop, previous: (points, previous), imageWidth: width, imageHeight: height)
        }
        // Rotation: 39° kept, 41° not.
        #expect(choice(rect(0.5, 0.5, rotation: 39 * .pi / 180), inside) != recrop)
        #expect(choice(rect(0.5, 0.5, rotation: 41 * .pi / 180), inside) == recrop)
        // Translation along x: 0.19 of the width kept, 0.21 not.
        #expect(choice(rect(0.5 + 0.19 * 0.25, 0.5), inside) != recrop)
        #expect(choice(rect(0.5 + 0.21 * 0.25, 0.5), inside) == recrop)
        // Scale: 0.39 larger kept, 0.41 not.
        #expect(choice(rect(0.5, 0.5, size: 0.25 * 1.39), inside) != recrop)
        #expect(choice(rect(0.5, 0.5, size: 0.25 * 1.41), inside) == recrop)
        // A landmark of last frame outside the re-crop ROI shrunk by 10 % (half-width 0.45 of
        // the width): 0.46 of the width from the centre is inside the full ROI only.
        var outside = inside
        outside[0].x = 0.5 + 0.46 * 0.25
        let nearby = rect(0.505, 0.5)
        #expect(choice(nearby, outside) == recrop)
        outside[0].x = 0.5 + 0.44 * 0.25
        #expect(choice(nearby, outside) == nearby)
    }

    @Test func roiTrackingComparesRotationsAcrossTheHalfTurn() {
        let nearHalfTurn = Float(179) * .pi / 180
        let recrop = rect(0.5, 0.5, rotation: -nearHalfTurn)
        let previous = rect(0.5, 0.5, rotation: nearHalfTurn)  // 2° apart, not 358°
        #expect(RoiTracking.holisticFace.roi(
            recrop: recrop, previous: (landmarks(around: 0.5, 0.5, radius: 0.01), previous),
            imageWidth: width, imageHeight: height) == previous)
    }

    @Test func handRegionNeedsAVisibleWrist() throws {
        var pose = (0..<33).map { _ in RawLandmark(x: 0.5, y: 0.5, z: 0, visibility: 0.9, presence: 0.9) }
        pose[15] = RawLandmark(x: 0.5, y: 0.6, z: 0, visibility: 0.1, presence: 0.9)  // left wrist
        pose[17] = RawLandmark(x: 0.48, y: 0.5, z: 0, visibility: 0.9, presence: 0.9)
        pose[19] = RawLandmark(x: 0.52, y: 0.5, z: 0, visibility: 0.9, presence: 0.9)
        // Float 0.1 is above Double 0.1: MediaPipe's Double comparison lets it through.
        #expect(try HolisticHandRegion.region(poseLandmarks: pose, side: .left, imageWidth: width, imageHeight: height) != nil)
        pose[15].visibility = Float(0.1).nextDown
        #expect(try HolisticHandRegion.region(poseLandmarks: pose, side: .left, imageWidth: width, imageHeight: height) == nil)
        #expect(throws: PipelineInputError.self) {
            try HolisticHandRegion.region(
                poseLandmarks: Array(pose.prefix(20)), side: .left, imageWidth: width, imageHeight: height)
        }
    }

    @Test func handRegionIsCentredOnTheEstimatedMiddleKnuckle() throws {
        var pose = (0..<33).map { _ in RawLandmark(x: 0.5, y: 0.5, z: 0, visibility: 0.9, presence: 0.9) }
        // Right hand pointing straight up: wrist below, pinky and index above it.
        pose[16] = RawLandmark(x: 0.5, y: 0.6, z: 0, visibility: 0.9, presence: 0.9)
        pose[18] = RawLandmark(x: 0.47, y: 0.5, z: 0, visibility: 0.9, presence: 0.9)
        pose[20] = RawLandmark(x: 0.515, y: 0.5, z: 0, visibility: 0.9, presence: 0.9)
        let region = try #require(
            try HolisticHandRegion.region(poseLandmarks: pose, side: .right, imageWidth: width, imageHeight: height))
        // Middle knuckle (2·index + pinky)/3 = (0.5, 0.5); side 2·48 px, squared, ×2.7, then
        // shifted up by a tenth of the side.
        let side: Float = 2 * 0.1 * 480 * 2.7
        #expect(abs(region.rotation) < 1e-6)
        #expect(abs(region.xCenter - 0.5) < 1e-6)
        #expect(abs(region.yCenter - (0.5 - 0.1 * 2 * 0.1)) < 1e-6)
        #expect(abs(region.width * 640 - side) < 1e-3 && abs(region.height * 480 - side) < 1e-3)
    }

    @Test func faceROIFromADetectionUsesItsKeypointsNotItsBox() throws {
        let keypoints = [(0.4, 0.4), (0.6, 0.4), (0.5, 0.5), (0.5, 0.6), (0.3, 0.45), (0.7, 0.45)]
            .map { RelativePoint(x: Float($0.0), y: Float($0.1)) }
        let detection = Detection(
            score: 0.9, box: RelativeBox(xmin: 0, ymin: 0, width: 1, height: 1), keypoints: keypoints)
        let roi = try HolisticFaceRegion.roi(fromDetection: detection, imageWidth: width, imageHeight: height)
        // Keypoint box 0.3…0.7 × 0.4…0.6: 256 × 96 px, squared to 256, ×2, shifted up 9.6 px.
        #expect(abs(roi.xCenter - 0.5) < 1e-6 && abs(roi.yCenter - (0.5 - 0.1 * 0.2)) < 1e-6)
        #expect(abs(roi.width * 640 - 512) < 1e-3 && abs(roi.height * 480 - 512) < 1e-3)
        #expect(roi.rotation == 0)
    }

    @Test func handRecropLayoutReadsTwoValuesPerPoint() throws {
        let points = try LandmarkTensorLayout.handRecrop.decodeLandmarks([64, 128, 192, 32])
        #expect(points.map(\.x) == [0.25, 0.75] && points.map(\.y) == [0.5, 0.125] && points.map(\.z) == [0, 0])
        #expect(throws: PipelineInputError.self) { try LandmarkTensorLayout.handRecrop.decodeLandmarks([1, 2, 3]) }
        #expect(throws: PipelineInputError.self) {
            try LandmarkTensorLayout(landmarkCount: 2, valuesPerLandmark: 1, inputWidth: 8, inputHeight: 8, normalizeZ: 1)
        }
    }
}
