import Foundation
import LandmarkTestSupport
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// `HolisticLandmarker` through the public API: image mode (one landmarker for a run of images,
/// each standing alone) and video mode on the legacy solutions' microsecond clock against
/// MediaPipe's legacy Holistic references, the segmentation masks, the result's shape,
/// microsecond timestamps, and the options it refuses. The graph's exactness is `HolisticGraphGoldenTests`'.
@Suite struct HolisticLandmarkerTests {
    static func landmarker(mode: RunningMode, refined: Bool = false, masks: Bool = false) throws -> HolisticLandmarker {
        let options = HolisticLandmarkerOptions()
        options.outputPoseSegmentationMasks = masks
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot
            .appendingPathComponent(refined ? "holistic_landmarker_refined.task" : "holistic_landmarker.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = mode
        return try HolisticLandmarker(options: options)
    }

    /// The largest distance, in pixels, between our landmarks and the reference's.
    static func largestDistance(_ ours: [NormalizedLandmark], _ theirs: [SIMD3<Double>]?, _ width: Int, _ height: Int) -> Double {
        zip(ours, theirs ?? []).map { point, their in
            let dx = (Double(point.x) - their.x) * Double(width)
            let dy = (Double(point.y) - their.y) * Double(height)
            return (dx * dx + dy * dy).squareRoot()
        }.max() ?? 0
    }

    /// Person 0's parts against a reference frame: the same parts found, body, face and hands
    /// within 0.05 px (docs/PIPELINE.md, "Holistic exactness"; on the clip, hand tracking carries
    /// any difference in `hand_recrop`'s last bits on to whole pixels).
    static func expectMatches(_ result: HolisticLandmarkerResult, _ reference: ReferenceHolisticFrame, _ label: String) {
        let size = (reference.width, reference.height)
        #expect(result.poseLandmarks.count == (reference.pose == nil ? 0 : 1), "\(label): people")
        guard let pose = reference.pose, result.poseLandmarks.count == 1 else { return }
        #expect(result.poseWorldLandmarks[0].count == 33)
        #expect(largestDistance(result.poseLandmarks[0], pose.landmarks, size.0, size.1) <= 0.05, "\(label): pose")
        #expect(result.faceLandmarks[0].count == (reference.face?.count ?? 0), "\(label): face")
        #expect(largestDistance(result.faceLandmarks[0], reference.face, size.0, size.1) <= 0.05, "\(label): face")
        for (side, ours, world, theirs) in [
            ("left", result.leftHandLandmarks[0], result.leftHandWorldLandmarks[0], reference.leftHand.landmarks),
            ("right", result.rightHandLandmarks[0], result.rightHandWorldLandmarks[0], reference.rightHand.landmarks),
        ] {
            #expect(ours.count == (theirs == nil ? 0 : 21) && world.count == ours.count, "\(label): \(side) hand")
            #expect(largestDistance(ours, theirs, size.0, size.1) <= 0.05, "\(label): \(side) hand")
        }
    }

    @Test func imageModeGivesLegacyHolisticForEveryImageOnItsOwn() throws {
        let landmarker = try Self.landmarker(mode: .image)
        // One landmarker for all: a face or hand found in one image must not steer the next.
        for name in ["bus_man", "t1_chip", "zidane", "t1_chip_mirror", "grace_hopper", "t1_cards_left"] {
            let result = try landmarker.detect(image: MPImage(contentsOfFile: Fixtures.path("images/\(name).png")))
            #expect(result.trackIds == nil && result.faceBlendshapes.isEmpty)
            Self.expectMatches(result, try FixtureGoldens.holistic("legacy/holistic_plain/\(name).json"), name)
        }
    }

    @Test func refinedBundleGivesTheIrises() throws {
        let landmarker = try Self.landmarker(mode: .image, refined: true)
        let result = try landmarker.detect(image: MPImage(contentsOfFile: Fixtures.path("images/bus_man.png")))
        Self.expectMatches(result, try FixtureGoldens.holistic("legacy/holistic_refined/bus_man.json"), "bus_man refined")
        #expect(result.faceLandmarks.first?.count == 478)
    }

    @Test func videoModeOnTheLegacyClockGivesLegacyHolistic() throws {
        let landmarker = try Self.landmarker(mode: .video)
        var trackIds: Set<Int> = []
        for frame in 0..<50 {
            let name = String(format: "frame_%04d", frame)
            let image = try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(name).png"))
            let microseconds = Int64(frame + 1) * 33_333
            let result = try landmarker.detect(videoFrame: image, timestampInMicroseconds: microseconds)
            #expect(result.timestampInMilliseconds == Int(microseconds / 1000))
            #expect(result.trackIds?.count == result.poseLandmarks.count)
            trackIds.formUnion(result.trackIds ?? [])
            Self.expectMatches(
                result, try FixtureGoldens.holistic("legacy/video/t1_sweep/holistic_plain_tracking/\(name).json"), name)
        }
        #expect(!trackIds.isEmpty)
    }

    /// Each person's face and hands lie on that person's own body: within the box of their
    /// pose landmarks grown by half its size.
    static func expectPartsOnTheirOwnBody(_ result: HolisticLandmarkerResult, _ label: String) {
        for person in result.poseLandmarks.indices {
            let pose = result.poseLandmarks[person]
            let xs = pose.map(\.x), ys = pose.map(\.y)
            let (width, height) = (xs.max()! - xs.min()!, ys.max()! - ys.min()!)
            let inside = { (point: NormalizedLandmark) in
                point.x > xs.min()! - width / 2 && point.x < xs.max()! + width / 2
                    && point.y > ys.min()! - height / 2 && point.y < ys.max()! + height / 2
            }
            for part in [result.faceLandmarks[person], result.leftHandLandmarks[person], result.rightHandLandmarks[person]] {
                #expect(part.allSatisfy(inside), "\(label): person \(person) has a part off their body")
            }
        }
    }

    /// One mask per person, image size, each about that person's own body: the mean of their
    /// shoulders and hips lies within the box of the mask's pixels above 0.5.
    static func expectMasksOnTheirOwnBody(_ result: HolisticLandmarkerResult, width: Int, height: Int, _ label: String) {
        #expect(result.poseSegmentationMasks.count == result.poseLandmarks.count, "\(label): one mask per person")
        for (pose, mask) in zip(result.poseLandmarks, result.poseSegmentationMasks) {
            #expect(mask.width == width && mask.height == height, "\(label): mask size")
            let person = mask.float32Data.indices.filter { mask.float32Data[$0] > 0.5 }
            let columns = person.map { $0 % width }, rows = person.map { $0 / width }
            guard let left = columns.min(), let right = columns.max(), let top = rows.min(), let bottom = rows.max() else {
                Issue.record("\(label): an empty mask")
                continue
            }
            let torso = [11, 12, 23, 24].map { pose[$0] }
            let x = torso.map(\.x).reduce(0, +) / 4 * Float(width), y = torso.map(\.y).reduce(0, +) / 4 * Float(height)
            #expect(Float(left) <= x && x <= Float(right + 1) && Float(top) <= y && y <= Float(bottom + 1),
                    "\(label): a torso at (\(x), \(y)) outside its mask's box \(left)...\(right) × \(top)...\(bottom)")
        }
    }

    /// Several people (beyond MediaPipe): image mode gives the single-person result as person 0
    /// and more people after it, each with parts and a mask on their own body; video mode follows
    /// them with distinct track ids.
    @Test func severalPeopleEachGetTheirOwnFaceAndHands() throws {
        let options = HolisticLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("holistic_landmarker.task").path
        options.baseOptions.numThreads = 2
        options.numPoses = 3
        options.outputPoseSegmentationMasks = true
        let several = try HolisticLandmarker(options: options)
        let single = try Self.landmarker(mode: .image, masks: true)
        for name in ["t1"] {
            let image = try MPImage(contentsOfFile: Fixtures.path("images/\(name).png"))
            let many = try several.detect(image: image)
            let one = try single.detect(image: image)
            #expect(many.poseLandmarks.count > 1, "\(name): several people")
            #expect(many.poseLandmarks.first == one.poseLandmarks.first && many.faceLandmarks.first == one.faceLandmarks.first
                    && many.leftHandLandmarks.first == one.leftHandLandmarks.first
                    && many.rightHandLandmarks.first == one.rightHandLandmarks.first
                    && many.poseSegmentationMasks.first == one.poseSegmentationMasks.first, "\(name): person 0")
            Self.expectPartsOnTheirOwnBody(many, name)
            Self.expectMasksOnTheirOwnBody(many, width: image.width, height: image.height, name)
        }
        options.runningMode = .video
        let video = try HolisticLandmarker(options: options)
        var most = 0
        for frame in 0..<20 {
            let name = String(format: "frame_%04d", frame)
            let image = try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(name).png"))
            let result = try video.detect(videoFrame: image, timestampInMicroseconds: Int64(frame + 1) * 33_333)
            let ids = result.trackIds ?? []
            #expect(ids.count == result.poseLandmarks.count && Set(ids).count == ids.count, "\(name): track ids")
            most = max(most, ids.count)
            Self.expectPartsOnTheirOwnBody(result, name)
            Self.expectMasksOnTheirOwnBody(result, width: image.width, height: image.height, name)
        }
        #expect(most > 1)
    }

    /// Live stream on the legacy clock, one frame at a time so that none is dropped: legacy
    /// Holistic's tracked output, delivered in order with the frames' timestamps.
    @Test func liveStreamOnTheLegacyClockGivesLegacyHolistic() throws {
        let recorder = HolisticRecorder()
        let options = HolisticLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("holistic_landmarker.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = .liveStream
        options.holisticLandmarkerLiveStreamDelegate = recorder
        let live = try HolisticLandmarker(options: options)
        let frames = 0..<8
        for frame in frames {
            let image = try MPImage(contentsOfFile: Fixtures.path(String(format: "video/t1_sweep/frame_%04d.png", frame)))
            try live.detectAsync(image: image, timestampInMicroseconds: Int64(frame + 1) * 33_333)
            let deadline = Date().addingTimeInterval(60)
            while recorder.received.count <= frame && Date() < deadline {
                usleep(1000)
            }
        }
        live.close()
        let received = recorder.received
        #expect(received.map(\.timestamp) == frames.map { (($0 + 1) * 33_333) / 1000 })
        for (frame, call) in zip(frames, received) {
            #expect(call.error == nil)
            let reference = try FixtureGoldens.holistic(
                String(format: "legacy/video/t1_sweep/holistic_plain_tracking/frame_%04d.json", frame))
            guard let result = call.result else {
                Issue.record("frame \(frame): no result")
                continue
            }
            Self.expectMatches(result, reference, "live frame \(frame)")
        }
    }

    @Test func microsecondTimestampsMustIncrease() throws {
        let landmarker = try Self.landmarker(mode: .video)
        let image = try MPImage(contentsOfFile: Fixtures.path("images/coffee.png"))
        _ = try landmarker.detect(videoFrame: image, timestampInMicroseconds: 33_333)
        #expect(throws: TaskError.nonMonotonicMicrosecondTimestamp(previous: 33_333, received: 33_333)) {
            try landmarker.detect(videoFrame: image, timestampInMicroseconds: 33_333)
        }
        // Milliseconds and microseconds share one clock: 33 ms is before 33 333 µs.
        #expect(throws: TaskError.nonMonotonicTimestamp(previous: 33, received: 33)) {
            try landmarker.detect(videoFrame: image, timestampInMilliseconds: 33)
        }
        #expect(try landmarker.detect(videoFrame: image, timestampInMilliseconds: 34).timestampInMilliseconds == 34)
        #expect(try landmarker.detect(videoFrame: image, timestampInMicroseconds: 34_001).timestampInMilliseconds == 34)
    }

    @Test func unsupportedOptionsAreRefusedByName() throws {
        func refusal(_ change: (HolisticLandmarkerOptions) -> Void) -> TaskError? {
            let options = HolisticLandmarkerOptions()
            options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("holistic_landmarker.task").path
            change(options)
            do {
                _ = try HolisticLandmarker(options: options)
                return nil
            } catch {
                return error as? TaskError
            }
        }
        #expect(refusal { $0.numPoses = 65 } == .countOutOfRange(option: "numPoses", value: 65, allowed: 1...64))
        #expect(refusal { $0.minHandLandmarksConfidence = 1.5 }
                == .confidenceOutOfRange(option: "minHandLandmarksConfidence", value: 1.5))
        guard case .unavailableOutput(let option, _) = refusal({ $0.outputFaceBlendshapes = true }) else {
            Issue.record("blendshapes not refused")
            return
        }
        #expect(option == "outputFaceBlendshapes")
    }

    /// Each person's mask is legacy Holistic's (`enable_segmentation`) to the last bit in video
    /// mode; without the option there are none.
    @Test func segmentationMasksAreLegacyHolisticsInVideoMode() throws {
        let landmarker = try Self.landmarker(mode: .video, masks: true)
        for frame in 0..<12 {
            let name = String(format: "frame_%04d", frame)
            let image = try MPImage(contentsOfFile: Fixtures.path("video/t1_sweep/\(name).png"))
            let result = try landmarker.detect(videoFrame: image, timestampInMicroseconds: Int64(frame + 1) * 33_333)
            let reference = try FixtureGoldens.holistic("legacy/video/t1_sweep/holistic_plain_tracking/\(name).json")
            #expect(result.poseSegmentationMasks.count == result.poseLandmarks.count, "\(name): one mask per person")
            guard let mask = result.poseSegmentationMasks.first, let theirs = reference.mask else {
                #expect(reference.mask == nil && result.poseSegmentationMasks.isEmpty, "\(name): mask found")
                continue
            }
            #expect(mask.width == theirs.width && mask.height == theirs.height, "\(name): mask size")
            #expect(FNV1a.hash(mask.float32Data) == theirs.float32Hash, "\(name): mask not legacy Holistic's")
        }
        let plain = try Self.landmarker(mode: .image)
        let result = try plain.detect(image: MPImage(contentsOfFile: Fixtures.path("images/bus_man.png")))
        #expect(result.poseSegmentationMasks.isEmpty && result.poseLandmarks.count == 1)
    }

    @Test func resultRoundTripsThroughJSON() throws {
        let landmarker = try Self.landmarker(mode: .image, masks: true)
        let result = try landmarker.detect(image: MPImage(contentsOfFile: Fixtures.path("images/bus_man.png")))
        #expect(result.poseSegmentationMasks.count == 1)
        let encoded = try JSONEncoder().encode(result)
        #expect(try JSONDecoder().decode(HolisticLandmarkerResult.self, from: encoded) == result)
        // A result encoded before it had masks decodes with none.
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        object["poseSegmentationMasks"] = nil
        let withoutMasks = try JSONDecoder().decode(
            HolisticLandmarkerResult.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(withoutMasks.poseSegmentationMasks.isEmpty && withoutMasks.poseLandmarks == result.poseLandmarks)
    }
}

/// Records live-stream callbacks (which arrive on the landmarker's private queue).
final class HolisticRecorder: HolisticLandmarkerLiveStreamDelegate, @unchecked Sendable {
    struct Call {
        let timestamp: Int
        let result: HolisticLandmarkerResult?
        let error: (any Error)?
    }

    private let lock = NSLock()
    private var calls: [Call] = []

    var received: [Call] { lock.withLock { calls } }

    func holisticLandmarker(
        _ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
        timestampInMilliseconds: Int, error: Error?
    ) {
        lock.withLock { calls.append(Call(timestamp: timestampInMilliseconds, result: result, error: error)) }
    }
}
