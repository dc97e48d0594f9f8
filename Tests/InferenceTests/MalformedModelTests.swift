import FlatBufferReader
import Foundation
import Inference
import TestSupport
import Testing

/// Truncated and bit-flipped copies of each real model, loaded from a file the
/// way `landmarker inspect` (reference mode) and `landmarker run` (fast mode,
/// then one invoke) load them: each must give a typed error or a model that
/// runs, within a time bound.
///
/// Truncations: empty, 4 and 8 bytes (the root offset and file identifier),
/// a few header bytes, just before, at and after the start of the first
/// weight buffer and the end of the last, the middle, and just short of the
/// end. Bit flips (seed printed, `LANDMARKER_SEED` replays): single bits in
/// the structural bytes (outside the large weight buffers), single bits
/// anywhere, and a few structural bytes overwritten at random.
@Suite(.serialized) struct MalformedModelTests {
    /// A case that takes longer than this fails; one that takes longer than
    /// `hangLimit` is taken for a hang and stops the test process with its name.
    static let timeLimit: Duration = .seconds(60)
    static let hangLimit: Duration = .seconds(300)

    static let structuralFlips = 12
    static let anywhereFlips = 4
    static let overwrites = 4

    /// The byte ranges of buffers of at least 1 KiB (the weights), sorted.
    static func weightRanges(of path: String) throws -> [Range<Int>] {
        try TFLiteModel(contentsOfFile: path).buffers.map(\.range)
            .filter { $0.count >= 1024 }
            .sorted { $0.lowerBound < $1.lowerBound }
    }

    static func truncationLengths(count: Int, weights: [Range<Int>]) -> [Int] {
        let first = weights.first!.lowerBound, last = weights.last!.upperBound
        let lengths = [
            0, 4, 8, 12, 16, 32, 64,
            first - 1, first, first + 1,
            count / 2,
            last - 1, last, last + 1,
            count - 64, count - 8, count - 1,
        ]
        return Array(Set(lengths.filter { $0 >= 0 && $0 < count })).sorted()
    }

    /// A random offset outside `weights`.
    static func structuralOffset(count: Int, weights: [Range<Int>], using generator: inout SeededGenerator) -> Int {
        while true {
            let offset = Int.random(in: 0..<count, using: &generator)
            if !weights.contains(where: { $0.contains(offset) }) { return offset }
        }
    }

    @Test(arguments: ModelGoldenTests.allModels)
    func corruptCopiesFailWithTypedErrors(model: String) throws {
        let path = try Fixtures.model(model)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let weights = try Self.weightRanges(of: path)
        var generator = SeededGenerator.announced("MalformedModelTests \(model)")

        var cases: [(name: String, bytes: [UInt8])] = []
        for length in Self.truncationLengths(count: original.count, weights: weights) {
            cases.append(("truncated to \(length) of \(original.count) bytes", Array(original.prefix(length))))
        }
        func flipped(at offset: Int) -> (String, [UInt8]) {
            var bytes = original
            let bit = Int.random(in: 0..<8, using: &generator)
            bytes[offset] ^= UInt8(1 << bit)
            return ("bit \(bit) of byte \(offset) flipped", bytes)
        }
        for _ in 0..<Self.structuralFlips {
            cases.append(flipped(at: Self.structuralOffset(count: original.count, weights: weights, using: &generator)))
        }
        for _ in 0..<Self.anywhereFlips {
            cases.append(flipped(at: Int.random(in: 0..<original.count, using: &generator)))
        }
        for _ in 0..<Self.overwrites {
            var bytes = original
            var offsets: [Int] = []
            for _ in 0..<8 {
                let offset = Self.structuralOffset(count: original.count, weights: weights, using: &generator)
                bytes[offset] = UInt8.random(in: 0...255, using: &generator)
                offsets.append(offset)
            }
            cases.append(("bytes \(offsets) overwritten", bytes))
        }

        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("MalformedModelTests-\(model)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var loaded = 0, rejected = 0
        for (index, entry) in cases.enumerated() {
            let file = folder.appendingPathComponent("\(index).tflite")
            try Data(entry.bytes).write(to: file)
            let label = "\(model): \(entry.name)"
            let watchdog = Watchdog(label: label, limit: Self.hangLimit)
            let start = ContinuousClock.now
            let outcome = Self.loadAndRun(path: file.path, label: label)
            let elapsed = ContinuousClock.now - start
            watchdog.cancel()
            #expect(elapsed < Self.timeLimit, "\(label) took \(elapsed)")
            if outcome { loaded += 1 } else { rejected += 1 }
        }
        // Truncations cannot load; flips in weight values can, and must run.
        #expect(rejected >= Self.truncationLengths(count: original.count, weights: weights).count)
        #expect(loaded > 0)
        print("MalformedModelTests \(model): \(cases.count) copies, \(loaded) loaded and ran, \(rejected) rejected")
    }

    /// Loads `path` as `inspect` does, then as `run` does and invokes once on
    /// zeros. Returns whether it loaded; records an issue for an untyped
    /// error or a disagreement between the two loads.
    static func loadAndRun(path: String, label: String) -> Bool {
        let inspected: InterpreterError?
        do {
            _ = try Interpreter(contentsOfFile: path, options: .init(mode: .reference))
            inspected = nil
        } catch let error as InterpreterError {
            #expect(!error.description.isEmpty, "\(label)")
            inspected = error
        } catch {
            Issue.record("\(label): inspect's load threw an untyped \(type(of: error)): \(error)")
            return false
        }
        do {
            let interpreter = try Interpreter(contentsOfFile: path, options: .init(threadCount: 1, mode: .fast))
            #expect(
                inspected == nil,
                "\(label): run's load succeeded where inspect's failed with \(inspected.map { "\($0)" } ?? "")")
            for index in interpreter.inputs.indices {
                try interpreter.withInputBuffer(at: index) { $0.update(repeating: 0) }
            }
            interpreter.invoke()
            for index in interpreter.outputs.indices {
                #expect(try interpreter.output(at: index).count == interpreter.outputs[index].shape.elementCount)
            }
            return true
        } catch let error as InterpreterError {
            #expect(
                inspected?.description == error.description,
                "\(label): run's load failed with \(error), inspect's with \(inspected.map { "\($0)" } ?? "nothing")")
            return false
        } catch {
            Issue.record("\(label): run's load threw an untyped \(type(of: error)): \(error)")
            return false
        }
    }
}

/// Stops the process with a message if not cancelled within `limit`: a case
/// that hangs then fails the run by name instead of stalling it.
final class Watchdog: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    init(label: String, limit: Duration) {
        let seconds = Double(limit.components.seconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            lock.lock()
            defer { lock.unlock() }
            if !cancelled {
                FileHandle.standardError.write(Data("watchdog: \(label) still running after \(limit): a hang\n".utf8))
                exit(2)
            }
        }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        lock.unlock()
    }
}
