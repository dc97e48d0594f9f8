import FuzzSupport
import Foundation

/// Whether each execution prints its kind and outcome (`$INPUT_FUZZER_REPORT`).
nonisolated(unsafe) private var reportsOutcomes = false

/// With `$INPUT_FUZZER_REPORT` set, each execution prints its outcome (to
/// replay findings and corpora). With `$INPUT_FUZZER_WRITE_SEEDS` set to a folder, writes the seed inputs
/// there (one file per seed, see `Seeds`) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func initializeFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    reportsOutcomes = environment["INPUT_FUZZER_REPORT"] != nil
    guard let folder = environment["INPUT_FUZZER_WRITE_SEEDS"] else { return 0 }
    do {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for seed in try Seeds.all() {
            try Data(seed.input).write(to: URL(fileURLWithPath: "\(folder)/\(seed.name).seed"))
        }
    } catch {
        FileHandle.standardError.write(Data("InputFuzzer: cannot write the seeds: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

/// libFuzzer entry point: the first byte picks a parser of untrusted input
/// bytes (`InputKind`), the rest is what that parser reads. Every parser must
/// end in a success or a typed error; a trap, an out-of-bounds access, a hang,
/// an allocation past the fuzzer's limits or a broken invariant (checked with
/// `FuzzCheck.require`) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInputBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let (kind, payload) = InputKind.split(input) else { return 0 }
    let outcome = kind.run(payload)
    if reportsOutcomes { print("\(kind)\t\(outcome)") }
    return 0
}
