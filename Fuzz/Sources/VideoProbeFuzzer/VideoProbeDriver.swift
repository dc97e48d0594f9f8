import FuzzSupport

/// What the video reader makes of ffprobe's and ffmpeg's text, compiled into this fuzzer from
/// VideoFiles' own source files (the parsers only: no process is started): `VideoProbe`'s
/// reading of ffprobe's JSON report, what `VideoShortfall` concludes from a probe, and
/// `FFmpegLogLine`'s reading of ffmpeg's log lines. Each must end in a value or a
/// `VideoFileError`; a trap (an overflow, a conversion of a number out of range) or a broken
/// invariant is a finding.
enum VideoProbeDriver {
    enum Kind: UInt8, CaseIterable {
        /// The bytes as ffprobe's JSON report (`VideoProbe(ffprobeReport:path:)`); a probe that
        /// parses is then held against decodes of several lengths (`VideoShortfall.find`).
        case probeReport
        /// The bytes as one line of ffmpeg's log (`FFmpegLogLine.split`, `.frame`).
        case logLine
        /// A probe's three values and a decode given as numbers (`ShortfallNumbers`), for
        /// `VideoShortfall.find` and its message directly.
        case shortfallNumbers

        func run(_ payload: [UInt8]) -> Outcome {
            switch self {
            case .probeReport: return VideoProbeDriver.probe(payload)
            case .logLine: return VideoProbeDriver.logLine(payload)
            case .shortfallNumbers: return VideoProbeDriver.shortfall(ShortfallNumbers(payload))
            }
        }
    }

    static func probe(_ report: [UInt8]) -> Outcome {
        let probe: VideoProbe
        do {
            probe = try VideoProbe(ffprobeReport: report, path: "fuzz.mp4")
        } catch {
            FuzzCheck.require(error.description.hasPrefix("fuzz.mp4: not a readable video"), "message: \(error)")
            return FuzzCheck.refused(error)
        }
        FuzzCheck.require(probe.frameCount.map { $0 > 0 } ?? true, "frame count \(String(describing: probe.frameCount))")
        for value in [probe.framesPerSecond, probe.durationSeconds] {
            FuzzCheck.require(value.map { $0.isFinite && $0 > 0 } ?? true, "probe value \(String(describing: value))")
        }
        // Decodes that end at several points, 40 ms apart, as the reader would report them.
        for frames in [1, 2, (probe.frameCount ?? 10) / 2, probe.frameCount ?? 10] where frames >= 1 && frames < 1_000_000 {
            _ = shortfall(ShortfallNumbers(probe: probe, framesDecoded: frames, firstTimestampMs: 0,
                                           lastTimestampMs: 40 * (frames - 1)))
        }
        return .parsed("\(probe)")
    }

    static func logLine(_ bytes: [UInt8]) -> Outcome {
        let line = String(decoding: bytes, as: UTF8.self)
        let (level, context, text) = FFmpegLogLine.split(line)
        if let level { FuzzCheck.require(FFmpegLogLine.levels.contains(level), "level '\(level)'") }
        FuzzCheck.require(line.hasSuffix(String(text)) && line.hasPrefix(String(context)), "split of '\(line)'")
        guard let frame = FFmpegLogLine.frame(line) else { return .parsed("no frame") }
        let (pixels, overflow) = frame.width.multipliedReportingOverflow(by: frame.height)
        let (bytesNeeded, overflow3) = pixels.multipliedReportingOverflow(by: 3)
        FuzzCheck.require(frame.rgbByteCount == (overflow || overflow3 ? nil : bytesNeeded),
                          "\(frame.width)x\(frame.height): \(String(describing: frame.rgbByteCount)) bytes")
        return .parsed("frame \(frame.width)x\(frame.height) at \(frame.seconds) s")
    }

    static func shortfall(_ numbers: ShortfallNumbers) -> Outcome {
        guard let shortfall = VideoShortfall.find(
            probe: numbers.probe, framesDecoded: numbers.framesDecoded, firstTimestampMs: numbers.firstTimestampMs,
            lastTimestampMs: numbers.lastTimestampMs, decoderErrors: ["fuzz"])
        else { return .parsed("whole") }
        FuzzCheck.require(shortfall.framesDecoded == numbers.framesDecoded, "frames decoded")
        if case .frameCount(let promised) = shortfall.promise {
            FuzzCheck.require(numbers.framesDecoded < promised - VideoShortfall.toleratedFrames, "\(shortfall)")
        }
        let message = shortfall.description
        FuzzCheck.require(message.hasPrefix("video ends at frame \(numbers.framesDecoded)")
                          && message.hasSuffix(": cut short or corrupt (ffmpeg: fuzz)"), message)
        return .parsed(message)
    }
}

/// What `VideoShortfall.find` is given, read from the input as the reader could give it: a
/// probe whose values are what `VideoProbe` accepts (a positive frame count, a positive finite
/// rate and duration, each where a flag bit says so), at least one frame decoded, and
/// timestamps within the reader's ±10⁹ s, the last after the first.
///
///     flags (1 byte) ++ frame count (Int64 LE) ++ rate (Float64 LE) ++ duration (Float64 LE)
///       ++ first timestamp (Int64 LE) ++ span (UInt64 LE, shifted right a bit)
///       ++ frames decoded − 1 (UInt32 LE)
///
/// Flag bits 0, 1, 2 give the probe its frame count, rate and duration. The last timestamp is
/// the first plus the span. Bytes past the end of the input read as zero; values out of range
/// are folded into it.
struct ShortfallNumbers {
    let probe: VideoProbe
    let framesDecoded: Int
    let firstTimestampMs: Int
    let lastTimestampMs: Int

    init(probe: VideoProbe, framesDecoded: Int, firstTimestampMs: Int, lastTimestampMs: Int) {
        self.probe = probe
        self.framesDecoded = framesDecoded
        self.firstTimestampMs = firstTimestampMs
        self.lastTimestampMs = lastTimestampMs
    }

    init(_ bytes: [UInt8]) {
        var cursor = 0
        func next(_ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<count where cursor + index < bytes.count {
                value |= UInt64(bytes[cursor + index]) << (8 * UInt64(index))
            }
            cursor += count
            return value
        }
        /// `value` when positive and finite, else nil.
        func positive(_ value: Double) -> Double? { value.isFinite && value > 0 ? value : nil }
        let flags = next(1)
        let frameCount = Int(truncatingIfNeeded: next(8))
        let rate = Double(bitPattern: next(8))
        let duration = Double(bitPattern: next(8))
        let limitMs = 1_000_000_000_000  // the reader's ±10⁹ s, in milliseconds
        let first = Int(truncatingIfNeeded: next(8)) % limitMs
        let span = Int(truncatingIfNeeded: next(8) >> 1) % limitMs
        probe = VideoProbe(
            frameCount: flags & 1 != 0 && frameCount > 0 ? frameCount : nil,
            framesPerSecond: flags & 2 != 0 ? positive(rate) : nil,
            durationSeconds: flags & 4 != 0 ? positive(duration) : nil)
        framesDecoded = Int(next(4) % 10_000_000) + 1
        firstTimestampMs = first
        lastTimestampMs = min(first + span, limitMs - 1)
    }
}
