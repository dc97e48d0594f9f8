import Foundation
import Testing
@testable import VideoFiles

/// What the video reader reads from ffprobe's reports and ffmpeg's log lines, without running
/// either (`VideoProbe(ffprobeReport:path:)`, `FFmpegLogLine`), and the messages it makes of
/// what a container states, however absurd (inputs the video probe fuzzer found, `Fuzz/`).
@Suite struct FFprobeReportTests {
    private func probe(_ json: String) throws(VideoFileError) -> VideoProbe {
        try VideoProbe(ffprobeReport: Array(json.utf8), path: "clip.mkv")
    }

    @Test func aMatroskaReportGivesItsDurationTagLessTheStartTime() throws {
        let report = try probe("""
            {"programs": [], "streams": [{"width": 64, "height": 48, "avg_frame_rate": "30000/1001", \
            "start_time": "0.200000", "tags": {"DURATION": "00:00:01.400000000"}}], \
            "format": {"nb_streams": 1, "duration": "1.400000"}}
            """)
        #expect(report.frameCount == nil && report.framesPerSecond == 30000.0 / 1001)
        #expect(abs((report.durationSeconds ?? 0) - 1.2) < 1e-9)
    }

    @Test func reportsWithoutAPictureAreRefused() {
        for json in ["", "{}", #"{"streams": []}"#, #"{"streams": [{"width": 0, "height": 48}]}"#, "[1, 2]"] {
            #expect(throws: VideoFileError.self) { try probe(json) }
        }
    }

    /// A container can state any duration; a file whose video stream says it lasts 10^300 s
    /// and holds one frame is short, and its message says so instead of trapping on the
    /// conversion of hundredths of a second to an `Int` (the video probe fuzzer's first finding).
    @Test func anAbsurdDurationGivesAMessage() throws {
        let report = try probe(#"{"streams": [{"width": 64, "height": 48, "avg_frame_rate": "25/1", "duration": "1e300"}]}"#)
        #expect(report.durationSeconds == 1e300)
        let shortfall = try #require(VideoShortfall.find(
            probe: report, framesDecoded: 1, firstTimestampMs: 0, lastTimestampMs: 0, decoderErrors: []))
        #expect(shortfall.description == "video ends at frame 1, 0.04 s into its 1e+300 s: cut short or corrupt")
        // A rate of 2^-60 frames a second: one frame covers 2^60 s.
        let huge = VideoProbe(frameCount: nil, framesPerSecond: 0x1p-60, durationSeconds: 1.7e308)
        let longFrame = try #require(VideoShortfall.find(
            probe: huge, framesDecoded: 1, firstTimestampMs: 0, lastTimestampMs: 0, decoderErrors: []))
        #expect(longFrame.description
                == "video ends at frame 1, 1.152921504606847e+18 s into its 1.7e+308 s: cut short or corrupt")
    }

    /// A rate whose quotient is not a positive finite number (`30000/1e3000`: an infinite
    /// denominator; `1e-300/1e300`: underflow) is unknown, not 0 frames a second (the video
    /// probe fuzzer's finding of 2026-12-05).
    @Test func aRateThatUnderflowsIsUnknown() throws {
        for rate in ["30000/10011.03E3000", "1e-300/1e300", "1/inf", "inf/1", "0/0", "-25/1", "25/-1"] {
            let report = try probe(#"{"streams": [{"width": 64, "height": 48, "avg_frame_rate": "\#(rate)"}]}"#)
            #expect(report.framesPerSecond == nil, "\(rate) gave \(String(describing: report.framesPerSecond))")
        }
        #expect(VideoProbe.rate("30000/1001") == 30000.0 / 1001)
    }

    /// A Matroska duration tag less a start time of -1.7e308 s exceeds the largest Double: no
    /// duration, not an infinite one.
    @Test func aDurationPastTheLargestDoubleIsUnknown() throws {
        let report = try probe("""
            {"streams": [{"width": 64, "height": 48, "start_time": "-1.7e308", \
            "tags": {"DURATION": "1e304:00:00.0"}}]}
            """)
        #expect(report.durationSeconds == nil, "\(String(describing: report.durationSeconds))")
    }

    @Test func showinfoLinesGiveSizeAndTime() throws {
        let line = "[Parsed_showinfo_0 @ 0x55fb0638c980] [info] n:  12 pts:  15360 pts_time:1.2     pos:     9001 "
            + "fmt:rgb24 sar:0/1 s:1920x1080 i:P iskey:0 type:P"
        let (level, context, text) = FFmpegLogLine.split(line)
        #expect(level == "info" && context == "[Parsed_showinfo_0 @ 0x55fb0638c980] " && text.hasPrefix("n:  12"))
        let frame = try #require(FFmpegLogLine.frame(line))
        #expect(frame.width == 1920 && frame.height == 1080 && frame.seconds == 1.2 && frame.rgbByteCount == 1920 * 1080 * 3)
        #expect(FFmpegLogLine.frame("[Parsed_showinfo_0 @ 0x1] [info] config in time_base: 1/12800") == nil)
        #expect(try #require(FFmpegLogLine.frame(" n:3 pts_time:NOPTS s:64x48")).seconds.isNaN)
    }

    /// A frame line whose size overflows `width × height × 3` gives no byte count, which the
    /// reader refuses as a size change, instead of trapping on the product.
    @Test func anOverflowingFrameSizeHasNoByteCount() throws {
        let frame = try #require(FFmpegLogLine.frame(" n:1 pts_time:0.04 s:9223372036854775807x2"))
        #expect(frame.width == Int.max && frame.height == 2 && frame.rgbByteCount == nil)
        #expect(try #require(FFmpegLogLine.frame(" n:1 s:3074457345618258603x1")).rgbByteCount == nil)
    }
}
