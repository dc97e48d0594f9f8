import FuzzSupport

/// `$FUZZ_WRITE_SEEDS`, `$FUZZ_REPORT`: see `FuzzerStart`.
@_cdecl("LLVMFuzzerInitialize")
public func initializeFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    FuzzerStart.initialize(name: "ManifestFuzzer", seeds: ManifestSeeds.all)
    return 0
}

/// libFuzzer entry point: the input is the bytes of a `landmarker extract` manifest file
/// (`ManifestDriver`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzerStart.report(ManifestDriver.parse(Array(UnsafeBufferPointer(start: data, count: size))))
    return 0
}
