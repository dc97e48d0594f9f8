import ArgumentParser

/// `--shard I/N`: shard `I` (0-based) of `N`.
struct Shard: Equatable, CustomStringConvertible {
    /// The most shards a run can be split into.
    static let maxCount = 1_000_000

    let index: Int
    let count: Int

    init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The shard `argument` names (`I/N`).
    /// - Throws: `ValidationError` saying what is wrong: not two whole numbers, `N` out of
    ///   1...`maxCount`, or `I` out of 0...N−1 (a negative `I` among them).
    static func parse(_ argument: String) throws -> Shard {
        let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ValidationError("give I/N: shard I (0-based) of N shards, such as 3/16")
        }
        guard count >= 1, count <= maxCount else {
            throw ValidationError("the number of shards N must be in 1...\(maxCount), got \(count)")
        }
        guard index >= 0, index < count else {
            throw ValidationError("the shard I must be in 0...\(count - 1) (0-based, below N = \(count)), got \(index)")
        }
        return Shard(index: index, count: count)
    }

    var description: String { "\(index)/\(count)" }
}
