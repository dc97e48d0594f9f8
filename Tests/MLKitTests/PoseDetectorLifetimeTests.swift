import Dispatch
@testable import MLKit
import TestSupport
import Testing

/// A detector is freed once its user lets go of it: no retain cycle through the ML Kit
/// completion path (`LandmarkerLifetimeTests` checks the landmarkers).
@Suite struct PoseDetectorLifetimeTests {
    /// Freed when the scope ends, after `results(in:)` and also with `process(_:completion:)`
    /// calls still queued: those hold the models they need, not the detector, and still complete.
    @Test(arguments: [PoseDetectorMode.stream, .singleImage])
    func poseDetectorIsFreedAfterItsLastUse(mode: PoseDetectorMode) throws {
        let image = try VisionImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        weak var weakSynchronous: PoseDetector?
        do {
            let detector = try MLKitPoseDetectorTests.detector(mode)
            weakSynchronous = detector
            #expect(try detector.results(in: image).count == 1)
        }
        #expect(weakSynchronous == nil, "the \(mode) detector outlived its last synchronous use")

        weak var weakAsynchronous: PoseDetector?
        let completed = DispatchSemaphore(value: 0)
        let poseCounts = TasksRecorder<Int>()
        do {
            let detector = try MLKitPoseDetectorTests.detector(mode)
            weakAsynchronous = detector
            for _ in 0..<2 {
                detector.process(image) { poses, _ in
                    poseCounts.append(poses?.count ?? -1)
                    completed.signal()
                }
            }
        }
        #expect(weakAsynchronous == nil, "queued process(_:completion:) calls kept the \(mode) detector alive")
        for _ in 0..<2 { #expect(completed.wait(timeout: .now() + 60) == .success) }
        #expect(poseCounts.values == [1, 1])
    }
}
