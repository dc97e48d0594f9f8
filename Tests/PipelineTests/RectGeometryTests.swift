import Foundation
import Testing
@testable import Pipeline

@Suite struct RectGeometryTests {
    @Test func normalizeRadiansWrapsIntoHalfOpenInterval() {
        #expect(isClose(normalizeRadians(Float(3 * Double.pi / 2)), -Float.pi / 2, 1e-6))
        #expect(isClose(normalizeRadians(Float(-3 * Double.pi / 2)), Float.pi / 2, 1e-6))
        #expect(isClose(normalizeRadians(0.25), 0.25, 0))
        #expect(normalizeRadians(Float(Double.pi)) < 0)  // π maps to −π: the interval is [−π, π)
        #expect(isClose(normalizeRadians(90), 90 - Float(28 * Double.pi), 1e-5))
    }

    @Test func rotationIsZeroForAnUprightVectorAndClockwisePositive() {
        let start = RelativePoint(x: 0.5, y: 0.5)
        let up = RectRotation.rotation(
            from: start, to: RelativePoint(x: 0.5, y: 0.2), targetAngle: RectRotation.ninetyDegrees,
            imageWidth: 100, imageHeight: 100)
        #expect(up == 0)
        // Pointing right (+x): atan2(0, dx) = 0 → rotation = π/2 (a clockwise quarter turn).
        let right = RectRotation.rotation(
            from: start, to: RelativePoint(x: 0.9, y: 0.5), targetAngle: RectRotation.ninetyDegrees,
            imageWidth: 100, imageHeight: 100)
        #expect(isClose(right, Float.pi / 2, 1e-6))
        // Angles are measured in pixels: (0.1, −0.1) normalized on a 200×100 image is
        // (20, −10) px, so rotation = π/2 − atan2(10, 20).
        let slanted = RectRotation.rotation(
            from: start, to: RelativePoint(x: 0.6, y: 0.4), targetAngle: RectRotation.ninetyDegrees,
            imageWidth: 200, imageHeight: 100)
        #expect(isClose(slanted, Float(Double.pi / 2 - atan2(10.0, 20.0)), 1e-6))
    }

    @Test func transformationShiftsSquaresAndScales() {
        // θ = 0: y += h·shift_y; 0.2×0.1 on 100×200 is 20×20 px already square.
        let upright = RectTransformation(scale: 2, shiftY: -0.5)
            .apply(to: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.2, height: 0.1), imageWidth: 100, imageHeight: 200)
        #expect(upright == NormalizedRect(xCenter: 0.5, yCenter: 0.45, width: 0.4, height: 0.2))
        // θ = π/2: the shift moves along the rect's own y axis, which points to −x on screen:
        // Δx = −h·H·shift_y·sin θ = −(0.2·100)·(−0.5) = +10 px = 0.05 of 200.
        let turned = RectTransformation(scale: 1, shiftY: -0.5).apply(
            to: NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0.1, height: 0.2, rotation: Float.pi / 2),
            imageWidth: 200, imageHeight: 100)
        #expect(isClose(turned.xCenter, 0.55, 1e-6))
        #expect(isClose(turned.yCenter, 0.5, 1e-6))
        #expect(turned.rotation == Float.pi / 2)
        // square_long: 0.5×0.1 on 100×100 → 50×50 px, then ×1.25.
        let squared = RectTransformation.pose.apply(
            to: NormalizedRect(xCenter: 0.3, yCenter: 0.4, width: 0.5, height: 0.1), imageWidth: 100, imageHeight: 100)
        #expect(squared == NormalizedRect(xCenter: 0.3, yCenter: 0.4, width: 0.625, height: 0.625))
    }

    @Test func presetsCarryTheDocumentedConstants() {
        #expect(RectTransformation.pose == RectTransformation(scale: 1.25, shiftY: 0, squareLong: true))
        #expect(RectTransformation.handFromPalm == RectTransformation(scale: 2.6, shiftY: -0.5, squareLong: true))
        #expect(RectTransformation.handFromLandmarks == RectTransformation(scale: 2.0, shiftY: -0.1, squareLong: true))
        #expect(DetectionToRect.poseDetector.startKeypoint == 0 && DetectionToRect.poseDetector.endKeypoint == 1)
        #expect(DetectionToRect.palmDetector.startKeypoint == 0 && DetectionToRect.palmDetector.endKeypoint == 2)
        #expect(RectRotation.ninetyDegrees == Float(Double.pi / 2))
    }

    @Test func axisAlignedBoxIgnoresRotation() {
        let box = NormalizedRect(xCenter: 0.5, yCenter: 0.4, width: 0.2, height: 0.4, rotation: 1).axisAlignedBox
        #expect(box == RelativeBox(xmin: 0.4, ymin: 0.2, width: 0.2, height: 0.4))
    }

    /// The worked example of docs/PIPELINE.md, "Pose ROI from a detection" (MediaPipe test data,
    /// a 1000×667 image).
    @Test func poseWorkedExample() throws {
        let detection = Detection(
            score: 1, box: RelativeBox(xmin: 0, ymin: 0, width: 0, height: 0),
            keypoints: [RelativePoint(x: 0.49192297, y: 0.7013345), RelativePoint(x: 0.48453212, y: 0.32265595)])
        let rect = try DetectionToRect.poseDetector.rect(for: detection, imageWidth: 1000, imageHeight: 667)
        let roi = RectTransformation.pose.apply(to: rect, imageWidth: 1000, imageHeight: 667)
        let expected = NormalizedRect(
            xCenter: 0.49192297, yCenter: 0.7013345, width: 0.6317167, height: 0.9471016, rotation: -0.0292532)
        #expect(maxDifference(roi, expected) <= 1e-6, "\(roi)")
        // The same points as auxiliary landmarks give the same next-frame ROI (docs/PIPELINE.md,
        // "Pose tracking").
        let auxiliary = detection.keypoints.map { RawLandmark(x: $0.x, y: $0.y, z: 0) }
        let tracked = try PoseTrackingRect.nextFrameROI(auxiliary: auxiliary, imageWidth: 1000, imageHeight: 667)
        #expect(tracked == roi)
        let unscaled = try PoseTrackingRect.alignmentRect(auxiliary: auxiliary, imageWidth: 1000, imageHeight: 667)
        #expect(isClose(unscaled.width * 1.25, roi.width, 1e-6))
    }

    @Test func missingKeypointsThrow() {
        let detection = Detection(score: 1, box: RelativeBox(xmin: 0, ymin: 0, width: 1, height: 1),
                                  keypoints: [RelativePoint(x: 0, y: 0)])
        #expect(throws: PipelineInputError.tooFewKeypoints(needed: 3, available: 1)) {
            try DetectionToRect.palmDetector.rect(for: detection, imageWidth: 10, imageHeight: 10)
        }
        #expect(throws: PipelineInputError.tooFewLandmarks(needed: 2, available: 1)) {
            try PoseTrackingRect.alignmentRect(auxiliary: [RawLandmark(x: 0, y: 0, z: 0)], imageWidth: 10, imageHeight: 10)
        }
    }

    /// Every legacy pose fixture's detection (images and video) → ROI versus the graph's own ROI.
    @Test func poseDetectionRectsMatchLegacy() throws {
        var compared = 0
        var worst: Float = 0
        let folders = ["legacy/pose_full", "legacy/video/t1_sweep/pose_full_static",
                       "legacy/video/t1_sweep/pose_full_tracking"]
        for folder in folders {
            for name in try MathFixtures.jsonNames(in: folder) {
                let fixture = try MathFixtures.json(LegacyPoseFixture.self, "\(folder)/\(name).json")
                guard let detection = fixture.intermediate.poseDetection,
                      let expected = fixture.intermediate.poseRectFromDetection else { continue }
                let (width, height) = (fixture.image.width, fixture.image.height)
                let rect = try DetectionToRect.poseDetector.rect(for: detection.detection, imageWidth: width, imageHeight: height)
                let roi = RectTransformation.pose.apply(to: rect, imageWidth: width, imageHeight: height)
                let difference = maxDifference(roi, expected)
                worst = max(worst, difference)
                #expect(difference <= 1e-5, "\(folder)/\(name): \(roi) vs \(expected)")
                compared += 1
            }
        }
        print("pose detection → ROI: \(compared) fixtures, max difference \(worst)")
        #expect(compared >= 7)
    }

    /// Every legacy palm detection (full and lite, images and video) → hand ROI versus the
    /// graph's own ROI (legacy uses the 90° target, as this package does).
    @Test func palmDetectionRectsMatchLegacy() throws {
        var compared = 0
        var worst: Float = 0
        let folders = ["legacy/hands_full", "legacy/hands_lite",
                       "legacy/video/t1_sweep/hands_full_static", "legacy/video/t1_sweep/hands_full_tracking"]
        for folder in folders {
            for name in try MathFixtures.jsonNames(in: folder) {
                let fixture = try MathFixtures.json(LegacyHandsFixture.self, "\(folder)/\(name).json")
                let palms = fixture.intermediate.palmDetections
                let rects = fixture.intermediate.handRectsFromPalmDetections
                #expect(palms.count == rects.count, "\(folder)/\(name)")
                for (palm, expected) in zip(palms, rects) {
                    let (width, height) = (fixture.image.width, fixture.image.height)
                    let rect = try DetectionToRect.palmDetector.rect(for: palm.detection, imageWidth: width, imageHeight: height)
                    let roi = RectTransformation.handFromPalm.apply(to: rect, imageWidth: width, imageHeight: height)
                    let difference = maxDifference(roi, expected)
                    worst = max(worst, difference)
                    #expect(difference <= 1e-5, "\(folder)/\(name): \(roi) vs \(expected)")
                    compared += 1
                }
            }
        }
        print("palm detection → ROI: \(compared) rects, max difference \(worst)")
        #expect(compared >= 20)
    }
}
