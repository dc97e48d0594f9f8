#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ImageIO
import MediaPipeTasksVision

/// The CLI's drawn outputs: the skeletons and face meshes over the upright image, and the segmentation mask as
/// grey pixels; written as PNG files (images) or as video frames (`VideoOutputs`).
enum AnnotatedOutput {
    /// Every pose's skeleton drawn over the upright image; in video mode each pose's
    /// connections in its track's colour (`LandmarkDrawing.trackColor(for:)`).
    static func drawPoses(_ result: PoseLandmarkerResult, on image: MPImage) -> RGBImage {
        var canvas = image.uprightRGBImage()
        for (index, landmarks) in result.landmarks.enumerated() {
            LandmarkDrawing.drawPose(
                on: &canvas, landmarks: landmarks, connectionColor: trackColor(result.trackIds, index))
        }
        return canvas
    }

    /// Every hand's skeleton and its handedness label ("Left 0.97") drawn over the upright image;
    /// in video mode each hand's connections in its track's colour.
    static func drawHands(_ result: HandLandmarkerResult, on image: MPImage) -> RGBImage {
        var canvas = image.uprightRGBImage()
        for (index, landmarks) in result.landmarks.enumerated() {
            let label = index < result.handedness.count
                ? result.handedness[index].first.map(LandmarkDrawing.handLabel(for:)) : nil
            LandmarkDrawing.drawHand(
                on: &canvas, landmarks: landmarks, label: label, connectionColor: trackColor(result.trackIds, index))
        }
        return canvas
    }

    /// Every face's mesh points and contours drawn over the upright image; in video mode each
    /// face's contours in its track's colour.
    static func drawFaces(_ result: FaceLandmarkerResult, on image: MPImage) -> RGBImage {
        var canvas = image.uprightRGBImage()
        for (index, landmarks) in result.faceLandmarks.enumerated() {
            LandmarkDrawing.drawFace(on: &canvas, landmarks: landmarks, connectionColor: trackColor(result.trackIds, index))
        }
        return canvas
    }

    /// Every person's skeleton, face contours and hands drawn over the upright image; in video
    /// mode all of a person's parts in their track's colour.
    static func drawHolistic(_ result: HolisticLandmarkerResult, on image: MPImage) -> RGBImage {
        var canvas = image.uprightRGBImage()
        for index in result.poseLandmarks.indices {
            let color = trackColor(result.trackIds, index)
            LandmarkDrawing.drawPose(on: &canvas, landmarks: result.poseLandmarks[index], connectionColor: color)
            if !result.faceLandmarks[index].isEmpty {
                LandmarkDrawing.drawFace(on: &canvas, landmarks: result.faceLandmarks[index], connectionColor: color)
            }
            for hand in [result.leftHandLandmarks[index], result.rightHandLandmarks[index]] where !hand.isEmpty {
                LandmarkDrawing.drawHand(on: &canvas, landmarks: hand, label: nil, connectionColor: color)
            }
        }
        return canvas
    }

    /// The colour of the track of pose, hand or face `index`; nil without track ids (image mode).
    private static func trackColor(_ trackIds: [Int]?, _ index: Int) -> DrawingColor? {
        guard let trackIds, trackIds.indices.contains(index) else { return nil }
        return LandmarkDrawing.trackColor(for: trackIds[index])
    }

    /// The union (per-pixel maximum) of the masks as `width × height` grey bytes,
    /// value = round(clip(mask, 0, 1) · 255). No mask gives all zeros.
    static func maskPixels(_ masks: [Mask], width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for mask in masks where mask.width == width && mask.height == height {
            let values = mask.float32Data
            for i in pixels.indices {
                let value = UInt8((min(max(values[i], 0), 1) * 255).rounded())
                pixels[i] = max(pixels[i], value)
            }
        }
        return pixels
    }

    /// Writes `width × height` grey bytes as an 8-bit grey PNG (`OutputFile`).
    static func writeGray(_ pixels: [UInt8], width: Int, height: Int, to path: String) throws {
        let bytes = try encoded(path) { () throws(ImageIOError) in
            try PNGCodec.encode(pixels: pixels, width: width, height: height, layout: .gray8)
        }
        try OutputFile.write(bytes, to: path)
    }

    /// Writes an image as an RGB PNG (`OutputFile`).
    static func write(_ image: RGBImage, to path: String) throws {
        try OutputFile.write(try encoded(path) { () throws(ImageIOError) in try PNGCodec.encode(image) }, to: path)
    }

    /// The PNG bytes `encode` gives, its failure named by the output `path`.
    private static func encoded(_ path: String, _ encode: () throws(ImageIOError) -> [UInt8]) throws -> [UInt8] {
        do {
            return try encode()
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }
}
