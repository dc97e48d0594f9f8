// ML Kit's pose detection guide, synchronous path (results(in:)), with the accurate detector on
// a still image. Only the image creation differs: the image is the file given as the first
// argument. The model is pose_landmarker_full.task in the model folders (or $LANDMARKER_POSE_MODEL).
// Run from the package root, after scripts/fetch_samples.sh: swift run MLKitSyncExample [image.png]
import Foundation
import MLKit

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/bus.jpg"

// Accurate pose detector on static images, when depending on the
// PoseDetectionAccurate SDK
let options = AccuratePoseDetectorOptions()
options.detectorMode = .singleImage

let poseDetector = PoseDetector.poseDetector(options: options)

let image: VisionImage
do {
  image = try VisionImage(contentsOfFile: imagePath)
} catch {
  print("error: \(error)")
  exit(1)
}
image.orientation = .up

/// The guide's processing steps; in a function because they return early.
func detectPoses(in image: VisionImage, with poseDetector: PoseDetector) {
  // The guide declares `[Pose]`; `guard let` below needs an optional.
  var results: [Pose]?
  do {
    results = try poseDetector.results(in: image)
  } catch let error {
    print("Failed to detect pose with error: \(error.localizedDescription).")
    return
  }
  guard let detectedPoses = results, !detectedPoses.isEmpty else {
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

print("\(imagePath) (\(image.width)x\(image.height)):")
detectPoses(in: image, with: poseDetector)
