/// Removes a PNG's color-management chunks so that its samples are decoded as stored.
///
/// libpng's simplified API converts a file whose `gAMA`, `cHRM`, `sRGB` or `iCCP` chunk
/// describes anything but sRGB into sRGB while decoding to 8 bits. OpenCV, Pillow and
/// MediaPipe's own image loading ignore these chunks and hand the stored samples to the
/// models; so do we, or the same file would give other pixels, and other landmarks, than
/// MediaPipe. (ffmpeg, for one, writes `gAMA` 0.51 and `cHRM` into every PNG frame it
/// extracts from a video.)
enum PNGColorChunks {
    /// Chunk types that describe the color space or transfer curve of the samples.
    static let ignoredTypes: Set<String> = ["gAMA", "cHRM", "sRGB", "iCCP", "cICP", "mDCV", "cLLI"]

    private static let signatureLength = 8
    /// Length (4), type (4) and CRC (4) around each chunk's data.
    private static let chunkOverhead = 12

    /// `bytes` without the chunks in ``ignoredTypes``. Every other chunk is copied unchanged
    /// (their CRCs stay valid). Bytes that do not parse as a chunk sequence (a truncated or
    /// corrupt file) are copied as they are from that point on, for libpng to report.
    static func stripped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count > signatureLength else { return bytes }
        var kept: [Range<Int>] = []
        var keptStart = 0
        var offset = signatureLength
        while bytes.count - offset >= chunkOverhead {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - offset - chunkOverhead else { break }
            let end = offset + chunkOverhead + length
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if ignoredTypes.contains(type) {
                kept.append(keptStart..<offset)
                keptStart = end
            }
            if type == "IEND" { break }
            offset = end
        }
        guard !kept.isEmpty else { return bytes }
        kept.append(keptStart..<bytes.count)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for range in kept { result.append(contentsOf: bytes[range]) }
        return result
    }
}
