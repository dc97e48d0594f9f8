/// YUV4MPEG2 streams for the fuzzers' starting corpora: every chroma layout `Y4MReader`
/// accepts (`420jpeg`, `420`, `420mpeg2`, `444`, `mono`, none), frame-line and header
/// extensions, odd sizes, and frames that cross the reader's 64 KiB buffer.
public enum Y4MSeeds {
    /// The streams, named.
    public static func streams() -> [(String, [UInt8])] {
        /// A stream header line, then `frames` frames of `planeBytes` bytes.
        func stream(_ header: String, frames: Int, planeBytes: Int, frameLine: String = "FRAME") -> [UInt8] {
            Array("YUV4MPEG2 \(header)\n".utf8)
                + (0..<frames).flatMap { Array("\(frameLine)\n".utf8) + SeedBytes.pattern(planeBytes, step: 13 + $0) }
        }
        return [
            ("420jpeg", stream("W4 H2 F25:1 Ip A1:1 C420jpeg", frames: 2, planeBytes: 8 + 2 * 2)),
            ("420-odd-size", stream("W5 H3 F30000:1001 It A0:0 C420 XYSCSS=420JPEG", frames: 2, planeBytes: 15 + 2 * 6)),
            ("444", stream("W3 H3 F0:0 C444", frames: 1, planeBytes: 27, frameLine: "FRAME Ixyz")),
            ("mono", stream("W4 H4 Cmono", frames: 3, planeBytes: 16)),
            ("no-colour-space", stream("H2 W2", frames: 1, planeBytes: 4 + 2)),
            // Three 160x120 frames (28,800 bytes each) cross the reader's 64 KiB buffer.
            ("420-three-buffers", stream("W160 H120 F30:1 C420mpeg2", frames: 3, planeBytes: 160 * 120 + 2 * 80 * 60)),
        ]
    }
}
