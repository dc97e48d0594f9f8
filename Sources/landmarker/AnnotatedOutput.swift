#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import Pipeline

/// The CLI's image outputs: annotated PNGs and mask PNGs.
enum AnnotatedOutput {
    /// Draws every pose's skeleton over the upright image and writes a PNG.
    static func writePose(image: MPImage, result: PoseLandmarkerResult, to path: String) throws {
        var canvas = image.uprightRGBImage()
        for landmarks in result.landmarks {
            LandmarkDrawing.drawPose(on: &canvas, landmarks: landmarks)
        }
        try write(canvas, to: path)
    }

    /// Draws every hand's skeleton and its handedness label ("Left 0.97") over the upright
    /// image and writes a PNG.
    static func writeHands(image: MPImage, result: HandLandmarkerResult, to path: String) throws {
        var canvas = image.uprightRGBImage()
        for (index, landmarks) in result.landmarks.enumerated() {
            let label = index < result.handedness.count
                ? result.handedness[index].first.map(LandmarkDrawing.handLabel(for:)) : nil
            LandmarkDrawing.drawHand(on: &canvas, landmarks: landmarks, label: label)
        }
        try write(canvas, to: path)
    }

    /// Writes the union (per-pixel maximum) of the masks as an 8-bit gray PNG,
    /// value = round(clip(mask, 0, 1) · 255). No mask gives an all-black image.
    static func writeMasks(_ masks: [Mask], width: Int, height: Int, to path: String) throws {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for mask in masks where mask.width == width && mask.height == height {
            for i in pixels.indices {
                let value = UInt8((min(max(mask.float32Data[i], 0), 1) * 255).rounded())
                pixels[i] = max(pixels[i], value)
            }
        }
        do {
            try PNGCodec.write(pixels: pixels, width: width, height: height, layout: .gray8, toFile: path)
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }

    static func write(_ image: RGBImage, to path: String) throws {
        do {
            try PNGCodec.write(pixels: image.pixels, width: image.width, height: image.height, layout: .rgb8, toFile: path)
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }
}
