// An iOS app's camera screen, ported: the MediaPipe Tasks and ML Kit calls are the iOS code
// unchanged (the model found with ModelFiles where iOS uses Bundle.main, frames wrapped from YUV
// buffers where iOS wraps a CMSampleBuffer). The pose landmarker runs with the CPU delegate and
// segmentation masks, read as bytes; the ML Kit detector gets the front camera's mirrored
// orientation and is awaited.
import Foundation
import MLKit
import MediaPipeTasksVision

final class CameraViewController {
  private let poseLandmarker: PoseLandmarker
  private let poseDetector: PoseDetector
  private let cameraPosition: CameraPosition = .front

  init() throws {
    let modelPath = try ModelFiles.path(forResource: "pose_landmarker_full", ofType: "task")

    let options = PoseLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.baseOptions.delegate = .CPU
    options.runningMode = .video
    options.numPoses = 1
    options.minPoseDetectionConfidence = 0.5
    options.minPosePresenceConfidence = 0.5
    options.minTrackingConfidence = 0.5
    options.shouldOutputSegmentationMasks = true
    poseLandmarker = try PoseLandmarker(options: options)

    let detectorOptions = PoseDetectorOptions()
    detectorOptions.detectorMode = .stream
    poseDetector = PoseDetector.poseDetector(options: detectorOptions)
  }

  /// ML Kit's guide: the orientation of a camera frame for the device's orientation and the
  /// camera in use (the front camera's frames are shown mirrored).
  func imageOrientation(
    deviceOrientation: DeviceOrientation, cameraPosition: CameraPosition
  ) -> ImageOrientation {
    switch deviceOrientation {
    case .portrait:
      return cameraPosition == .front ? .leftMirrored : .right
    case .landscapeLeft:
      return cameraPosition == .front ? .downMirrored : .up
    case .portraitUpsideDown:
      return cameraPosition == .front ? .rightMirrored : .left
    case .landscapeRight:
      return cameraPosition == .front ? .upMirrored : .down
    }
  }

  /// The frame callback (`captureOutput(_:didOutput:from:)` on iOS).
  func captureOutput(didOutput frame: CameraFrame) async throws {
    // MediaPipe Tasks, video mode. MPImage takes the frame's rotation; like MediaPipe on iOS
    // it refuses mirrored orientations, so the overlay mirrors the landmarks when drawn.
    let image = try MPImage(
      yuvBuffer: frame.bytes, format: .yuyv, width: frame.width, height: frame.height,
      rowStride: frame.bytesPerRow, orientation: .right)
    let result = try poseLandmarker.detect(
      videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
    print("frame \(frame.timestampInMilliseconds) ms: Tasks found \(result.landmarks.count) pose(s)")
    if let mask = result.segmentationMasks.first {
      let bytes = mask.uint8Data
      let person = bytes.filter { $0 > 127 }.count
      print(String(
        format: "  mask %dx%d, %@ stored, read as bytes: %d person pixels (%.1f %%)",
        mask.width, mask.height, "\(mask.dataType)", person, 100 * Double(person) / Double(bytes.count)))
    }
    if let pose = result.landmarks.first {
      let wrist = pose[15]  // left wrist
      print(String(
        format: "  left wrist (Tasks, unmirrored): x %.1f y %.1f px",
        Double(wrist.x) * Double(image.width), Double(wrist.y) * Double(image.height)))
    }

    // ML Kit, as the selfie preview shows the frame.
    let visionImage = try VisionImage(
      yuvBuffer: frame.bytes, format: .yuyv, width: frame.width, height: frame.height,
      rowStride: frame.bytesPerRow)
    visionImage.orientation = imageOrientation(
      deviceOrientation: .portrait, cameraPosition: cameraPosition)
    let poses = try await poseDetector.process(visionImage)
    guard let pose = poses.first else {
      print("  ML Kit: pose detector returned no results.")
      return
    }
    let leftWrist = pose.landmark(ofType: .leftWrist)
    print(String(
      format: "  left wrist (ML Kit, mirrored view %dx%d): x %.1f y %.1f px, in frame %.3f",
      visionImage.width, visionImage.height, Double(leftWrist.position.x), Double(leftWrist.position.y),
      leftWrist.inFrameLikelihood))
  }
}
