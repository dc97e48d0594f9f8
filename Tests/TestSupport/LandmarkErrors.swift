import Foundation

/// Differences between our landmarks and a reference's, and the statistics the golden and
/// reference tests judge them by.
public struct LandmarkErrors: Sendable {
    /// Image-plane distances of matched landmarks, pixels.
    public var distances: [Double] = []
    /// 3-D distances of matched world landmarks, metres.
    public var worldErrors: [Double] = []
    /// `|ours − reference|` of scores: visibility, presence, handedness.
    public var scoreErrors: [Double] = []

    public init() {}

    /// Mean image-plane distance, pixels (0 when nothing was compared).
    public var mean: Double { distances.reduce(0, +) / Double(max(distances.count, 1)) }
    /// 95th percentile of the image-plane distances (nearest rank below), pixels.
    public var p95: Double { distances.isEmpty ? 0 : distances.sorted()[Int(Double(distances.count - 1) * 0.95)] }
    /// Largest image-plane distance, pixels.
    public var maxDistance: Double { distances.max() ?? 0 }
    /// Mean world-landmark distance, metres.
    public var worldMean: Double { worldErrors.reduce(0, +) / Double(max(worldErrors.count, 1)) }
    /// Largest score difference.
    public var maxScoreError: Double { scoreErrors.max() ?? 0 }

    /// Adds the distances between corresponding image points (pixels).
    public mutating func addPoints(_ ours: [SIMD2<Double>], _ theirs: [SIMD2<Double>]) {
        precondition(ours.count == theirs.count, "landmark counts differ")
        distances += zip(ours, theirs).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }
    }

    /// Adds the distances between corresponding world landmarks (metres).
    public mutating func addWorld(_ ours: [SIMD3<Double>], _ theirs: [SIMD3<Double>]) {
        precondition(ours.count == theirs.count, "world landmark counts differ")
        worldErrors += zip(ours, theirs).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }
    }

    /// Adds `|ours − theirs|` for each pair of scores.
    public mutating func addScores(_ ours: [Double], _ theirs: [Double]) {
        precondition(ours.count == theirs.count, "score counts differ")
        scoreErrors += zip(ours, theirs).map { abs($0 - $1) }
    }

    /// One line for the test log.
    public func summary(_ label: String) -> String {
        String(format: "%@: mean %.3f px, p95 %.3f px, max %.3f px, world %.3f mm, scores %.4f",
               label, mean, p95, maxDistance, worldMean * 1000, maxScoreError)
    }
}

/// Pairs our detections with a reference's when both found the same number.
public enum LandmarkMatching {
    /// `pairs[i]` is the reference detection matched with `ours[i]`: the assignment with the
    /// least summed mean distance between corresponding points, tried over every permutation
    /// (counts are small: at most a handful of poses or hands).
    public static func pairs(_ ours: [[SIMD2<Double>]], _ theirs: [[SIMD2<Double>]]) -> [Int] {
        precondition(ours.count == theirs.count, "detection counts differ")
        func cost(_ i: Int, _ j: Int) -> Double {
            zip(ours[i], theirs[j]).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }.reduce(0, +)
                / Double(max(ours[i].count, 1))
        }
        var best: (cost: Double, pairs: [Int]) = (.infinity, [])
        func search(_ i: Int, _ used: Set<Int>, _ pairs: [Int], _ total: Double) {
            if i == ours.count {
                if total < best.cost { best = (total, pairs) }
                return
            }
            for j in theirs.indices where !used.contains(j) {
                search(i + 1, used.union([j]), pairs + [j], total + cost(i, j))
            }
        }
        search(0, [], [], 0)
        return best.pairs
    }
}

/// Segmentation masks compared as sets of pixels above 0.5.
public enum MaskComparison {
    /// Intersection over union of two equally long pixel sets (1 when both are empty).
    public static func iou(_ ours: [Bool], _ theirs: [Bool]) -> Double {
        precondition(ours.count == theirs.count, "mask sizes differ")
        var intersection = 0, union = 0
        for (a, b) in zip(ours, theirs) {
            if a && b { intersection += 1 }
            if a || b { union += 1 }
        }
        return union == 0 ? 1 : Double(intersection) / Double(union)
    }

    /// A reference mask stored as run lengths over `count` row-major pixels, alternating
    /// below/above 0.5 and starting below. Nil if the runs do not add up to `count`
    /// or one is negative.
    public static func pixels(fromRuns runs: [Int], count: Int) -> [Bool]? {
        var pixels: [Bool] = []
        pixels.reserveCapacity(count)
        for (k, run) in runs.enumerated() {
            guard run >= 0, run <= count - pixels.count else { return nil }
            pixels += repeatElement(k % 2 == 1, count: run)
        }
        return pixels.count == count ? pixels : nil
    }
}
