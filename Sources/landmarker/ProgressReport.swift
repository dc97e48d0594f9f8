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
/// quiet. The summary line at the end is printed unless quiet.
final class ProgressReport {
    private let total: Int?
    private let quiet: Bool
    private let onTerminal: Bool
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastReport: ContinuousClock.Instant
    private(set) var framesDone = 0

    init(total: Int?, quiet: Bool) {
        self.total = total
        self.quiet = quiet
        onTerminal = isatty(STDERR_FILENO) != 0
        start = clock.now
        lastReport = start
    }

    /// Counts one frame; reports when the interval has passed.
    func frameDone() {
        framesDone += 1
        guard !quiet else { return }
        let now = clock.now
        guard now - lastReport >= (onTerminal ? .milliseconds(250) : .seconds(5)) else { return }
        lastReport = now
        let line = status(at: now)
        if onTerminal {
            writeStandardError("\r\u{1B}[K\(line)")
        } else {
            printError("landmarker: \(line)")
        }
    }

    /// Ends the in-place line and prints the summary.
    func finish() {
        guard !quiet else { return }
        if onTerminal && lastReport != start { writeStandardError("\r\u{1B}[K") }
        let seconds = Self.seconds(clock.now - start)
        printError(formatted("landmarker: done, %ld frames in %.1f s (%.1f frames/s)",
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
