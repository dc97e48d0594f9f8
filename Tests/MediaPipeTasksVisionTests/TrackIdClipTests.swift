import Foundation
import Inference
@testable import Pipeline
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// Track ids and per-track smoothing on the synthetic clips of `scripts/video_clips.py`
/// (docs/PIPELINE.md, "Track ids" and "Per-track smoothing"). Who is where is known by
/// construction: each actor is pasted at a known x on each frame, a later actor over an earlier
/// one. The frames are read as `SampleClipTests` reads them, after checking their pixels.
@Suite struct TrackIdClipTests {
    /// One subject of a clip: its left edge on frame i and its width, pixels of the 640 × 360
    /// canvas (the subjects are 300 px tall at widths bus_man 117, t1_man 176, astronaut 234).
    struct ClipActor: Sendable {
        let name: String
        let width: Int
        let left: @Sendable (Int) -> Int

        func box(_ frame: Int) -> ClosedRange<Double> {
            Double(left(frame))...Double(left(frame) + width)
        }
    }

    static let canvasWidth = 640
    static let t1Man = ClipActor(name: "t1_man", width: 176) { TrackIdClipTests.canvasWidth - 20 - 176 - 12 * $0 }
    static let busMan = ClipActor(name: "bus_man", width: 117) { 20 + 12 * $0 }
    static let astronaut = ClipActor(name: "astronaut", width: 234) { _ in (TrackIdClipTests.canvasWidth - 234) / 2 }
    /// The actors of the crossing clips in paste order (a later one covers an earlier one).
    static let crossingActors = ["poses_two_pass": [t1Man, busMan], "poses_three_pass": [astronaut, t1Man, busMan]]

    static func poseLandmarker(numPoses: Int, smoothsEachTrack: Bool = false) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = .video
        options.numPoses = numPoses
        options.shouldSmoothEachTrack = smoothsEachTrack
        return try PoseLandmarker(options: options)
    }

    /// Clip `name`'s frames with their timestamps, in order.
    static func frames(_ name: String, references file: String) throws -> [(image: MPImage, timestamp: Int)] {
        try SampleClipTests.reference(file, clip: name).frames.map { reference in
            (try SampleClipTests.frame(name, reference), reference["timestamp_ms"] as! Int)
        }
    }

    /// The results of `landmarker` on every frame of pose clip `name`, each checked to carry one
    /// track id per pose, none twice.
    static func run(_ landmarker: PoseLandmarker, clip name: String) throws -> [PoseLandmarkerResult] {
        try frames(name, references: "pose_clips.json").map { image, timestamp in
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
            let ids = try #require(result.trackIds, "\(name) at \(timestamp) ms: no track ids in video mode")
            #expect(ids.count == result.landmarks.count && Set(ids).count == ids.count, "\(name) at \(timestamp) ms: \(ids)")
            return result
        }
    }

    /// The actor a pose is, on frame `frame`: the one whose box holds the pose's torso centre
    /// (mean x of the shoulders and hips, landmarks 11, 12, 23, 24), when exactly one box holds
    /// it and no later actor covers any of that one; otherwise nil (who it is is not certain).
    static func actor(of pose: [NormalizedLandmark], frame: Int, actors: [ClipActor]) -> String? {
        let torso = [11, 12, 23, 24].map { Double(pose[$0].x) * Double(canvasWidth) }.reduce(0, +) / 4
        let holding = actors.indices.filter { actors[$0].box(frame).contains(torso) }
        guard holding.count == 1, let index = holding.first else { return nil }
        let covered = actors[(index + 1)...].contains { $0.box(frame).overlaps(actors[index].box(frame)) }
        return covered ? nil : actors[index].name
    }

    /// Two people cross (in front of a third on the three-person clip). While both are in full
    /// view (frames 0–12 and 26–29, before and after their boxes overlap), wherever a pose is
    /// certainly one person (the person's whole body in view, its torso in no one else's box),
    /// its id is never one another person had, and a person keeps their id, across the
    /// crossing too (docs/PIPELINE.md, "Person ids"): zero identity switches. While they
    /// overlap, a ROI track can slide from one to the other (on the three-person clip the
    /// passer in front's slides onto the one behind); the person ids do not go with it.
    @Test(arguments: [("poses_two_pass", 2), ("poses_three_pass", 3)])
    func crossingPeopleKeepTheirIdsWhileBothAreVisible(clip: String, numPoses: Int) throws {
        let actors = try #require(Self.crossingActors[clip])
        let results = try Self.run(Self.poseLandmarker(numPoses: numPoses), clip: clip)
        var counter = IdentitySwitchCounter()
        for (frame, result) in results.enumerated() {
            guard !Self.t1Man.box(frame).overlaps(Self.busMan.box(frame)) else { continue }
            for (pose, id) in zip(result.landmarks, result.trackIds ?? []) {
                guard let person = Self.actor(of: pose, frame: frame, actors: actors) else { continue }
                counter.observe(actor: person, id: id, frame: frame)
            }
        }
        let identified = counter.identified
        print("\(clip): frames identified \(identified); ids per frame \(results.map { $0.trackIds ?? [] })")
        #expect(counter.switches.isEmpty, "\(counter.switches)")
        // Each passer is certainly identified on enough frames for the check above to mean
        // something: on the two-person clip, on most of the 17 frames where both are in full
        // view; on the three-person clip, only while a passer's torso is outside the
        // astronaut's box (frames 2–10 at most, as neither passer is found on frames 0–1).
        let minimum = clip == "poses_two_pass" ? 15 : 6
        for passer in [Self.t1Man.name, Self.busMan.name] {
            #expect(identified[passer, default: 0] >= minimum, "\(passer) identified on \(identified[passer, default: 0]) frames")
        }
    }

    /// One person who walks out of the picture and back, or is hidden for one or three frames:
    /// found again within a second, where they left, they keep their person id (docs/PIPELINE.md,
    /// "Person ids"), though a new ROI track starts. With `numPoses` 2 the detector runs on every
    /// frame and each detection continues the track it overlaps.
    @Test(arguments: [("pose_exit", 1), ("pose_exit", 2), ("pose_hidden_1", 1), ("pose_hidden_3", 1), ("pose_hidden_3", 2)])
    func aPersonFoundAgainKeepsTheirId(clip: String, numPoses: Int) throws {
        let results = try Self.run(Self.poseLandmarker(numPoses: numPoses), clip: clip)
        // Runs of consecutive frames with the person: the ids seen in each.
        var runs: [Set<Int>] = []
        var inRun = false
        for result in results {
            #expect(result.landmarks.count <= 1, "one person, \(result.landmarks.count) poses")
            guard let ids = result.trackIds, !ids.isEmpty else {
                inRun = false
                continue
            }
            if !inRun { runs.append([]) }
            runs[runs.count - 1].formUnion(ids)
            inRun = true
        }
        print("\(clip), numPoses \(numPoses): ids per frame \(results.map { $0.trackIds ?? [] })")
        #expect(runs.count == 2, "the person is found, lost and found again: \(runs)")
        #expect(runs.allSatisfy { $0 == [0] }, "id 0 throughout: \(runs)")
    }

    /// `numPoses` 1: per-track smoothing gives MediaPipe's smoothing bit for bit while the person
    /// is followed. After a gap both restart the image landmarks' filters, so the coordinates stay
    /// equal; MediaPipe's visibility filters carry over from before the gap, where a new track's
    /// start afresh.
    @Test(arguments: ["pose_right_5px", "pose_hidden_3"])
    func perTrackSmoothingOfOnePersonIsSinglePoseSmoothing(clip: String) throws {
        let single = try Self.run(Self.poseLandmarker(numPoses: 1), clip: clip)
        let perTrack = try Self.run(Self.poseLandmarker(numPoses: 1, smoothsEachTrack: true), clip: clip)
        // The first ROI track lasts until the first frame without the person.
        let firstTrackEnd = single.firstIndex { $0.landmarks.isEmpty } ?? single.count
        for (frame, (a, b)) in zip(single, perTrack).enumerated() {
            #expect(a.trackIds == b.trackIds, "frame \(frame)")
            if frame < firstTrackEnd {
                #expect(a == b, "frame \(frame): the first track is smoothed differently")
            } else if let pose = a.landmarks.first, let other = b.landmarks.first {
                #expect(pose.map { [$0.x, $0.y, $0.z] } == other.map { [$0.x, $0.y, $0.z] }, "frame \(frame)")
            }
        }
        if clip == "pose_hidden_3" {
            // Frame 13 is the first after the gap: MediaPipe low-passes its visibilities with the
            // values from before the gap; a new track passes its first ones through.
            #expect(single[13].landmarks.first?.map(\.visibility) != perTrack[13].landmarks.first?.map(\.visibility))
        }
    }

    /// A pose graph in video mode, for the per-track smoothing checks.
    static func streamGraph(numPoses: Int, smoothsEachTrack: Bool) throws -> PoseGraph {
        try PoseGraph(
            detector: Interpreter(
                contentsOfFile: Fixtures.model("pose_detection"), options: .init(threadCount: 2, usesSparseKernels: false)),
            landmarkModel: Interpreter(contentsOfFile: Fixtures.model("pose_landmark_full"), options: .init(threadCount: 2)),
            configuration: .init(
                numPoses: numPoses, minDetectionConfidence: 0.5, minPresenceConfidence: 0.5,
                minTrackingConfidence: 0.5, outputSegmentationMasks: false, streamMode: true,
                smoothsEachTrack: smoothsEachTrack))
    }

    /// `numPoses` above 1 with per-track smoothing: each track's poses are the unsmoothed poses
    /// of that track passed through one `PoseSmoother` of their own, the smoothing `numPoses` 1
    /// uses (held to MediaPipe by `SampleClipTests`), bit for bit; one person gets one track.
    @Test(arguments: [("pose_right_5px", 3), ("poses_two_pass", 2)])
    func eachTrackIsSmoothedAsASinglePose(clip: String, numPoses: Int) throws {
        let smoothed = try Self.streamGraph(numPoses: numPoses, smoothsEachTrack: true)
        let unsmoothed = try Self.streamGraph(numPoses: numPoses, smoothsEachTrack: false)
        var smoothers: [Int: PoseSmoother] = [:]
        var changed = 0
        for (frame, (image, timestamp)) in try Self.frames(clip, references: "pose_clips.json").enumerated() {
            let rgb = image.uprightRGBImage()
            let microseconds = Int64(timestamp) * 1000
            let ours = try smoothed.process(rgb, timestampMicroseconds: microseconds)
            let raw = try unsmoothed.process(rgb, timestampMicroseconds: microseconds)
            try #require(ours.map(\.trackId) == raw.map(\.trackId), "frame \(frame)")
            var next: [Int: PoseSmoother] = [:]
            for (pose, rawPose) in zip(ours, raw) {
                let id = try #require(pose.trackId)
                var smoother = smoothers[id] ?? PoseSmoother()
                let expected = try smoother.smooth(
                    landmarks: rawPose.landmarks, worldLandmarks: rawPose.worldLandmarks,
                    objectScaleRect: rawPose.trackingROI, imageWidth: rgb.width, imageHeight: rgb.height,
                    timestampMicroseconds: microseconds)
                next[id] = smoother
                #expect(pose.landmarks == expected.landmarks && pose.worldLandmarks == expected.worldLandmarks,
                        "frame \(frame), track \(id)")
                if pose.landmarks != rawPose.landmarks { changed += 1 }
            }
            smoothers = next
            if clip == "pose_right_5px" {
                #expect(ours.map(\.trackId) == [0], "frame \(frame): one person, one track")
            }
        }
        #expect(changed > 0, "smoothing changed no pose")
    }

    /// A hand followed through a clip keeps the id it got on the first frame; any other hand
    /// found on the way gets another.
    @Test(arguments: SampleClipTests.handClips)
    func aTrackedHandKeepsItsId(clip: String) throws {
        let landmarker = try HandLandmarkerVideoTests.landmarker(mode: .video, numHands: 2)
        for (frame, (image, timestamp)) in try Self.frames(clip, references: "hands_clips.json").enumerated() {
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
            let ids = try #require(result.trackIds, "\(clip) frame \(frame): no track ids in video mode")
            #expect(ids.count == result.landmarks.count && Set(ids).count == ids.count, "\(clip) frame \(frame): \(ids)")
            #expect(ids.first == 0, "\(clip) frame \(frame): the hand of frame 0 is not first, or has another id: \(ids)")
        }
    }

    @Test func imageModeHasNoTrackIds() throws {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        let pose = try PoseLandmarker(options: options).detect(image: MPImage(contentsOfFile: Fixtures.sample("bus.jpg")))
        #expect(!pose.landmarks.isEmpty && pose.trackIds == nil)
        let hand = try HandLandmarkerVideoTests.landmarker(mode: .image, numHands: 2)
            .detect(image: MPImage(contentsOfFile: Fixtures.sample("t1.jpg")))
        #expect(!hand.landmarks.isEmpty && hand.trackIds == nil)
    }
}
