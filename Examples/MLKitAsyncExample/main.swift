// ML Kit's pose detection guide, asynchronous path (process(_:completion:)), with the base
// detector in stream mode. Only the image creation differs: the image is the file given as
// the first argument. The model is pose_landmarker_full.task in the model folders (or $LANDMARKER_POSE_MODEL).
// The completion runs on the detector's private queue; the program waits for it.
// Run from the package root, after scripts/fetch_samples.sh: swift run MLKitAsyncExample [image.png]
import Dispatch
import Foundation
import MLKit

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/bus.jpg"

// Base pose detector with streaming, when depending on the PoseDetection SDK
let options = PoseDetectorOptions()
options.detectorMode = .stream

let poseDetector = PoseDetector.poseDetector(options: options)

let image: VisionImage
do {
  image = try VisionImage(contentsOfFile: imagePath)
} catch {
  print("error: \(error)")
  exit(1)
}
image.orientation = .up

let completed = DispatchSemaphore(value: 0)

poseDetector.process(image) { detectedPoses, error in
  defer { completed.signal() }
  guard error == nil else {
    // Error.
    print("Failed to detect pose with error: \(error!.localizedDescription).")
    return
  }
  // The guide writes `!detectedPoses.isEmpty`; the array is optional, so it is unwrapped here.
  guard let detectedPoses, !detectedPoses.isEmpty else {
    // No pose detected.
    print("Pose detector returned no results.")
    return
  }

  // Success. Get pose landmarks here.
  for pose in detectedPoses {
    let leftAnkleLandmark = pose.landmark(ofType: .leftAnkle)
    if leftAnkleLandmark.inFrameLikelihood > 0.5 {
      let position = leftAnkleLandmark.position
      print("left ankle at x \(position.x) y \(position.y) z \(position.z)")
    }
    for landmark in pose.landmarks {
      let name = "\(landmark.type)".padding(toLength: 16, withPad: " ", startingAt: 0)
      print(name + String(
        format: " x %8.3f px  y %8.3f px  z %+9.3f px  inFrameLikelihood %.4f",
        Double(landmark.position.x), Double(landmark.position.y), Double(landmark.position.z),
        landmark.inFrameLikelihood))
    }
  }
}

completed.wait()
