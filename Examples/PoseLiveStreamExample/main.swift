// The Pose Landmarker guide's live-stream snippet. Only the image and the model path differ:
// the frame is the file given as the first argument, the model is pose_landmarker_full.task,
// found by ModelFiles (as Bundle.main finds it on iOS).
// The program then waits for the delegate to receive the result.
// Run from the package root, after scripts/fetch_samples.sh: swift run PoseLiveStreamExample [image.png]
import Dispatch
import Foundation
import MediaPipeTasksVision

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/bus.jpg"
let minPoseDetectionConfidence: Float = 0.5
let minPosePresenceConfidence: Float = 0.5
let minTrackingConfidence: Float = 0.5
let numPoses = 1

// Class that conforms to the `PoseLandmarkerLiveStreamDelegate` protocol and
// implements the method that the pose landmarker calls once it finishes
// performing pose landmark detection in each input frame.
class PoseLandmarkerResultProcessor: NSObject, PoseLandmarkerLiveStreamDelegate {
  /// Signalled after each result, so that the program can wait for it.
  let resultDelivered = DispatchSemaphore(value: 0)

  func poseLandmarker(
    _ poseLandmarker: PoseLandmarker,
    didFinishDetection result: PoseLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // Process the pose landmarker result or errors here.
    defer { resultDelivered.signal() }
    if let error {
      print("frame at \(timestampInMilliseconds) ms failed: \(error)")
      return
    }
    guard let result else { return }
    print("frame at \(timestampInMilliseconds) ms: \(result.landmarks.count) pose(s)")
    for landmarks in result.landmarks {
      for (index, landmark) in landmarks.enumerated() {
        let name = "\(PoseLandmark(rawValue: index)!)".padding(toLength: 15, withPad: " ", startingAt: 0)
        print(String(format: "  #%2d ", index) + name + String(
          format: " x %.6f y %.6f z %+.6f presence %.4f", landmark.x, landmark.y, landmark.z, landmark.presence ?? 0))
      }
    }
  }
}

do {
  let modelPath = try ModelFiles.path(forResource: "pose_landmarker_full", ofType: "task")

  let options = PoseLandmarkerOptions()
  options.baseOptions.modelAssetPath = modelPath
  options.runningMode = .liveStream
  options.minPoseDetectionConfidence = minPoseDetectionConfidence
  options.minPosePresenceConfidence = minPosePresenceConfidence
  options.minTrackingConfidence = minTrackingConfidence
  options.numPoses = numPoses

  // Assign an object of the class to the `poseLandmarkerLiveStreamDelegate`
  // property.
  let processor = PoseLandmarkerResultProcessor()
  options.poseLandmarkerLiveStreamDelegate = processor

  let poseLandmarker = try PoseLandmarker(options: options)

  let image = try MPImage(contentsOfFile: imagePath)
  let timestamp = 0

  try poseLandmarker.detectAsync(
    image: image,
    timestampInMilliseconds: timestamp)

  if processor.resultDelivered.wait(timeout: .now() + 60) == .timedOut {
    print("no result within 60 s")
  }
  poseLandmarker.close()
} catch {
  print("error: \(error)")
  exit(1)
}
