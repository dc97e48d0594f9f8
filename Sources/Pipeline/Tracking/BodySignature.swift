#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A person's body proportions from the pose's world landmarks (docs/PIPELINE.md, "Track
/// ids"), which ``PersonIdentities`` compares to tell people apart.
///
/// Six ratios, each a bone's length over the torso's (the mean of the left and right
/// shoulder–hip distances, landmarks 11–23 and 12–24): shoulder width (11–12), hip width
/// (23–24), upper arm (11–13, 12–14), forearm (13–15, 14–16), thigh (23–25, 24–26) and shin
/// (25–27, 26–28); a paired bone is the mean of the sides seen. A bone or torso side counts only
/// when both its landmarks have a visibility above ``minimumVisibility``; a ratio without any
/// bone seen, or a frame without a torso side seen, is unknown. Averaged over frames, each ratio
/// on its own: the running mean of the frames that knew it, the count capped at
/// ``averagedFrames`` (older frames then weigh less and less).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
struct BodySignature: Sendable, Equatable {
    static let minimumVisibility: Float = 0.5
    static let averagedFrames = 20
    /// The torso sides, world landmark index pairs.
    static let torso = [(11, 23), (12, 24)]
    /// The bones of each ratio, world landmark index pairs.
    static let bones: [[(Int, Int)]] = [
        [(11, 12)], [(23, 24)], [(11, 13), (12, 14)], [(13, 15), (14, 16)], [(23, 25), (24, 26)], [(25, 27), (26, 28)],
    ]

    /// Each ratio, dimensionless; meaningful where its count is above 0.
    private(set) var ratios: [Double]
    /// How many frames each ratio averages, at most ``averagedFrames``; 0 where unknown.
    private(set) var counts: [Int]

    /// The proportions of one frame.
    /// - Parameter worldLandmarks: the pose's 33 world landmarks, metres (fewer: all unknown).
    init(worldLandmarks: [RawWorldLandmark]) {
        ratios = Array(repeating: 0, count: Self.bones.count)
        counts = Array(repeating: 0, count: Self.bones.count)
        guard worldLandmarks.count >= 33, let torso = Self.meanLength(Self.torso, worldLandmarks), torso > 0 else { return }
        for (kind, pairs) in Self.bones.enumerated() {
            guard let bone = Self.meanLength(pairs, worldLandmarks) else { continue }
            ratios[kind] = bone / torso
            counts[kind] = 1
        }
    }

    /// Given ratios, each known where its count is above 0 (for tests).
    init(ratios: [Double], counts: [Int]) {
        precondition(ratios.count == Self.bones.count && counts.count == Self.bones.count)
        self.ratios = ratios
        self.counts = counts.map { min(max($0, 0), Self.averagedFrames) }
    }

    /// Adds one frame's known ratios to the running means.
    mutating func add(_ frame: BodySignature) {
        for kind in ratios.indices where frame.counts[kind] > 0 {
            counts[kind] = min(counts[kind] + 1, Self.averagedFrames)
            ratios[kind] += (frame.ratios[kind] - ratios[kind]) / Double(counts[kind])
        }
    }

    /// The mean absolute log-ratio of the ratios both know; nil when they share none.
    func distance(to other: BodySignature) -> Double? {
        var total = 0.0, shared = 0
        for kind in ratios.indices where counts[kind] > 0 && other.counts[kind] > 0 && ratios[kind] > 0 && other.ratios[kind] > 0 {
            total += abs(log(ratios[kind] / other.ratios[kind]))
            shared += 1
        }
        return shared == 0 ? nil : total / Double(shared)
    }

    /// The mean length of the pairs whose landmarks are both visible, metres; nil when none is.
    private static func meanLength(_ pairs: [(Int, Int)], _ landmarks: [RawWorldLandmark]) -> Double? {
        var total = 0.0, seen = 0
        for (a, b) in pairs where landmarks[a].visibility > minimumVisibility && landmarks[b].visibility > minimumVisibility {
            let dx = Double(landmarks[a].x - landmarks[b].x)
            let dy = Double(landmarks[a].y - landmarks[b].y)
            let dz = Double(landmarks[a].z - landmarks[b].z)
            total += (dx * dx + dy * dy + dz * dz).squareRoot()
            seen += 1
        }
        return seen == 0 ? nil : total / Double(seen)
    }
}
