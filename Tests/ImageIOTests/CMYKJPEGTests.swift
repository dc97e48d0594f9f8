import CTurboJPEG
import Testing
@testable import ImageIO

@Suite struct CMYKJPEGTests {
    /// A 4×4 CMYK JPEG made with TurboJPEG's own compressor.
    private func cmykJPEG() throws -> [UInt8] {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        let cmyk = [UInt8](repeating: 0x40, count: 4 * 4 * 4)
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { tjFree(output) }
        let status = cmyk.withUnsafeBufferPointer { input in
            tjCompress2(handle, input.baseAddress, 4, 16, 4, Int32(TJPF_CMYK.rawValue), &output, &size,
                        Int32(TJSAMP_444.rawValue), 90, 0)
        }
        try #require(status == 0)
        return Array(UnsafeBufferPointer(start: try #require(output), count: Int(size)))
    }

    @Test func cmykJPEGIsReportedAsUnsupported() throws {
        let bytes = try cmykJPEG()
        #expect(ImageFormat.sniff(bytes) == .jpeg)
        let error = #expect(throws: ImageIOError.self) { try ImageDecoder.decode(bytes) }
        guard case .unsupported(.jpeg, _)? = error else {
            Issue.record("expected unsupported, got \(String(describing: error))")
            return
        }
    }
}
