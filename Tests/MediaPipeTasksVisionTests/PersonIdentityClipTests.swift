import Foundation
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// Person ids on the identity clips of `scripts/video_clips.py` (docs/PIPELINE.md, "Track ids"):
/// two people who cross, one walking behind or in front of the other, and one hidden for five
/// frames while the other stands still. Who is where is known by construction
/// (`samples/<clip>/actors.json`); the pose and holistic landmarkers, video mode, `numPoses` 2,
/// must give each person one id for the whole clip, and the holistic landmarker each person's
/// face and hands on that person's own body. Each clip is fed at the 25 frames a second it was
/// made for and at 30 (as the CLI feeds a frame folder by default): the people then seem to move
/// faster, and the identity gates are met at other times.
@Suite struct PersonIdentityClipTests {
    /// `samples/<clip>/actors.json`: each actor in paste order (a later one covers an earlier one).
    struct Clip: Decodable {
        struct Actor: Decodable {
            let subject: String
            /// Pixels of the canvas.
            let width: Int
            let height: Int
            /// The actor's left edge on each frame, pixels; nil where it is not pasted.
            let xs: [Int?]
        }

        let canvas: [Int]
        let actors: [Actor]

        var frameCount: Int { actors.first?.xs.count ?? 0 }

        /// The actor a pose is on `frame`: the one whose pasted box alone holds the pose's torso
        /// centre (the mean of landmarks 11, 12, 23, 24); nil when none or several do (who it is
        /// is not certain).
        func actor(of pose: [NormalizedLandmark], frame: Int) -> String? {
            let x = [11, 12, 23, 24].map { Double(pose[$0].x) }.reduce(0, +) / 4 * Double(canvas[0])
            let y = [11, 12, 23, 24].map { Double(pose[$0].y) }.reduce(0, +) / 4 * Double(canvas[1])
            let holding = actors.filter { actor in
                guard let left = actor.xs[frame] else { return false }
                let top = (canvas[1] - actor.height) / 2
                return Double(left) <= x && x <= Double(left + actor.width) && Double(top) <= y && y <= Double(top + actor.height)
            }
            return holding.count == 1 ? holding[0].subject : nil
        }
    }

    static let clips = ["poses_cross_behind", "poses_cross_front", "poses_one_hidden"]
    /// Frames a second the clips are fed at.
    static let rates = [25, 30]

    /// Frame `index`'s timestamp at `rate` frames a second, microseconds.
    static func timestamp(_ index: Int, rate: Int) -> Int64 {
        Int64(index) * 1_000_000 / Int64(rate)
    }

    static func clip(_ name: String) throws -> Clip {
        let path = try Fixtures.sample("\(name)/actors.json")
        return try JSONDecoder().decode(Clip.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func frame(_ name: String, _ index: Int) throws -> MPImage {
        try MPImage(contentsOfFile: Fixtures.sample("\(name)/" + String(format: "frame_%04d.png", index)))
    }

    /// Each actor is identified on enough frames for a zero count to mean something: at least
    /// half the frames where it is pasted.
    static func expectEveryoneIdentified(_ counter: IdentitySwitchCounter, _ clip: Clip, _ name: String) {
        for actor in clip.actors {
            let pasted = actor.xs.count { $0 != nil }
            let seen = counter.identified[actor.subject, default: 0]
            #expect(seen * 2 >= pasted, "\(name): \(actor.subject) identified on \(seen) of \(pasted) frames")
        }
    }

    @Test(arguments: clips, rates)
    func poseLandmarkerKeepsEachPersonsId(clip name: String, rate: Int) throws {
        let clip = try Self.clip(name)
        let label = "\(name) at \(rate) fps"
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = .video
        options.numPoses = 2
        let landmarker = try PoseLandmarker(options: options)
        var counter = IdentitySwitchCounter()
        var log: [String] = []
        for frame in 0..<clip.frameCount {
            let result = try landmarker.detect(
                videoFrame: Self.frame(name, frame), timestampInMilliseconds: Int(Self.timestamp(frame, rate: rate) / 1000))
            let ids = try #require(result.trackIds)
            #expect(ids.count == result.landmarks.count && Set(ids).count == ids.count, "\(label) frame \(frame): \(ids)")
            var entry: [String] = []
            for (pose, id) in zip(result.landmarks, ids) {
                let actor = clip.actor(of: pose, frame: frame)
                entry.append("\(id):\(actor ?? "?")")
                if let actor { counter.observe(actor: actor, id: id, frame: frame) }
            }
            log.append("\(frame) [\(entry.joined(separator: " "))]")
        }
        print("pose \(label): \(log.joined(separator: ", "))")
        #expect(counter.switches.isEmpty, "\(label): \(counter.switches)")
        Self.expectEveryoneIdentified(counter, clip, label)
    }

    /// The holistic landmarker: the same ids, and each person's face and hands with that
    /// person's pose: the face landmarks' centroid within a torso length of the pose's nose,
    /// each hand's wrist within half a torso length of the pose's wrist on that side, and both in
    /// the person's own pasted box.
    @Test(arguments: clips, rates)
    func holisticLandmarkerKeepsEachPersonsIdAndParts(clip name: String, rate: Int) throws {
        let clip = try Self.clip(name)
        let label = "\(name) at \(rate) fps"
        let options = HolisticLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("holistic_landmarker.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = .video
        options.numPoses = 2
        let landmarker = try HolisticLandmarker(options: options)
        var counter = IdentitySwitchCounter()
        var log: [String] = []
        var partsChecked = 0
        let size = (Double(clip.canvas[0]), Double(clip.canvas[1]))
        func pixels(_ point: NormalizedLandmark) -> SIMD2<Double> {
            SIMD2(Double(point.x) * size.0, Double(point.y) * size.1)
        }
        func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            ((a - b) * (a - b)).sum().squareRoot()
        }
        for frame in 0..<clip.frameCount {
            let result = try landmarker.detect(
                videoFrame: Self.frame(name, frame), timestampInMicroseconds: Self.timestamp(frame, rate: rate))
            let ids = try #require(result.trackIds)
            #expect(ids.count == result.poseLandmarks.count && Set(ids).count == ids.count, "\(label) frame \(frame): \(ids)")
            var entry: [String] = []
            for (person, id) in ids.enumerated() {
                let pose = result.poseLandmarks[person]
                let actor = clip.actor(of: pose, frame: frame)
                entry.append("\(id):\(actor ?? "?")")
                if let actor { counter.observe(actor: actor, id: id, frame: frame) }
                let shoulders = (pixels(pose[11]) + pixels(pose[12])) / 2
                let hips = (pixels(pose[23]) + pixels(pose[24])) / 2
                let torso = distance(shoulders, hips)
                let box = clip.actors.first { $0.subject == actor }.flatMap { actor in
                    actor.xs[frame].map { Double($0)...Double($0 + actor.width) }
                }
                let face = result.faceLandmarks[person]
                if !face.isEmpty {
                    let centroid = face.map(pixels).reduce(.zero, +) / Double(face.count)
                    #expect(distance(centroid, pixels(pose[0])) <= torso, "\(label) frame \(frame): id \(id)'s face is off their head")
                    if let box { #expect(box.contains(centroid.x), "\(label) frame \(frame): id \(id)'s face is not \(actor!)'s") }
                    partsChecked += 1
                }
                for (hand, wrist) in [(result.leftHandLandmarks[person], 15), (result.rightHandLandmarks[person], 16)] where !hand.isEmpty {
                    #expect(distance(pixels(hand[0]), pixels(pose[wrist])) <= torso / 2,
                            "\(label) frame \(frame): id \(id)'s hand is off their wrist \(wrist)")
                    if let box { #expect(box.contains(pixels(hand[0]).x), "\(label) frame \(frame): id \(id)'s hand is not \(actor!)'s") }
                    partsChecked += 1
                }
            }
            log.append("\(frame) [\(entry.joined(separator: " "))]")
        }
        print("holistic \(label): \(log.joined(separator: ", "))")
        #expect(counter.switches.isEmpty, "\(label): \(counter.switches)")
        Self.expectEveryoneIdentified(counter, clip, label)
        #expect(partsChecked >= clip.frameCount, "\(label): only \(partsChecked) parts found")
    }
}
