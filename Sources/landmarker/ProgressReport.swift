#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The progress of a video run on standard error: frames done (of the total, where the
/// container states it), frames per second and the time left. On a terminal one line updated
/// in place, at most four times a second; otherwise a line every five seconds; nothing when
/// quiet.
///
/// Without a label (`landmarker pose|hand|face VIDEO`) the lines start with `landmarker:`, the
/// terminal's line is the status alone, and a summary line ends the run unless quiet. With one
/// (`extract`'s `extract: [2/5] clip.mp4`) every report starts with the label, and the end only
/// clears the terminal's line: the caller reports the video's end itself.
final class ProgressReport {
    /// Where reports go and how often.
    struct Output {
        /// Whether it is a terminal (one line rewritten in place) rather than a log (lines).
        let onTerminal: Bool
        /// The least time from the start or one report to the next.
        let interval: Duration
        /// Writes text as it is (line ends included).
        let write: (String) -> Void

        /// Standard error: every 250 ms on a terminal, every five seconds otherwise.
        static var standardError: Output {
            let onTerminal = isatty(STDERR_FILENO) != 0
            return Output(onTerminal: onTerminal, interval: onTerminal ? .milliseconds(250) : .seconds(5),
                          write: writeStandardError)
        }
    }

    private let total: Int?
    private let quiet: Bool
    private let label: String?
    private let output: Output
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastReport: ContinuousClock.Instant
    private(set) var framesDone = 0
    private var finished = false

    init(total: Int?, quiet: Bool, label: String? = nil, output: Output = .standardError) {
        self.total = total
        self.quiet = quiet
        self.label = label
        self.output = output
        start = clock.now
        lastReport = start
    }

    /// Counts one frame; reports when the interval has passed.
    func frameDone() {
        framesDone += 1
        guard !quiet else { return }
        let now = clock.now
        guard now - lastReport >= output.interval else { return }
        lastReport = now
        let line = status(at: now)
        if output.onTerminal {
            output.write("\r\u{1B}[K" + (label.map { $0 + ": " } ?? "") + line)
        } else {
            output.write((label ?? "landmarker") + ": " + line + "\n")
        }
    }

    /// Ends the in-place line and, without a label, prints the summary; later calls do nothing
    /// (a caller may end the report on every path, the frame loop having ended it already).
    func finish() {
        guard !quiet, !finished else { return }
        finished = true
        if output.onTerminal && lastReport != start { output.write("\r\u{1B}[K") }
        guard label == nil else { return }
        let seconds = Self.seconds(clock.now - start)
        output.write(formatted("landmarker: done, %ld frames in %.1f s (%.1f frames/s)\n",
                               framesDone, seconds, seconds > 0 ? Double(framesDone) / seconds : 0))
    }

    /// "frame 120/300 (40%), 24.8 frames/s, 0:07 left", or without the total where unknown.
    func status(at now: ContinuousClock.Instant) -> String {
        let seconds = Self.seconds(now - start)
        let rate = seconds > 0 ? Double(framesDone) / seconds : 0
        var line = "frame \(framesDone)"
        if let total, total > 0 {
            line += "/\(total) (\(min(100, framesDone * 100 / total))%)"
        }
        line += formatted(", %.1f frames/s", rate)
        if let total, rate > 0, total > framesDone {
            let left = Int((Double(total - framesDone) / rate).rounded())
            line += formatted(", %ld:%02ld left", left / 60, left % 60)
        }
        return line
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
