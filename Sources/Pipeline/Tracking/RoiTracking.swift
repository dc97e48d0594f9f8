#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The holistic graph's choice between last frame's ROI and this frame's re-crop ROI for a face
/// or a hand (MediaPipe `RoiTrackingCalculator`, docs/PIPELINE.md, "Holistic tracking").
///
/// Last frame's ROI (built from last frame's landmarks) is kept while the re-crop ROI found
/// this frame stays close to it: their rotations differ by at most `rotationDegrees`, their
/// centres by at most `translation` of the re-crop ROI's width and height along its own axes,
/// their sizes by at most `scale` of it, and every landmark of last frame lies strictly inside
/// the re-crop ROI grown by `recropMargin` (negative: shrunk). Otherwise the re-crop ROI is used.
/// All in `Float` and image pixels, as MediaPipe computes it.
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
package struct RoiTracking: Sendable, Hashable {
    /// The largest rotation difference, degrees.
    package var rotationDegrees: Float
    /// The largest centre shift, as a fraction of the re-crop ROI's width (x) and height (y).
    package var translation: Float
    /// The largest size change, as a fraction of the re-crop ROI's width and height.
    package var scale: Float
    /// How much the re-crop ROI grows (or shrinks, when negative) before last frame's landmarks
    /// must lie inside it, as a fraction of its size.
    package var recropMargin: Float

    package init(rotationDegrees: Float, translation: Float, scale: Float, recropMargin: Float) {
        self.rotationDegrees = rotationDegrees
        self.translation = translation
        self.scale = scale
        self.recropMargin = recropMargin
    }

    /// The holistic graph's face: 15°, 0.1, 0.3, margin −0.2.
    package static let holisticFace = RoiTracking(rotationDegrees: 15, translation: 0.1, scale: 0.3, recropMargin: -0.2)
    /// The holistic graph's hands: 40°, 0.2, 0.4, margin −0.1.
    package static let holisticHand = RoiTracking(rotationDegrees: 40, translation: 0.2, scale: 0.4, recropMargin: -0.1)

    /// The ROI to run the landmark model on this frame.
    ///
    /// - Parameters:
    ///   - recrop: this frame's re-crop ROI, normalized; nil when the part was not found (then
    ///     the result is nil: no landmarks this frame).
    ///   - previous: last frame's landmarks and the ROI built from them, normalized; nil when
    ///     last frame had none.
    ///   - imageWidth: pixels.
    ///   - imageHeight: pixels.
    package func roi(
        recrop: NormalizedRect?, previous: (landmarks: [RawLandmark], rect: NormalizedRect)?,
        imageWidth: Int, imageHeight: Int
    ) -> NormalizedRect? {
        guard let recrop else { return nil }
        guard let previous else { return recrop }
        let keeps = rectsAreClose(previous.rect, recrop, imageWidth: imageWidth, imageHeight: imageHeight)
            && landmarksAreInside(previous.landmarks, recrop, imageWidth: imageWidth, imageHeight: imageHeight)
        return keeps ? previous.rect : recrop
    }

    /// The rotation, translation and scale requirements; translation is measured along the
    /// re-crop ROI's axes (both centres rotated by minus its rotation).
    func rectsAreClose(_ previous: NormalizedRect, _ recrop: NormalizedRect, imageWidth: Int, imageHeight: Int) -> Bool {
        let width = Float(imageWidth), height = Float(imageHeight)
        let angle = -recrop.rotation
        let cosine = cos(angle), sine = sin(angle)
        let previousX = previous.xCenter * width * cosine - previous.yCenter * height * sine
        let previousY = previous.xCenter * width * sine + previous.yCenter * height * cosine
        let recropX = recrop.xCenter * width * cosine - recrop.yCenter * height * sine
        let recropY = recrop.xCenter * width * sine + recrop.yCenter * height * cosine
        let recropWidth = recrop.width * width
        let recropHeight = recrop.height * height

        var rotationDifference = Self.degrees(previous.rotation) - Self.degrees(recrop.rotation)
        if rotationDifference > 180 { rotationDifference -= 360 }
        if rotationDifference < -180 { rotationDifference += 360 }
        return abs(rotationDifference) <= rotationDegrees
            && abs(previousX - recropX) <= recropWidth * translation
            && abs(previousY - recropY) <= recropHeight * translation
            && abs(previous.width * width - recropWidth) <= recropWidth * scale
            && abs(previous.height * height - recropHeight) <= recropHeight * scale
    }

    /// Whether every landmark lies strictly inside the re-crop ROI grown by `recropMargin`.
    func landmarksAreInside(_ landmarks: [RawLandmark], _ recrop: NormalizedRect, imageWidth: Int, imageHeight: Int) -> Bool {
        let width = Float(imageWidth), height = Float(imageHeight)
        let angle = -recrop.rotation
        let cosine = cos(angle), sine = sin(angle)
        let centerX = recrop.xCenter * width * cosine - recrop.yCenter * height * sine
        let centerY = recrop.xCenter * width * sine + recrop.yCenter * height * cosine
        let halfWidth = recrop.width * width * (1 + recropMargin) * 0.5
        let halfHeight = recrop.height * height * (1 + recropMargin) * 0.5
        let (left, right) = (centerX - halfWidth, centerX + halfWidth)
        let (top, bottom) = (centerY - halfHeight, centerY + halfHeight)
        return landmarks.allSatisfy { landmark in
            let x = landmark.x * width * cosine - landmark.y * height * sine
            let y = landmark.x * width * sine + landmark.y * height * cosine
            return left < x && x < right && top < y && y < bottom
        }
    }

    /// Radians to degrees as MediaPipe converts a rect's rotation: `rotation / π · 180` in
    /// `Double`, rounded to `Float`.
    private static func degrees(_ radians: Float) -> Float {
        Float(Double(radians) / Double.pi * 180)
    }
}
