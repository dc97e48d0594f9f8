import ArgumentParser
import Foundation
import Testing
@testable import landmarker

/// `landmarker extract`'s refusals before any work: a manifest that cannot be read or is
/// refused, and a `--shard` out of range, are usage errors (exit status 64) with a message
/// saying what is wrong.
@Suite struct ExtractOptionTests {
    /// The usage error `arguments` (after `landmarker`) give, and its message; fails the test
    /// when they parse and run.
    private func usageError(_ arguments: [String]) -> String {
        do {
            var command = try Landmarker.parseAsRoot(arguments)
            try command.run()
            Issue.record("\(arguments) ran")
            return ""
        } catch {
            #expect(Landmarker.exitCode(for: error) == .validationFailure, "\(arguments): \(error)")
            return Landmarker.message(for: error)
        }
    }

    @Test func aNegativeShardIsRefusedSayingWhy() throws {
        for (shard, reason) in [
            ("-1/2", "the shard I must be in 0...1 (0-based, below N = 2), got -1"),
            ("2/2", "the shard I must be in 0...1 (0-based, below N = 2), got 2"),
            ("0/0", "the number of shards N must be in 1...1000000, got 0"),
            ("1/-3", "the number of shards N must be in 1...1000000, got -3"),
            ("-1", "give I/N: shard I (0-based) of N shards, such as 3/16"),
            ("1/2/3", "give I/N: shard I (0-based) of N shards, such as 3/16"),
        ] {
            let message = usageError(["extract", "pose", "--manifest", "m.txt", "--out", "out", "--shard", shard])
            #expect(message == "The value '\(shard)' is invalid for '--shard <shard>': \(reason)", "\(message)")
        }
        #expect(try ExtractCommand.DatasetOptions.parse(["--manifest", "m", "--out", "o", "--shard", "3/16"]).shard
                == Shard(index: 3, count: 16))
    }

    @Test func aManifestThatCannotBeReadIsAUsageErrorBeforeTheModelIsLookedFor() throws {
        let folder = try TemporaryFolder("manifest-refusals")
        defer { folder.remove() }
        try folder.createFolder(folder["a folder"])
        try Data([0x61, 0x2E, 0x6D, 0x70, 0x34, 0x0A, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: folder["latin1.txt"]))
        try FileManager.default.createSymbolicLink(atPath: folder["loop.txt"], withDestinationPath: folder["loop.txt"])
        try folder.write("# nothing\n", to: "empty.txt")
        try folder.write("a/clip.mp4\nb/clip.mkv\n", to: "twice.txt")
        for (manifest, expected) in [
            ("missing.txt", "the manifest \(folder["missing.txt"]): cannot be read: No such file or directory"),
            ("a folder", "\(folder["a folder"]): the manifest is a folder, not a text file"),
            ("loop.txt", "the manifest \(folder["loop.txt"]): cannot be read: Too many levels of symbolic links"),
            ("latin1.txt", "\(folder["latin1.txt"]): the manifest is not UTF-8 text"),
            ("empty.txt", "\(folder["empty.txt"]): the manifest lists no video"),
            ("twice.txt", "\(folder["twice.txt"]): 'a/clip.mp4' and 'b/clip.mkv' would both write clip.ndjson; rename one"),
        ] {
            // A model that does not exist: the manifest is refused first.
            let message = usageError([
                "extract", "pose", "--manifest", folder[manifest], "--out", folder["out"], "--model", folder["no-model.task"],
            ])
            #expect(message == expected)
        }
        #expect(folder.files(in: "out").isEmpty && !FileManager.default.fileExists(atPath: folder["out"]))

        // A manifest that reads is past the refusals: the missing model fails the run (status 1).
        try folder.write("clip.mp4\n", to: "good.txt")
        do {
            var command = try Landmarker.parseAsRoot([
                "extract", "pose", "--manifest", folder["good.txt"], "--out", folder["out"], "--model", folder["no-model.task"],
            ])
            try command.run()
            Issue.record("a missing model ran")
        } catch {
            #expect(error is CommandFailure, "\(error)")
        }
    }
}
