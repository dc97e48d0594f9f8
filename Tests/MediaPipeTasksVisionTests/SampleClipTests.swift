import Foundation
import Kernels
@testable import MediaPipeTasksVision
import TestSupport
import Testing

/// The pose and hand landmarkers in video mode against MediaPipe 0.10.21 on the synthetic clips
/// of `scripts/video_clips.py` (people or a hand cut from the sample photos, moved, zoomed,
/// turned or hidden on a grey canvas), whose frames `scripts/fetch_samples.sh` writes under
/// `samples/<clip>/`. References: `Tests/References/pose_clips.json` (Tasks PoseLandmarker, VIDEO
/// mode, numPoses 1, or 2 and 3 on the clips with two and three people) and `hands_clips.json`
/// (legacy hand tracking for the landmarks, Tasks HandLandmarker VIDEO mode, numHands 2, for the
/// counts and labels).
///
/// Every clip is held to MediaPipe's output to the references' precision: the same number of
/// poses or hands on every frame, every landmark within 0.0005 px (0.000 px printed) and every
/// world landmark coordinate within 0.0005 mm. Only the native build (fused multiply-adds)
/// computes MediaPipe's floats; the kernels are those `KernelInstructionSet.detected` picks
/// (AVX-512 where the CPU has it, AVX2 with `LANDMARKER_NO_AVX512=1` or without it).
@Suite struct SampleClipTests {
    static let poseClips = [
        "pose_still", "pose_right_1px", "pose_right_2px", "pose_right_5px", "pose_right_10px",
        "pose_left_1px", "pose_left_2px", "pose_left_5px", "pose_left_10px", "pose_zoom", "pose_turn",
        "pose_hidden_1", "pose_hidden_3", "pose_exit", "poses_two_pass", "poses_three_pass",
    ]
    static let handClips = [
        "hand_still", "hand_right_1px", "hand_right_5px", "hand_left_1px", "hand_left_5px", "hand_zoom", "hand_turn",
    ]
    /// Largest landmark distance, in pixels, and world landmark coordinate difference, in metres,
    /// that still count as equal: half the last printed digit of 0.000 px and 0.000 mm.
    static let pixelTolerance = 0.0005
    static let worldTolerance = 0.0000005

    /// How our output on a clip differs from MediaPipe's.
    struct ClipDifference {
        /// Frames where the number of poses or hands differs.
        var countMismatches: [Int] = []
        /// Frames where the hands' Tasks handedness labels differ.
        var labelMismatches: [Int] = []
        /// Frames where some landmark or world landmark coordinate is beyond the tolerances.
        var differingFrames: [Int] = []
        /// Image-plane distance of every compared landmark, in pixels.
        var distances: [Double] = []
        /// Mean landmark distance of each compared frame, in pixels, as (frame, mean).
        var frameMeans: [(frame: Int, mean: Double)] = []
        /// Largest difference of a world landmark coordinate, in metres.
        var maxWorld = 0.0

        var isExact: Bool { countMismatches.isEmpty && labelMismatches.isEmpty && differingFrames.isEmpty }
        var maxPixels: Double { distances.max() ?? 0 }
        var meanPixels: Double { distances.isEmpty ? 0 : distances.reduce(0, +) / Double(distances.count) }

        var summary: String {
            String(format: "max %.3f px, mean %.3f px over %d landmarks, world max %.5f m", maxPixels, meanPixels,
                   distances.count, maxWorld)
                + "; first differing frame \(differingFrames.first.map(String.init) ?? "none")"
                + "; count mismatches at \(countMismatches); label mismatches at \(labelMismatches)"
                + "; mean px per frame: " + frameMeans.map { String(format: "%d:%.3f", $0.frame, $0.mean) }.joined(separator: " ")
        }

        /// Adds one frame's detections, paired by nearest landmarks: ours against the reference's
        /// `[x, y, z]` normalized landmarks and `[x, y, z]` world landmarks.
        mutating func add(
            frame: Int, ours: [[NormalizedLandmark]], oursWorld: [[Landmark]],
            theirs: [[[Double]]], theirsWorld: [[[Double]]], width: Int, height: Int
        ) {
            guard ours.count == theirs.count else {
                countMismatches.append(frame)
                return
            }
            let size = SIMD2(Double(width), Double(height))
            let oursPoints = ours.map { $0.map { SIMD2(Double($0.x), Double($0.y)) * size } }
            let theirsPoints = theirs.map { $0.map { SIMD2($0[0], $0[1]) * size } }
            var differs = false
            let compared = distances.count
            defer { frameMeans.append((frame, distances[compared...].reduce(0, +) / Double(max(distances.count - compared, 1)))) }
            for (i, j) in LandmarkMatching.pairs(oursPoints, theirsPoints).enumerated() {
                for k in ours[i].indices {
                    let offset = oursPoints[i][k] - theirsPoints[j][k]
                    let distance = (offset * offset).sum().squareRoot()
                    distances.append(distance)
                    differs = differs || distance > SampleClipTests.pixelTolerance
                }
                for (k, point) in oursWorld[i].enumerated() {
                    let difference = zip([point.x, point.y, point.z], theirsWorld[j][k]).map { abs(Double($0) - $1) }.max() ?? 0
                    maxWorld = max(maxWorld, difference)
                    differs = differs || difference > SampleClipTests.worldTolerance
                }
            }
            if differs {
                differingFrames.append(frame)
            }
        }
    }

    static func json(_ file: String) throws -> [String: Any] {
        try #require(Fixtures.reference(file) as? [String: Any], "\(file) is not a JSON object")
    }

    /// The references of clip `name` in `file`: its entry, and its frames.
    static func reference(_ file: String, clip name: String) throws -> (clip: [String: Any], frames: [[String: Any]]) {
        let clips = try #require(json(file)["clips"] as? [String: Any])
        let clip = try #require(clips[name] as? [String: Any], "\(file) has no clip \(name)")
        return (clip, try #require(clip["frames"] as? [[String: Any]]))
    }

    /// Frame `index` of clip `name`, read from `samples/<name>/`, after checking that its pixels
    /// are the ones MediaPipe was given.
    static func frame(_ name: String, _ reference: [String: Any]) throws -> MPImage {
        let index = reference["index"] as! Int
        let path = try Fixtures.sample("\(name)/" + String(format: "frame_%04d.png", index))
        let image = try MPImage(contentsOfFile: path)
        let hash = FNV1a.hash(image.uprightRGBImage().pixels)
        try #require(hash == reference["rgb_fnv1a64"] as? String,
                     "\(name) frame \(index): pixels differ from those the references were made from; rerun scripts/fetch_samples.sh")
        return image
    }

    static func vectors(_ value: Any?) -> [[Double]] {
        (value as! [[NSNumber]]).map { $0.map(\.doubleValue) }
    }

    /// The references hold exactly the clips this suite lists.
    @Test func referencesCoverEveryClip() throws {
        for (file, names) in [("pose_clips.json", Self.poseClips), ("hands_clips.json", Self.handClips)] {
            let clips = try #require(Self.json(file)["clips"] as? [String: Any])
            #expect(clips.keys.sorted() == names.sorted(), "\(file)")
        }
    }

    @Test(.enabled(if: KernelInstructionSet.fusesMultiplyAdd, "needs the native build's fused multiply-adds"),
          arguments: poseClips)
    func poseClipMatchesTasks(name: String) throws {
        let (clip, frames) = try Self.reference("pose_clips.json", clip: name)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Fixtures.modelsRoot.appendingPathComponent("pose_landmarker_full.task").path
        options.baseOptions.numThreads = 2
        options.runningMode = .video
        options.numPoses = try #require(clip["num_poses"] as? Int)
        let landmarker = try PoseLandmarker(options: options)
        var difference = ClipDifference()
        for reference in frames {
            let image = try Self.frame(name, reference)
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: reference["timestamp_ms"] as! Int)
            let poses = reference["poses"] as! [[String: Any]]
            difference.add(
                frame: reference["index"] as! Int, ours: result.landmarks, oursWorld: result.worldLandmarks,
                theirs: poses.map { Self.vectors($0["landmarks"]) }, theirsWorld: poses.map { Self.vectors($0["world_landmarks"]) },
                width: image.width, height: image.height)
        }
        print("\(name): \(difference.summary)")
        #expect(difference.isExact, "\(name): \(difference.summary)")
    }

    @Test(.enabled(if: KernelInstructionSet.fusesMultiplyAdd, "needs the native build's fused multiply-adds"),
          arguments: handClips)
    func handClipMatchesLegacyTracking(name: String) throws {
        let landmarker = try HandLandmarkerVideoTests.landmarker(mode: .video, numHands: 2)
        var difference = ClipDifference()
        var legacyTasksDisagree: [Int] = []
        for reference in try Self.reference("hands_clips.json", clip: name).frames {
            let image = try Self.frame(name, reference)
            let index = reference["index"] as! Int
            let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: reference["timestamp_ms"] as! Int)
            let legacy = reference["legacy"] as! [[String: Any]]
            let tasksLabels = SampleReferenceTests.tasksLabels(reference["tasks"])
            // The legacy graph runs the palm detector on every frame with fewer than two hands
            // tracked and at times keeps a second hand there that the Tasks graph (and this
            // package) drops: the counts and labels are the Tasks graph's, and the landmarks are
            // compared where both graphs see the same number of hands.
            guard legacy.count == tasksLabels.count else {
                legacyTasksDisagree.append(index)
                if result.landmarks.count != tasksLabels.count {
                    difference.countMismatches.append(index)
                }
                continue
            }
            if result.landmarks.count == legacy.count,
               result.handedness.compactMap({ $0.first?.categoryName }).sorted() != tasksLabels {
                difference.labelMismatches.append(index)
            }
            difference.add(
                frame: index, ours: result.landmarks, oursWorld: result.worldLandmarks,
                theirs: legacy.map { Self.vectors($0["landmarks"]) }, theirsWorld: legacy.map { Self.vectors($0["world_landmarks"]) },
                width: image.width, height: image.height)
        }
        print("\(name): \(difference.summary); legacy and Tasks hand counts differ at \(legacyTasksDisagree)")
        #expect(difference.isExact, "\(name): \(difference.summary)")
    }
}
