// The Hand Landmarker guide's image-mode snippet. Only the image and the model path differ:
// the image is the file given as the first argument, the model is hand_landmarker_full.task,
// found by ModelFiles (as Bundle.main finds it on iOS).
// Run from the package root, after scripts/fetch_samples.sh: swift run HandImageExample [image.png]
import Foundation
import MediaPipeTasksVision

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/t1.jpg"
let minHandDetectionConfidence: Float = 0.5
let minHandPresenceConfidence: Float = 0.5
let minHandTrackingConfidence: Float = 0.5
let numHands = 2

do {
  let modelPath = try ModelFiles.path(forResource: "hand_landmarker_full", ofType: "task")

  let options = HandLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .image
  options.minHandDetectionConfidence = minHandDetectionConfidence
  options.minHandPresenceConfidence = minHandPresenceConfidence
  options.minTrackingConfidence = minHandTrackingConfidence
  options.numHands = numHands

  let handLandmarker = try HandLandmarker(options: options)

  let image = try MPImage(contentsOfFile: imagePath)

  let result = try handLandmarker.detect(image: image)

  print("\(result.landmarks.count) hand(s) in \(imagePath) (\(image.width)x\(image.height))")
  for (handIndex, landmarks) in result.landmarks.enumerated() {
    let category = result.handedness[handIndex].first
    print("hand \(handIndex): \(category?.categoryName ?? "?") \(String(format: "%.2f", category?.score ?? 0))")
    for (index, landmark) in landmarks.enumerated() {
      print(String(format: "  #%2d x %.6f y %.6f z %+.6f", index, landmark.x, landmark.y, landmark.z))
    }
  }
} catch {
  print("error: \(error)")
  exit(1)
}
