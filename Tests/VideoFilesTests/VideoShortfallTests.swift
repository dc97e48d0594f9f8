import Testing
@testable import VideoFiles

/// `VideoShortfall.find`: when a stream that ended counts as short of its container's promise
/// (a frame count, or a duration at a rate), with `toleratedFrames` of slack, and its message.
@Suite struct VideoShortfallTests {
    /// The shortfall of `frames` frames at 25 fps from 0 ms (40 ms apart) against `probe`.
    private func shortfall(_ probe: VideoProbe, frames: Int, errors: [String] = []) -> VideoShortfall? {
        VideoShortfall.find(
            probe: probe, framesDecoded: frames, firstTimestampMs: 0, lastTimestampMs: (frames - 1) * 40,
            decoderErrors: errors)
    }

    @Test func aFrameCountAllowsTwoFramesLess() throws {
        let probe = VideoProbe(frameCount: 90, framesPerSecond: 25, durationSeconds: 3.6)
        #expect(VideoShortfall.toleratedFrames == 2)
        for whole in [88, 89, 90, 91] { #expect(shortfall(probe, frames: whole) == nil, "\(whole) of 90") }
        let short = try #require(shortfall(probe, frames: 87))
        #expect(short.framesDecoded == 87 && short.promise == .frameCount(90))
        #expect(short.description == "video ends at frame 87 of 90: cut short or corrupt")
        let withErrors = try #require(shortfall(probe, frames: 44, errors: ["stream 0, offset 0x36e4b: partial file"]))
        #expect(withErrors.description
            == "video ends at frame 44 of 90: cut short or corrupt (ffmpeg: stream 0, offset 0x36e4b: partial file)")
    }

    @Test func aFrameCountIsThePromiseWhereTheContainerStatesOne() {
        // 30 frames cover the 1.2 s, but the container counts 60: the count decides.
        #expect(shortfall(VideoProbe(frameCount: 60, framesPerSecond: 25, durationSeconds: 1.2), frames: 30) != nil)
    }

    @Test func aDurationAllowsTwoFramesOfTimeLess() throws {
        // 1.2 s at 25 fps: 30 frames, the last at 1160 ms ending at 1200 ms.
        let probe = VideoProbe(frameCount: nil, framesPerSecond: 25, durationSeconds: 1.2)
        for whole in [28, 29, 30] { #expect(shortfall(probe, frames: whole) == nil, "\(whole) frames of 1.2 s") }
        let short = try #require(shortfall(probe, frames: 27))
        guard case let .duration(seconds, decodedSeconds) = short.promise else {
            Issue.record("not a duration: \(short.promise)")
            return
        }
        #expect(seconds == 1.2 && abs(decodedSeconds - 1.08) < 1e-9)
        #expect(short.description == "video ends at frame 27, 1.08 s into its 1.20 s: cut short or corrupt")
    }

    @Test func aDurationComparesTimesNotFrameCounts() {
        // A variable rate: 3 frames at 0, 600 and 1160 ms cover 1.2 s at a stated 25 fps.
        let probe = VideoProbe(frameCount: nil, framesPerSecond: 25, durationSeconds: 1.2)
        #expect(VideoShortfall.find(
            probe: probe, framesDecoded: 3, firstTimestampMs: 0, lastTimestampMs: 1160, decoderErrors: []) == nil)
        // A stream that starts late is measured from its first frame.
        #expect(VideoShortfall.find(
            probe: probe, framesDecoded: 30, firstTimestampMs: 500, lastTimestampMs: 1660, decoderErrors: []) == nil)
    }

    @Test func nothingPromisedIsNeverShort() {
        #expect(shortfall(VideoProbe(frameCount: nil, framesPerSecond: nil, durationSeconds: 60), frames: 1) == nil)
        #expect(shortfall(VideoProbe(frameCount: nil, framesPerSecond: 25, durationSeconds: nil), frames: 1) == nil)
    }

    @Test func ffprobesTimesAreRead() {
        #expect(VideoProbe.seconds("1.200000") == 1.2)
        #expect(VideoProbe.seconds("N/A") == nil)
        #expect(VideoProbe.seconds("0.000000") == nil)
        #expect(VideoProbe.clockSeconds("00:00:01.200000000") == 1.2)
        #expect(VideoProbe.clockSeconds("01:02:03.5") == 3723.5)
        #expect(VideoProbe.clockSeconds("1.2") == nil)
    }
}
