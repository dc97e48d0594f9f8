// The Pose Landmarker guide's video-mode snippet. Only the frames and the model path differ:
// the frames are the PNG/JPEG files of the folder given as the first argument (sorted by name,
// at the frame rate given as the second argument, 25 fps by default), the model is
// pose_landmarker_full.task, found by ModelFiles (as Bundle.main finds it on iOS).
// Run from the package root, after scripts/fetch_samples.sh: swift run PoseVideoExample [frames/ [fps]]
import Foundation
import MediaPipeTasksVision

let framesFolder = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/bus_tilt"
let framesPerSecond = CommandLine.arguments.count > 2 ? Double(CommandLine.arguments[2]) ?? 25 : 25
let minPoseDetectionConfidence: Float = 0.5
let minPosePresenceConfidence: Float = 0.5
let minTrackingConfidence: Float = 0.5
let numPoses = 1

do {
  let modelPath = try ModelFiles.path(forResource: "pose_landmarker_full", ofType: "task")

  let options = PoseLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .video
  options.minPoseDetectionConfidence = minPoseDetectionConfidence
  options.minPosePresenceConfidence = minPosePresenceConfidence
  options.minTrackingConfidence = minTrackingConfidence
  options.numPoses = numPoses

  let poseLandmarker = try PoseLandmarker(options: options)

  let frameNames = try FileManager.default.contentsOfDirectory(atPath: framesFolder)
    .filter { name in [".png", ".jpg", ".jpeg"].contains { name.lowercased().hasSuffix($0) } }
    .sorted()
  for (frameIndex, frameName) in frameNames.enumerated() {
    let timestamp = Int((Double(frameIndex) * 1000 / framesPerSecond).rounded())

    let image = try MPImage(contentsOfFile: framesFolder + "/" + frameName)

    let result = try poseLandmarker.detect(
      videoFrame: image,
      timestampInMilliseconds: timestamp)

    print("\(frameName) at \(timestamp) ms: \(result.landmarks.count) pose(s)")
    for landmarks in result.landmarks {
      for (index, landmark) in landmarks.enumerated() {
        let name = "\(PoseLandmark(rawValue: index)!)".padding(toLength: 15, withPad: " ", startingAt: 0)
        print(String(format: "  #%2d ", index) + name + String(
          format: " x %.4f y %.4f z %+.4f presence %.3f", landmark.x, landmark.y, landmark.z, landmark.presence ?? 0))
      }
    }
  }
} catch {
  print("error: \(error)")
  exit(1)
}
