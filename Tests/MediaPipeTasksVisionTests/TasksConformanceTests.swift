import Dispatch
import Foundation
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// The iOS Tasks names added for source compatibility: `BaseOptions.delegate`, `Mask` with its
/// data type and both views of its data, and `segmentationMasks` as an array.
@Suite struct TasksConformanceTests {
    static var poseModel: String { Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path }
    static var handModel: String { Fixtures.modelsRoot.appendingPathComponent("hand_landmarker_full.task").path }

    @Test func delegateIsCPUByDefaultAndCPUWorks() throws {
        #expect(BaseOptions().delegate == .CPU)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Self.poseModel
        options.baseOptions.delegate = .CPU
        let image = try MPImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        #expect(try PoseLandmarker(options: options).detect(image: image).landmarks.count == 1)
    }

    @Test func gpuDelegateIsRefusedWhenTheTaskIsCreated() throws {
        let pose = PoseLandmarkerOptions()
        pose.baseOptions.modelAssetPath = Self.poseModel
        pose.baseOptions.delegate = .GPU
        #expect(throws: TaskError.unsupportedDelegate(.GPU)) { try PoseLandmarker(options: pose) }
        let hand = HandLandmarkerOptions()
        hand.baseOptions.modelAssetPath = Self.handModel
        hand.baseOptions.delegate = .GPU
        #expect(throws: TaskError.unsupportedDelegate(.GPU)) { try HandLandmarker(options: hand) }
        // Refused before the model is read: a missing file gives the same error.
        let missing = PoseLandmarkerOptions()
        missing.baseOptions.modelAssetPath = "/nonexistent/pose.task"
        missing.baseOptions.delegate = .GPU
        #expect(throws: TaskError.unsupportedDelegate(.GPU)) { try missing.validated() }
        #expect(TaskError.unsupportedDelegate(.GPU).description
            == "baseOptions.delegate .GPU is not available: this runtime runs models on the CPU only. "
                + "Set baseOptions.delegate = .CPU (the default).")
    }

    @Test func floatMasksConvertToBytesAsMPPMaskDoes() {
        let mask = Mask(width: 4, height: 2, float32Data: [0, 0.5, 0.999, 1, -0.25, 1.75, .nan, 0.2])
        #expect(mask.dataType == .float32)
        #expect(mask.width == 4 && mask.height == 2)
        // v × 255 truncated: 127.5 → 127, 254.745 → 254; out-of-range values clamped, NaN → 0.
        #expect(mask.uint8Data == [0, 127, 254, 255, 0, 255, 0, 51])
        #expect(mask.uint8Data == mask.uint8Data)
        #expect(mask.float32Data[1] == 0.5)
        #expect(mask.dataType == .float32, "reading the other type does not change the stored type")
    }

    @Test func byteMasksConvertToFloatsAsMPPMaskDoes() {
        let mask = Mask(width: 3, height: 1, uint8Data: [0, 51, 255])
        #expect(mask.dataType == .uInt8)
        #expect(mask.uint8Data == [0, 51, 255])
        #expect(mask.float32Data == [0, Float(51) / 255, 1])
        #expect(mask != Mask(width: 3, height: 1, float32Data: [0, Float(51) / 255, 1]), "data types differ")
        #expect(mask == Mask(width: 3, height: 1, uint8Data: [0, 51, 255]))
    }

    @Test func conversionsReadFromManyThreadsAgree() {
        let floats = (0..<10_000).map { Float($0 % 256) / 255 }
        let mask = Mask(width: 100, height: 100, float32Data: floats)
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var bytes: [[UInt8]] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let bytes = mask.uint8Data
            results.lock.withLock { results.bytes.append(bytes) }
        }
        #expect(results.bytes.count == 8)
        #expect(results.bytes.allSatisfy { $0 == results.bytes[0] })
        #expect(results.bytes[0][255] == 255 && results.bytes[0][256] == 0)
    }

    /// Masks off: an empty array. Masks on: one `.float32` mask per pose, the size of the image,
    /// readable as bytes.
    @Test func segmentationMasksAreAnArray() throws {
        let image = try MPImage(contentsOfFile: Fixtures.path("images/bus_man.png"))
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Self.poseModel
        let withoutMasks = try PoseLandmarker(options: options).detect(image: image)
        #expect(withoutMasks.landmarks.count == 1)
        #expect(withoutMasks.segmentationMasks.isEmpty)

        options.shouldOutputSegmentationMasks = true
        let withMasks = try PoseLandmarker(options: options).detect(image: image)
        #expect(withMasks.landmarks == withoutMasks.landmarks)
        let mask = try #require(withMasks.segmentationMasks.first)
        #expect(withMasks.segmentationMasks.count == 1)
        #expect(mask.dataType == .float32)
        #expect(mask.width == image.width && mask.height == image.height)
        let bytes = mask.uint8Data
        #expect(bytes.count == image.width * image.height)
        // The person covers part of the photo, not all of it.
        let person = bytes.filter { $0 > 127 }.count
        #expect(person > bytes.count / 20 && person < bytes.count * 9 / 10, "\(person) of \(bytes.count) pixels")
    }
}
