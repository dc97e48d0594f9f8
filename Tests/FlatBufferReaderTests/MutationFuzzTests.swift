import Foundation
import TestSupport
import Testing
import FlatBufferReader

@Suite("Random mutations")
struct MutationFuzzTests {
    /// `LANDMARKER_SEED` replays a run; `FLATBUFFER_FUZZ_ITERATIONS` changes its length.
    private static func configuration(
        defaultIterations: Int, _ label: String = #function
    ) -> (seed: UInt64, iterations: Int) {
        let seed = SeededGenerator.seed(label)
        let iterations = ProcessInfo.processInfo.environment["FLATBUFFER_FUZZ_ITERATIONS"].flatMap { Int($0) }
            ?? defaultIterations
        return (seed, iterations)
    }

    @Test("mutated hand_landmark_lite either loads or throws ModelError")
    func realModel() throws {
        guard let original = TestPaths.modelBytes("hand_landmark_lite") else { return }
        // Most mutations go to the flatbuffer structure (everything outside the weights), where
        // they exercise the verifier; the rest land anywhere.
        let weights = try TFLiteModel(bytes: ModelBytes(bytes: original)).buffers.map(\.range).filter { !$0.isEmpty }
        var isWeight = [Bool](repeating: false, count: original.count)
        for range in weights { for index in range { isWeight[index] = true } }
        let structure = original.indices.filter { !isWeight[$0] }
        let (seed, iterations) = Self.configuration(defaultIterations: 3000)
        mutate(original, "hand_landmark_lite", targets: structure, seed: seed, iterations: iterations)
    }

    @Test("mutated built model (every byte is structure) either loads or throws ModelError")
    func builtModel() {
        let original = TestModel.valid.encode().bytes
        let (seed, iterations) = Self.configuration(defaultIterations: 5000)
        mutate(original, "built model", targets: Array(original.indices), seed: seed, iterations: iterations)
    }

    /// Applies `iterations` rounds of 1-4 random edits (bit flips, random bytes, interesting
    /// 32-bit words) to `original`, 90 % of them at `targets`, loading each result.
    private func mutate(_ original: [UInt8], _ name: String, targets: [Int], seed: UInt64, iterations: Int) {
        print("mutation fuzz of \(name): seed \(seed), \(iterations) iterations (replay with LANDMARKER_SEED=\(seed))")
        var random = SeededGenerator(seed: seed)
        let interesting: [UInt32] = [0, 1, 2, 3, 4, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF]
        var work = original
        var loaded = 0
        var rejected = 0
        for iteration in 0..<iterations {
            var saved: [(Int, UInt8)] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0..<10, using: &random) < 9
                    ? targets.randomElement(using: &random)!
                    : Int.random(in: 0..<work.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    saved.append((position, work[position]))
                    work[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                case 1:
                    saved.append((position, work[position]))
                    work[position] = UInt8.random(in: 0...255, using: &random)
                default:
                    let word = position & ~3
                    guard word + 4 <= work.count else { continue }
                    let value = interesting.randomElement(using: &random)!
                    for byte in 0..<4 {
                        saved.append((word + byte, work[word + byte]))
                        work[word + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(byte)))
                    }
                }
            }
            do {
                _ = try TFLiteModel(bytes: ModelBytes(bytes: work))
                loaded += 1
            } catch is ModelError {
                rejected += 1
            } catch {
                Issue.record("\(name), seed \(seed), iteration \(iteration): unexpected error \(type(of: error)): \(error)")
            }
            for (position, value) in saved.reversed() { work[position] = value }
        }
        print("mutation fuzz of \(name): seed \(seed): \(loaded) loaded, \(rejected) rejected")
        #expect(work == original)
        #expect(loaded + rejected == iterations)
        // Structural mutations must be caught often; a verifier that accepted everything would fail here.
        #expect(rejected > iterations / 4, "\(name), seed \(seed)")
    }
}
