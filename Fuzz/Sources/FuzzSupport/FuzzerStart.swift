import Foundation

/// What the single-parser fuzzers (ManifestFuzzer, VideoProbeFuzzer, YUVFuzzer, Y4MFuzzer) do
/// at start-up (`LLVMFuzzerInitialize`), from the environment: with `$FUZZ_WRITE_SEEDS` set to
/// a folder, write the seeds there (one file per seed, `NAME.seed`) and exit; with
/// `$FUZZ_REPORT` set, print each execution's outcome (`reportsOutcomes`), to replay findings
/// and corpora.
public enum FuzzerStart {
    /// Whether each execution prints its outcome (`$FUZZ_REPORT`).
    nonisolated(unsafe) public private(set) static var reportsOutcomes = false

    /// Reads the environment; writes `seeds()` and exits when asked to.
    public static func initialize(name: String, seeds: () throws -> [(String, [UInt8])]) {
        let environment = ProcessInfo.processInfo.environment
        reportsOutcomes = environment["FUZZ_REPORT"] != nil
        guard let folder = environment["FUZZ_WRITE_SEEDS"] else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (seedName, input) in try seeds() {
                try Data(input).write(to: URL(fileURLWithPath: "\(folder)/\(seedName).seed"))
            }
        } catch {
            FileHandle.standardError.write(Data("\(name): cannot write the seeds: \(error)\n".utf8))
            exit(1)
        }
        exit(0)
    }

    /// Prints `outcome` when outcomes are reported.
    public static func report(_ outcome: Outcome) {
        if reportsOutcomes { print(outcome) }
    }
}
