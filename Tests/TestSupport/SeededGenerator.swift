import Foundation
import ImageIO

/// SplitMix64: the one small, fast, reproducible generator of the randomized tests.
///
/// Every randomized test takes its seed from ``seed(_:file:)``, which reads `LANDMARKER_SEED`
/// (the one variable that replays a run) and prints the seed, so a failure can be rerun with
/// `LANDMARKER_SEED=<seed> swift test --filter <test>`. Tests with a fixed seed construct the
/// generator with ``init(seed:)`` directly.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// The seed of a randomized test: `$LANDMARKER_SEED` if set, else a fresh random one.
    /// Prints it with `label` (by default the calling test's file and function).
    public static func seed(_ label: String = #function, file: String = #fileID) -> UInt64 {
        let seed = ProcessInfo.processInfo.environment["LANDMARKER_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("\(file) \(label): seed \(seed) (replay with LANDMARKER_SEED=\(seed))")
        return seed
    }

    /// A generator seeded by ``seed(_:file:)``.
    public static func announced(_ label: String = #function, file: String = #fileID) -> SeededGenerator {
        SeededGenerator(seed: seed(label, file: file))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` floats uniform in `-1...1`.
    public mutating func floats(_ count: Int) -> [Float] {
        (0..<count).map { _ in Float.random(in: -1...1, using: &self) }
    }
}

extension SeededGenerator {
    /// A `width` × `height` RGB image of uniformly random bytes.
    public mutating func image(width: Int, height: Int) -> RGBImage {
        let pixels = (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &self) }
        return try! RGBImage(width: width, height: height, pixels: pixels)
    }
}
