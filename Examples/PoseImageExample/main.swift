// The Pose Landmarker guide's image-mode snippet. Only the image and the model path differ:
// the image is the file given as the first argument, the model is pose_landmarker_full.task,
// found by ModelFiles (as Bundle.main finds it on iOS).
// Run from the package root, after scripts/fetch_samples.sh: swift run PoseImageExample [image.png]
import Foundation
import MediaPipeTasksVision

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/bus.jpg"
let minPoseDetectionConfidence: Float = 0.5
let minPosePresenceConfidence: Float = 0.5
let minTrackingConfidence: Float = 0.5
let numPoses = 1

do {
  let modelPath = try ModelFiles.path(forResource: "pose_landmarker_full", ofType: "task")

  let options = PoseLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .image
  options.minPoseDetectionConfidence = minPoseDetectionConfidence
  options.minPosePresenceConfidence = minPosePresenceConfidence
  options.minTrackingConfidence = minTrackingConfidence
  options.numPoses = numPoses

  let poseLandmarker = try PoseLandmarker(options: options)

  let image = try MPImage(contentsOfFile: imagePath)

  let result = try poseLandmarker.detect(image: image)

  print("\(result.landmarks.count) pose(s) in \(imagePath) (\(image.width)x\(image.height))")
  for (poseIndex, landmarks) in result.landmarks.enumerated() {
    for (index, landmark) in landmarks.enumerated() {
      let name = "\(PoseLandmark(rawValue: index)!)".padding(toLength: 15, withPad: " ", startingAt: 0)
      print(String(format: "pose %d #%2d ", poseIndex, index) + name + String(
        format: " x %.6f y %.6f z %+.6f visibility %.4f presence %.4f",
        landmark.x, landmark.y, landmark.z, landmark.visibility ?? 0, landmark.presence ?? 0))
    }
  }
} catch {
  print("error: \(error)")
  exit(1)
}
