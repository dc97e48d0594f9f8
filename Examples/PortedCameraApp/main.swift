// An iOS camera app's pose screen (CameraViewController.swift) ported to Linux, fed three frames
// of a photo as a front camera would send them (LinuxCamera.swift), 33 ms apart.
// Run from the package root, after scripts/fetch_samples.sh: swift run PortedCameraApp [image.png]
import Foundation

let imagePath = CommandLine.arguments.count > 1
    ? CommandLine.arguments[1] : "samples/bus.jpg"

do {
  let camera = try PhotoCamera(photoPath: imagePath)
  let viewController = try CameraViewController()
  for index in 0..<3 {
    try await viewController.captureOutput(didOutput: camera.frame(at: 33 * index))
  }
} catch {
  print("error: \(error)")
  exit(1)
}
