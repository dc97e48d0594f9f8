import FuzzSupport

/// `$FUZZ_WRITE_SEEDS`, `$FUZZ_REPORT`: see `FuzzerStart`.
@_cdecl("LLVMFuzzerInitialize")
public func initializeFuzzer(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    FuzzerStart.initialize(name: "VideoProbeFuzzer", seeds: VideoProbeSeeds.all)
    return 0
}

/// libFuzzer entry point: the first byte picks what is parsed (`VideoProbeDriver.Kind`), the
/// rest is its input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVideoProbe(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    guard let first = input.first else { return 0 }
    let kind = VideoProbeDriver.Kind(rawValue: first % UInt8(VideoProbeDriver.Kind.allCases.count))!
    FuzzerStart.report(kind.run(Array(input.dropFirst())))
    return 0
}
