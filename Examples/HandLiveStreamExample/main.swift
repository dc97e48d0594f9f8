// The Hand Landmarker guide's live-stream snippet. Only the image and the model path differ:
// the frame is the file given as the first argument, the model is hand_landmarker_full.task,
// found by ModelFiles (as Bundle.main finds it on iOS).
// The program then waits for the delegate to receive the result.
// Run from the package root, after scripts/fetch_samples.sh: swift run HandLiveStreamExample [image.png]
import Dispatch
import Foundation
import MediaPipeTasksVision

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/t1.jpg"
let minHandDetectionConfidence: Float = 0.5
let minHandPresenceConfidence: Float = 0.5
let minHandTrackingConfidence: Float = 0.5
let numHands = 2

// Class that conforms to the `HandLandmarkerLiveStreamDelegate` protocol and
// implements the method that the hand landmarker calls once it finishes
// performing landmarks detection in each input frame.
class HandLandmarkerResultProcessor: NSObject, HandLandmarkerLiveStreamDelegate {
  /// Signalled after each result, so that the program can wait for it.
  let resultDelivered = DispatchSemaphore(value: 0)

  func handLandmarker(
    _ handLandmarker: HandLandmarker,
    didFinishDetection result: HandLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // Process the hand landmarker result or errors here.
    defer { resultDelivered.signal() }
    if let error {
      print("frame at \(timestampInMilliseconds) ms failed: \(error)")
      return
    }
    guard let result else { return }
    print("frame at \(timestampInMilliseconds) ms: \(result.landmarks.count) hand(s)")
    for (handIndex, landmarks) in result.landmarks.enumerated() {
      let category = result.handedness[handIndex].first
      print("  hand \(handIndex): \(category?.categoryName ?? "?") \(String(format: "%.2f", category?.score ?? 0))")
      for (index, landmark) in landmarks.enumerated() {
        print(String(format: "    #%2d x %.6f y %.6f z %+.6f", index, landmark.x, landmark.y, landmark.z))
      }
    }
  }
}

do {
  let modelPath = try ModelFiles.path(forResource: "hand_landmarker_full", ofType: "task")

  let options = HandLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .liveStream
  options.minHandDetectionConfidence = minHandDetectionConfidence
  options.minHandPresenceConfidence = minHandPresenceConfidence
  options.minTrackingConfidence = minHandTrackingConfidence
  options.numHands = numHands

  // Assign an object of the class to the `handLandmarkerLiveStreamDelegate`
  // property.
  let processor = HandLandmarkerResultProcessor()
  options.handLandmarkerLiveStreamDelegate = processor

  let handLandmarker = try HandLandmarker(options: options)

  let image = try MPImage(contentsOfFile: imagePath)
  let timestamp = 0

  try handLandmarker.detectAsync(
    image: image,
    timestampInMilliseconds: timestamp)

  if processor.resultDelivered.wait(timeout: .now() + 60) == .timedOut {
    print("no result within 60 s")
  }
  handLandmarker.close()
} catch {
  print("error: \(error)")
  exit(1)
}
