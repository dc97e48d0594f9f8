/// What `FFmpegVideoReader` reads from a line ffmpeg writes to standard error with `-loglevel
/// level+info`: its level, and from a `showinfo` frame line the frame's size and presentation
/// time. This file needs the standard library only: the video probe fuzzer
/// (`Fuzz/Sources/VideoProbeFuzzer`) compiles it as it is.
enum FFmpegLogLine {
    /// One frame, as its `showinfo` line gives it.
    struct Frame: Sendable {
        /// The picture size; 0 where the line does not give it.
        let width: Int
        let height: Int
        /// The presentation time in seconds; NaN where the line gives none (`NOPTS`).
        let seconds: Double

        /// Bytes of the frame as packed RGB (`width × height × 3`); `nil` when that overflows.
        var rgbByteCount: Int? {
            let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
            let (bytes, overflow3) = pixels.multipliedReportingOverflow(by: 3)
            return overflow || overflow3 ? nil : bytes
        }
    }

    /// ffmpeg's levels that mean an error.
    static let errorLevels: Set<Substring> = ["error", "fatal", "panic"]
    /// Every level ffmpeg tags lines with.
    static let levels: Set<Substring> = ["quiet", "panic", "fatal", "error", "warning", "info", "verbose", "debug", "trace"]

    /// A line's level (`nil` when untagged), its context prefix (`[mov,mp4,… @ 0x…] `, or
    /// empty) and the text after both.
    static func split(_ line: String) -> (level: Substring?, context: Substring, text: Substring) {
        var context = line[line.startIndex..<line.startIndex]
        var rest = line[...]
        for _ in 0..<2 {
            guard rest.hasPrefix("["), let close = rest.firstRange(of: "] ") else { break }
            let name = rest[rest.index(after: rest.startIndex)..<close.lowerBound]
            if levels.contains(name) { return (name, context, rest[close.upperBound...]) }
            context = line[line.startIndex..<close.upperBound]
            rest = rest[close.upperBound...]
        }
        return (nil, line[line.startIndex..<line.startIndex], line[...])
    }

    /// The size (`s:WxH`) and time (`pts_time:T`, NaN when ffmpeg writes `NOPTS`) of a
    /// `showinfo` frame line (one with `n:`), or `nil` for its other lines.
    static func frame(_ line: String) -> Frame? {
        func field(_ name: String) -> Substring? {
            guard let start = line.firstRange(of: " " + name + ":")?.upperBound else { return nil }
            let rest = line[start...].drop { $0 == " " }
            return rest.prefix { $0 != " " }
        }
        guard field("n") != nil else { return nil }
        let size = field("s") ?? ""
        let x = size.firstIndex(of: "x") ?? size.endIndex
        let width = Int(size[..<x]) ?? 0
        let height = x < size.endIndex ? Int(size[size.index(after: x)...]) ?? 0 : 0
        return Frame(width: width, height: height, seconds: field("pts_time").flatMap { Double($0) } ?? .nan)
    }
}
