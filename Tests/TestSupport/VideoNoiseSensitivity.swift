import Foundation

/// How far MediaPipe's own pose VIDEO-mode output moves when a single frame of a clip gets
/// imperceptible noise (a seeded ±1 grey level on every channel of every pixel of that frame),
/// measured against its output on the clean clip by `scripts/make_references.py` and stored in
/// `Tests/References/pose_video_noise.json`.
///
/// Tracking feeds each frame's landmarks into the next frame's crop, so a difference of one
/// float rounding anywhere grows from frame to frame; these runs give the scale on which
/// video-mode output is reproducible at all, by MediaPipe itself.
public struct VideoNoiseSensitivity: Sendable {
    /// One noisy run: which frame got the noise and how far the clip's landmarks moved.
    public struct Run: Sendable {
        public let noisyFrame: Int
        /// Mean landmark distance from the clean output over the clip, pixels.
        public let meanDistance: Double
        /// Frames where the noisy run found a different number of poses.
        public let countMismatches: [Int]
    }

    public let clip: String
    public let runs: [Run]

    /// The largest of the runs' mean distances, pixels.
    public var largestMeanDistance: Double { runs.map(\.meanDistance).max() ?? 0 }

    /// The median of the runs' mean distances, pixels.
    public var medianMeanDistance: Double {
        let means = runs.map(\.meanDistance).sorted()
        let middle = means.count / 2
        return means.count % 2 == 1 ? means[middle] : (means[middle - 1] + means[middle]) / 2
    }

    /// The runs of `clip` in `pose_video_noise.json`; throws if the file or the clip is missing.
    public static func pose(clip: String) throws -> VideoNoiseSensitivity {
        let file = "pose_video_noise.json"
        guard let root = try Fixtures.reference(file) as? [String: Any],
              let clips = root["clips"] as? [String: Any] else {
            throw Fixtures.Missing(path: file, hint: "not the expected JSON object")
        }
        guard let entry = clips[clip] as? [String: Any], let runs = entry["runs"] as? [[String: Any]], !runs.isEmpty else {
            throw Fixtures.Missing(
                path: "\(file): clips.\(clip)",
                hint: "regenerate it with scripts/make_references.sh")
        }
        let parsed = runs.compactMap { run -> Run? in
            guard let frame = run["noisy_frame"] as? Int, let mean = run["mean_px"] as? NSNumber,
                  let mismatches = run["count_mismatches"] as? [Int] else { return nil }
            return Run(noisyFrame: frame, meanDistance: mean.doubleValue, countMismatches: mismatches)
        }
        guard parsed.count == runs.count else {
            throw Fixtures.Missing(path: "\(file): clips.\(clip).runs", hint: "a run lacks noisy_frame, mean_px or count_mismatches")
        }
        return VideoNoiseSensitivity(clip: clip, runs: parsed)
    }

    /// One line for the test log: each run's frame and mean distance, and the median.
    public var summary: String {
        let runs = runs.map { String(format: "frame %d: %.2f px", $0.noisyFrame, $0.meanDistance) }.joined(separator: ", ")
        return String(format: "MediaPipe against itself with ±1 noise on one frame of %@: %@ (median %.2f px, largest %.2f px)",
                      clip, runs, medianMeanDistance, largestMeanDistance)
    }
}
