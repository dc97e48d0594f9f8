import Foundation
import ImageIO
@testable import MLKit
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// ML Kit behaviour an iOS app relies on: mirrored (front-camera) orientations, and the `async`
/// form of `process(_:)`.
@Suite struct MLKitConformanceTests {
    /// EXIF's value for each mirrored orientation (UIKit's mapping: 2, 4, 5, 7).
    static func exif(_ orientation: ImageOrientation) throws -> ExifOrientation {
        try #require(ExifOrientation.allCases.first { ImageOrientation(exif: $0) == orientation })
    }

    static let mirrored: [ImageOrientation] = [.upMirrored, .downMirrored, .leftMirrored, .rightMirrored]

    /// The geometry behind mirrored images: for each mirrored orientation, the displayed image
    /// (EXIF's exact pixel moves) flipped left to right is the upright image of
    /// `withoutMirroring`, which the detector runs on.
    @Test(arguments: mirrored)
    func displayedImageIsTheUnmirroredUprightImageFlipped(orientation: ImageOrientation) throws {
        let stored = try RGBImage(width: 3, height: 2, pixels: (0..<18).map { UInt8($0) })
        let displayed = stored.applyingExifOrientation(try Self.exif(orientation))
        let unmirrored = MPImage(rgbImage: stored, unmirroredOrientation: orientation.withoutMirroring)
        #expect(displayed.applyingExifOrientation(.topRight) == unmirrored.uprightRGBImage())
        let image = VisionImage(image: unmirrored)
        image.orientation = orientation
        #expect(image.width == displayed.width && image.height == displayed.height)
        #expect(!orientation.withoutMirroring.isMirrored)
    }

    /// A front camera's frame, stored so that each mirrored orientation displays the photo
    /// mirrored: the detector reports the photo's landmarks mirrored, x → width − x, y, z and
    /// likelihoods unchanged, and each type still names the same body point (the person's own
    /// side), bit for bit.
    @Test(arguments: mirrored)
    func mirroredOrientationsGiveMirroredLandmarks(orientation: ImageOrientation) throws {
        let path = try Fixtures.path("images/bus_man.png")
        let photo = try MPImage(contentsOfFile: path).rgbImage
        let detector = try MLKitPoseDetectorTests.detector(.singleImage)
        let upright = try detector.results(in: VisionImage(contentsOfFile: path))
        // The EXIF moves of the mirrored orientations are their own inverses.
        let stored = photo.applyingExifOrientation(.topRight).applyingExifOrientation(try Self.exif(orientation))
        let frame = VisionImage(image: try MPImage(rgbImage: stored))
        frame.orientation = orientation
        #expect(frame.width == photo.width && frame.height == photo.height)

        let mirroredPoses = try detector.results(in: frame)
        try #require(upright.count == 1 && mirroredPoses.count == 1)
        let width = Double(photo.width)
        for (landmark, reference) in zip(mirroredPoses[0].landmarks, upright[0].landmarks) {
            #expect(landmark.type == reference.type)
            #expect(landmark.position.x == CGFloat(width - Double(reference.position.x)), "\(landmark.type) x")
            #expect(landmark.position.y == reference.position.y, "\(landmark.type) y")
            #expect(landmark.position.z == reference.position.z, "\(landmark.type) z")
            #expect(landmark.inFrameLikelihood == reference.inFrameLikelihood, "\(landmark.type)")
        }
    }

    /// The type with left and right exchanged (`leftWrist` ↔ `rightWrist`, `mouthLeft` ↔
    /// `mouthRight`); the nose is its own.
    static func opposite(_ type: PoseLandmarkType) throws -> PoseLandmarkType {
        let name = "\(type)"
        let swapped: String
        if name.hasPrefix("left") {
            swapped = "right" + name.dropFirst(4)
        } else if name.hasPrefix("right") {
            swapped = "left" + name.dropFirst(5)
        } else if name.hasSuffix("Left") {
            swapped = name.dropLast(4) + "Right"
        } else if name.hasSuffix("Right") {
            swapped = name.dropLast(5) + "Left"
        } else {
            swapped = name
        }
        return try #require(PoseLandmarkType.allTypes.first { "\($0)" == swapped })
    }

    /// What "the person's own side" means against the pixels. The mirror image of a photo,
    /// handed over as an ordinary `.up` image, looks to the model like a person facing the other
    /// way: it calls the person's left wrist the right one. The same pixels displayed through
    /// `.upMirrored` (the photo stored, shown mirrored) keep the photo's labels, so there each
    /// landmark sits where the `.up` run put the opposite type.
    @Test func mirroredLabelsAreThePersonsOwnSides() throws {
        let path = try Fixtures.path("images/bus_man.png")
        let photo = try MPImage(contentsOfFile: path).rgbImage
        let detector = try MLKitPoseDetectorTests.detector(.singleImage)
        let frontCamera = VisionImage(image: try MPImage(rgbImage: photo))
        frontCamera.orientation = .upMirrored
        let selfieView = try #require(try detector.results(in: frontCamera).first)
        let flippedPixels = VisionImage(image: try MPImage(rgbImage: photo.applyingExifOrientation(.topRight)))
        let naive = try #require(try detector.results(in: flippedPixels).first)

        // Over the paired left/right landmarks, the swapped pairing is close, the direct one far.
        var swappedDistance = 0.0
        var directDistance = 0.0
        var pairs = 0
        for type in PoseLandmarkType.allTypes where try Self.opposite(type) != type {
            let ours = selfieView.landmark(ofType: type).position
            func distance(_ other: Vision3DPoint) -> Double {
                hypot(Double(ours.x - other.x), Double(ours.y - other.y))
            }
            swappedDistance += distance(naive.landmark(ofType: try Self.opposite(type)).position)
            directDistance += distance(naive.landmark(ofType: type).position)
            pairs += 1
        }
        swappedDistance /= Double(pairs)
        directDistance /= Double(pairs)
        #expect(pairs == 32)
        #expect(swappedDistance < 0.02 * Double(max(photo.width, photo.height)), "swapped pairing: \(swappedDistance) px mean")
        #expect(directDistance > 4 * swappedDistance, "direct \(directDistance) px, swapped \(swappedDistance) px")
        // The person faces the camera: in the selfie view, their left shoulder is on the left.
        #expect(selfieView.landmark(ofType: .leftShoulder).position.x < selfieView.landmark(ofType: .rightShoulder).position.x)
    }

    /// Two fresh detectors in the same mode, one called synchronously and one with `await`,
    /// give the same poses.
    @Test(arguments: [PoseDetectorMode.singleImage, .stream])
    func asyncProcessGivesTheSynchronousResult(mode: PoseDetectorMode) async throws {
        let image = try VisionImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        let reference = try MLKitPoseDetectorTests.detector(mode).results(in: image)
        let poses = try await MLKitPoseDetectorTests.detector(mode).process(image)
        #expect(poses.count == 1)
        #expect(poses == reference)
        let empty = try VisionImage(contentsOfFile: Fixtures.path("images/coffee.png"))
        #expect(try await MLKitPoseDetectorTests.detector(mode).process(empty).isEmpty)
    }

    @Test func asyncProcessThrowsTheDetectorsError() async throws {
        let options = PoseDetectorOptions()
        options.modelPath = "/nonexistent/pose_landmarker_full.task"
        let detector = PoseDetector.poseDetector(options: options)
        let loadError = try #require(detector.loadError)
        let image = try VisionImage(pixels: [UInt8](repeating: 0, count: 4 * 4 * 3), width: 4, height: 4, format: .rgb8)
        await #expect(throws: loadError) { try await detector.process(image) }
    }
}
