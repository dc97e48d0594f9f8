import Inference

/// libFuzzer entry point: the bytes of a would-be model are loaded,
/// verified and prepared. Any outcome but a typed error or a loaded model
/// (a trap, an overflow, an out-of-bounds access) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelBytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? Interpreter(bytes: bytes, options: .init(mode: .reference))
    return 0
}
