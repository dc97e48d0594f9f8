import MediaPipeTasksVision
import SystemInterface

/// Stream-mode timestamps for a ``PoseDetector``: milliseconds on a monotonic clock since the
/// detector was made, forced strictly increasing (a call in the same millisecond as the
/// previous one gets the previous timestamp + 1 ms), as the landmarker's video mode requires.
///
/// ``withNextTimestamp(_:)`` holds a lock while it runs its body, so frames reach the
/// landmarker in timestamp order even when several threads call at once.
///
/// `@unchecked Sendable`: `lastTimestamp` is mutable, and every access to it holds `lock` (an
/// `ThreadLock`, whose hand-over the thread sanitizer sees).
final class StreamTimestamps: @unchecked Sendable {
    /// Reads the current time in milliseconds; must never decrease.
    typealias Clock = @Sendable () -> Int

    private let clock: Clock
    private let lock = ThreadLock()
    /// Guarded by `lock`.
    private var lastTimestamp: Int?

    init(clock: @escaping Clock) {
        self.clock = clock
    }

    /// Milliseconds elapsed on `ContinuousClock` since this call.
    static func monotonicMilliseconds() -> Clock {
        let origin = ContinuousClock.now
        return {
            let elapsed = origin.duration(to: .now)
            return Int((elapsed / .milliseconds(1)).rounded(.down))
        }
    }

    /// Runs `body` with the next timestamp, under the lock.
    func withNextTimestamp<Result>(_ body: (Int) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        var timestamp = clock()
        if let lastTimestamp, timestamp <= lastTimestamp { timestamp = lastTimestamp + 1 }
        lastTimestamp = timestamp
        return try body(timestamp)
    }
}
