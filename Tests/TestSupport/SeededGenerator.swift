import Foundation

/// SplitMix64: a small, fast, reproducible generator for randomized tests.
/// Tests print the seed they use so a failure can be replayed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator seeded from `$LANDMARKER_SEED` if set, else at random.
    /// Prints the seed with `label`.
    public static func announced(_ label: String) -> SeededGenerator {
        let seed = ProcessInfoSeed.value ?? UInt64.random(in: 0...UInt64.max)
        print("\(label): seed \(seed) (replay with LANDMARKER_SEED=\(seed))")
        return SeededGenerator(seed: seed)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}



/// The seed requested through the environment, if any.
enum ProcessInfoSeed {
    static var value: UInt64? {
        ProcessInfo.processInfo.environment["LANDMARKER_SEED"].flatMap { UInt64($0) }
    }
}
