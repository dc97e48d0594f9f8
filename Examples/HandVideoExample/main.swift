// The Hand Landmarker guide's video-mode snippet. Only the frames and the model path differ:
// the frames are the PNG/JPEG files of the folder given as the first argument (sorted by name,
// at the frame rate given as the second argument, 25 fps by default), the model is
// hand_landmarker_full.task, found by ModelFiles (as Bundle.main finds it on iOS).
// Run from the package root, after scripts/fetch_samples.sh: swift run HandVideoExample [frames/ [fps]]
import Foundation
import MediaPipeTasksVision

let framesFolder = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/t1_pan"
let framesPerSecond = CommandLine.arguments.count > 2 ? Double(CommandLine.arguments[2]) ?? 25 : 25
let minHandDetectionConfidence: Float = 0.5
let minHandPresenceConfidence: Float = 0.5
let minHandTrackingConfidence: Float = 0.5
let numHands = 2

do {
  let modelPath = try ModelFiles.path(forResource: "hand_landmarker_full", ofType: "task")

  let options = HandLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .video
  options.minHandDetectionConfidence = minHandDetectionConfidence
  options.minHandPresenceConfidence = minHandPresenceConfidence
  options.minTrackingConfidence = minHandTrackingConfidence
  options.numHands = numHands

  let handLandmarker = try HandLandmarker(options: options)

  let frameNames = try FileManager.default.contentsOfDirectory(atPath: framesFolder)
    .filter { name in [".png", ".jpg", ".jpeg"].contains { name.lowercased().hasSuffix($0) } }
    .sorted()
  for (frameIndex, frameName) in frameNames.enumerated() {
    let timestamp = Int((Double(frameIndex) * 1000 / framesPerSecond).rounded())

    let image = try MPImage(contentsOfFile: framesFolder + "/" + frameName)

    let result = try handLandmarker.detect(
      videoFrame: image,
      timestampInMilliseconds: timestamp)

    print("\(frameName) at \(timestamp) ms: \(result.landmarks.count) hand(s)")
    for (handIndex, landmarks) in result.landmarks.enumerated() {
      let category = result.handedness[handIndex].first
      print("  hand \(handIndex): \(category?.categoryName ?? "?") \(String(format: "%.2f", category?.score ?? 0))")
      for (index, landmark) in landmarks.enumerated() {
        print(String(format: "    #%2d x %.4f y %.4f z %+.4f", index, landmark.x, landmark.y, landmark.z))
      }
    }
  }
} catch {
  print("error: \(error)")
  exit(1)
}
