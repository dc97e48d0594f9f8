import FuzzSupport
import ImageIO

/// The pixel cap of the streams: small, so that an execution stays fast and every legitimate
/// allocation stays far below `-malloc_limit_mb`.
private let decodeLimits = DecodeLimits(maxPixelCount: 1 << 20, maxEncodedByteCount: 1 << 20)

/// `$FUZZ_WRITE_SEEDS`, `$FUZZ_REPORT`: see `FuzzerStart`.
@_cdecl("LLVMFuzzerInitialize")
public func initializeFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    FuzzerStart.initialize(name: "Y4MFuzzer", seeds: Y4MSeeds.streams)
    return 0
}

/// libFuzzer entry point: the input is a YUV4MPEG2 stream, read to its end with `Y4MReader`
/// (`Y4MDriver`); every execution goes to the Y4M reader, where InputFuzzer gives it one in
/// eight.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzY4MStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzerStart.report(Y4MDriver.readStream(UnsafeRawBufferPointer(start: data, count: size), limits: decodeLimits))
    return 0
}
