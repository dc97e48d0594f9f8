import TestSupport
import Testing
@testable import ImageIO

/// Randomized truncations and byte mutations of small valid files: decoding must either succeed
/// with a consistent image or throw an `ImageIOError`, never trap. The seed is printed on failure.
@Suite struct MutationTests {
    private static func mutate(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var mutated = bytes
        switch Int.random(in: 0..<4, using: &generator) {
        case 0:   // truncate
            mutated = Array(mutated.prefix(Int.random(in: 0..<mutated.count, using: &generator)))
        case 1:   // flip a few bytes
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
        case 2:   // duplicate or drop a slice
            let start = Int.random(in: 0..<mutated.count, using: &generator)
            let end = Int.random(in: start...min(mutated.count, start + 64), using: &generator)
            if Bool.random(using: &generator) {
                mutated.insert(contentsOf: mutated[start..<end], at: start)
            } else {
                mutated.removeSubrange(start..<end)
            }
        default:  // overwrite header-area bytes, where the sizes live
            let limit = min(mutated.count, 200)
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                mutated[Int.random(in: 0..<limit, using: &generator)] = [0x00, 0xFF, 0x7F, 0x80].randomElement(using: &generator)!
            }
        }
        return mutated
    }

    private static func checkNeverTraps(original: [UInt8], iterations: Int) {
        let seed = SeededGenerator.seed()
        var generator = SeededGenerator(seed: seed)
        var failures = 0
        for iteration in 0..<iterations {
            let bytes = mutate(original, using: &generator)
            do {
                let decoded = try ImageDecoder.decode(bytes, limits: DecodeLimits(maxPixelCount: 1 << 20))
                let consistent = decoded.image.width > 0 && decoded.image.height > 0
                    && decoded.image.pixels.count == decoded.image.width * decoded.image.height * 3
                if !consistent {
                    failures += 1
                    Issue.record("seed \(seed), iteration \(iteration): inconsistent image \(decoded.image.width)x\(decoded.image.height)")
                }
            } catch {
                // Typed throws: every failure is an ImageIOError with a description.
                if error.description.isEmpty {
                    failures += 1
                    Issue.record("seed \(seed), iteration \(iteration): empty error description")
                }
            }
            if failures > 5 { break }
        }
    }

    @Test func mutatedPNGsNeverTrap() throws {
        var generator = SeededGenerator(seed: 11)
        let pixels = (0..<(24 * 16 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let png = try PNGCodec.encode(pixels: pixels, width: 24, height: 16, layout: .rgba8)
        Self.checkNeverTraps(original: png, iterations: 3_000)
    }

    @Test func mutatedJPEGsNeverTrap() throws {
        let jpeg = try JPEGCodec.encode(try gradientImage(width: 24, height: 16), quality: 75)
        let withExif = ExifBuilder.inserting(ExifBuilder.exifSegment(orientation: 6, littleEndian: true), intoJPEG: jpeg)
        Self.checkNeverTraps(original: withExif, iterations: 3_000)
    }
}
