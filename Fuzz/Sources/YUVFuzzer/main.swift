import FuzzSupport

/// `$FUZZ_WRITE_SEEDS`, `$FUZZ_REPORT`: see `FuzzerStart`.
@_cdecl("LLVMFuzzerInitialize")
public func initializeFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    FuzzerStart.initialize(name: "YUVFuzzer", seeds: YUVSeeds.all)
    return 0
}

/// libFuzzer entry point: a YUV frame's geometry and planes (`YUVFrameInput`) through
/// `YUVConversion` (`YUVDriver`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYUVFrame(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzerStart.report(YUVDriver.convert(YUVFrameInput(Array(UnsafeBufferPointer(start: data, count: size)))))
    return 0
}
