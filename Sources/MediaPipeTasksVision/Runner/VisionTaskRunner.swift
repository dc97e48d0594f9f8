import Dispatch
import SystemInterface

/// The running-mode engine behind a landmarker: it owns the running mode, checks that each call
/// fits it, enforces timestamp order, serialises work and, in live-stream mode, runs frames
/// asynchronously with flow limiting.
///
/// A landmarker wraps one runner and supplies a `Processor`, the per-frame pipeline, which
/// receives the frame, its timestamp in milliseconds, and whether the mode is a stream mode
/// (video or live stream: track across frames) or image mode (every call stands alone); or a
/// `MicrosecondProcessor`, which receives the timestamp in microseconds. Timestamps may be given
/// in either unit (`timestampInMilliseconds:` or `timestampInMicroseconds:` entry points); the
/// runner orders them in microseconds.
///
/// | Mode | Entry point | Timestamps given to the processor |
/// |---|---|---|
/// | `.image` | `processImage(_:)`, synchronous | 0, 1000, 2000, … (one step per call) |
/// | `.video` | `processVideoFrame(_:timestampInMilliseconds:)`, synchronous | the caller's, strictly increasing |
/// | `.liveStream` | `processLiveStreamFrame(_:timestampInMilliseconds:)`, returns at once | the caller's, strictly increasing |
///
/// Calling an entry point of another mode throws `TaskError.runningModeMismatch`; a timestamp
/// not greater than the previous accepted one throws `TaskError.nonMonotonicTimestamp`.
///
/// **Serialisation.** The processor is never run concurrently with itself, so it may keep
/// tracking state (for instance in an `@unchecked Sendable` box used only by the processor).
/// Synchronous calls from several threads take turns; in video mode the timestamp check and the
/// processing happen under one lock, so frames are processed in timestamp order.
///
/// **Live stream.** Accepted frames go to a private serial queue, which runs the processor and
/// then calls the `LiveStreamHandler` with the result or the error the processor threw. At most
/// one frame is in flight and one is queued; a newer frame displaces the queued one, and a
/// displaced frame gets no callback. Results therefore arrive in increasing timestamp order,
/// each at most once. The handler runs on the private queue; it may submit frames or call
/// `close()`.
///
/// **Closing.** `close()` rejects further calls with `TaskError.closed`, waits for a running
/// synchronous call or for the live-stream frames already accepted (in flight and queued, which
/// are still delivered), then releases the processor. Blocks scheduled on the private queue keep
/// the runner alive, so releasing the last reference without `close()` also lets accepted
/// frames finish before the runner is freed.
///
/// **Thread safety.** `state` is only touched with `stateLock` held. Both locks are
/// `ThreadLock`s (pthread mutexes), whose hand-over the thread sanitizer can see.
package final class VisionTaskRunner<Input: Sendable, Output: Sendable>: @unchecked Sendable {
    /// The per-frame pipeline: `(input, timestampInMilliseconds, isStreamMode) throws -> output`.
    package typealias Processor =
        @Sendable (_ input: Input, _ timestampInMilliseconds: Int, _ isStreamMode: Bool) throws -> Output

    /// The per-frame pipeline of a task that needs sub-millisecond timestamps:
    /// `(input, timestampInMicroseconds, isStreamMode) throws -> output`.
    package typealias MicrosecondProcessor =
        @Sendable (_ input: Input, _ timestampInMicroseconds: Int64, _ isStreamMode: Bool) throws -> Output

    /// Receives each live-stream result: either an output or the error the processor threw,
    /// with the frame's timestamp in milliseconds (rounded down from microseconds).
    package typealias LiveStreamHandler =
        @Sendable (_ output: Output?, _ timestampInMilliseconds: Int, _ error: (any Error)?) -> Void

    /// The running mode; live stream carries the handler that receives results.
    package enum Mode: Sendable {
        case image
        case video
        case liveStream(LiveStreamHandler)

        /// The mode for `runningMode`; `handler` is used only in live-stream mode.
        package static func from(_ runningMode: RunningMode, liveStream handler: @escaping LiveStreamHandler) -> Mode {
            switch runningMode {
            case .image: return .image
            case .video: return .video
            case .liveStream: return .liveStream(handler)
            }
        }
    }

    /// The step between synthetic image-mode timestamps: one second.
    package static var imageModeTimestampStepInMilliseconds: Int { 1000 }

    package let runningMode: RunningMode
    private let liveStreamHandler: LiveStreamHandler?
    private let stateLock = ThreadLock()
    private var state: State
    /// Held for the whole of a synchronous call (checks and processing) and by `close()`.
    private let synchronousCallLock = ThreadLock()
    private let deliveryQueue: DispatchQueue
    /// Marks `deliveryQueue`, so that `close()` can tell whether it runs on it.
    private let deliveryQueueKey = DispatchSpecificKey<Void>()

    private struct Frame: Sendable {
        let input: Input
        let timestampInMicroseconds: Int64
    }

    private struct State {
        /// Released (set to nil) once the runner is closed and idle.
        var processor: MicrosecondProcessor?
        var isClosed = false
        /// The last accepted video or live-stream timestamp, microseconds.
        var lastTimestamp: Int64?
        var nextImageTimestamp = 0
        /// A live-stream frame is being processed or its delivery block is scheduled.
        var isDelivering = false
        /// The live-stream frame waiting behind the one being delivered.
        var queuedFrame: Frame?

        /// The processor, unless the runner is closed.
        func openProcessor() throws(TaskError) -> MicrosecondProcessor {
            guard !isClosed, let processor else { throw .closed }
            return processor
        }

        /// Records `timestamp` (ms) if it is in range and greater than the last accepted one;
        /// returns it in microseconds.
        mutating func accept(milliseconds timestamp: Int) throws(TaskError) -> Int64 {
            let (microseconds, overflow) = Int64(timestamp).multipliedReportingOverflow(by: 1000)
            guard !overflow, !timestamp.multipliedReportingOverflow(by: 1000).overflow else {
                throw .timestampOutOfRange(timestamp)
            }
            if let lastTimestamp, microseconds <= lastTimestamp {
                throw .nonMonotonicTimestamp(previous: milliseconds(of: lastTimestamp), received: timestamp)
            }
            lastTimestamp = microseconds
            return microseconds
        }

        /// Records `timestamp` (µs) if it is greater than the last accepted one.
        mutating func accept(microseconds timestamp: Int64) throws(TaskError) {
            if let lastTimestamp, timestamp <= lastTimestamp {
                throw .nonMonotonicMicrosecondTimestamp(previous: lastTimestamp, received: timestamp)
            }
            lastTimestamp = timestamp
        }
    }

    /// Milliseconds rounded down from microseconds.
    package static func milliseconds(of microseconds: Int64) -> Int {
        Int(microseconds >= 0 ? microseconds / 1000 : -((-microseconds + 999) / 1000))
    }

    /// - Parameters:
    ///   - mode: the running mode; `.liveStream` carries the result handler.
    ///   - label: names the private delivery queue (for debuggers and logs).
    ///   - processor: the per-frame pipeline.
    package convenience init(mode: Mode, label: String, processor: @escaping Processor) {
        // Millisecond entry points give whole milliseconds; microsecond ones are rounded down.
        self.init(microsecondMode: mode, label: label) { input, microseconds, isStreamMode in
            try processor(input, Self.milliseconds(of: microseconds), isStreamMode)
        }
    }

    /// A runner whose processor is given timestamps in microseconds.
    /// - Parameters:
    ///   - mode: the running mode; `.liveStream` carries the result handler.
    ///   - label: names the private delivery queue (for debuggers and logs).
    ///   - processor: the per-frame pipeline, given timestamps in microseconds.
    package init(microsecondMode mode: Mode, label: String, processor: @escaping MicrosecondProcessor) {
        switch mode {
        case .image:
            runningMode = .image
            liveStreamHandler = nil
        case .video:
            runningMode = .video
            liveStreamHandler = nil
        case .liveStream(let handler):
            runningMode = .liveStream
            liveStreamHandler = handler
        }
        state = State(processor: processor)
        deliveryQueue = DispatchQueue(label: label)
        deliveryQueue.setSpecific(key: deliveryQueueKey, value: ())
    }

    /// Processes one still image with the next synthetic timestamp. Image mode only.
    ///
    /// - Throws: `TaskError.closed`, `TaskError.runningModeMismatch`, or what the processor throws.
    package func processImage(_ input: Input) throws -> Output {
        try requireRunningMode(.image)
        synchronousCallLock.lock()
        defer { synchronousCallLock.unlock() }
        let (processor, timestamp) = try withState { state throws(TaskError) in
            let processor = try state.openProcessor()
            let timestamp = state.nextImageTimestamp
            // Cannot overflow in practice: it grows by 1000 per call, from 0.
            state.nextImageTimestamp += Self.imageModeTimestampStepInMilliseconds
            return (processor, timestamp)
        }
        return try processor(input, Int64(timestamp) * 1000, false)
    }

    /// Processes one video frame. Video mode only.
    ///
    /// - Throws: `TaskError.closed`, `TaskError.runningModeMismatch`,
    ///   `TaskError.timestampOutOfRange`, `TaskError.nonMonotonicTimestamp`, or what the
    ///   processor throws. A frame whose processing throws still counts as accepted.
    package func processVideoFrame(_ input: Input, timestampInMilliseconds timestamp: Int) throws -> Output {
        try requireRunningMode(.video)
        synchronousCallLock.lock()
        defer { synchronousCallLock.unlock() }
        let (processor, microseconds) = try withState { state throws(TaskError) in
            let processor = try state.openProcessor()
            return (processor, try state.accept(milliseconds: timestamp))
        }
        return try processor(input, microseconds, true)
    }

    /// Processes one video frame timed in microseconds. Video mode only.
    ///
    /// - Throws: `TaskError.closed`, `TaskError.runningModeMismatch`,
    ///   `TaskError.nonMonotonicMicrosecondTimestamp`, or what the processor throws. A frame
    ///   whose processing throws still counts as accepted.
    package func processVideoFrame(_ input: Input, timestampInMicroseconds timestamp: Int64) throws -> Output {
        try requireRunningMode(.video)
        synchronousCallLock.lock()
        defer { synchronousCallLock.unlock() }
        let processor = try withState { state throws(TaskError) in
            let processor = try state.openProcessor()
            try state.accept(microseconds: timestamp)
            return processor
        }
        return try processor(input, timestamp, true)
    }

    /// Submits one live-stream frame and returns at once; the result goes to the handler.
    /// Live-stream mode only.
    ///
    /// - Throws: `TaskError.closed`, `TaskError.runningModeMismatch`,
    ///   `TaskError.timestampOutOfRange` or `TaskError.nonMonotonicTimestamp`; a frame that throws
    ///   is not accepted. Processing errors go to the handler instead.
    package func processLiveStreamFrame(_ input: Input, timestampInMilliseconds timestamp: Int) throws(TaskError) {
        try requireRunningMode(.liveStream)
        try withState { state throws(TaskError) in
            _ = try state.openProcessor()
            let frame = Frame(input: input, timestampInMicroseconds: try state.accept(milliseconds: timestamp))
            schedule(frame, state: &state)
        }
    }

    /// Submits one live-stream frame timed in microseconds; as
    /// `processLiveStreamFrame(_:timestampInMilliseconds:)` otherwise.
    ///
    /// - Throws: `TaskError.closed`, `TaskError.runningModeMismatch` or
    ///   `TaskError.nonMonotonicMicrosecondTimestamp`; a frame that throws is not accepted.
    package func processLiveStreamFrame(_ input: Input, timestampInMicroseconds timestamp: Int64) throws(TaskError) {
        try requireRunningMode(.liveStream)
        try withState { state throws(TaskError) in
            _ = try state.openProcessor()
            try state.accept(microseconds: timestamp)
            schedule(Frame(input: input, timestampInMicroseconds: timestamp), state: &state)
        }
    }

    /// Queues an accepted live-stream frame, or starts delivering it. Called with `stateLock` held.
    private func schedule(_ frame: Frame, state: inout State) {
        if state.isDelivering {
            state.queuedFrame = frame
        } else {
            state.isDelivering = true
            // Scheduled under the lock, so delivery blocks start in acceptance order.
            deliveryQueue.async { self.deliverFrames(startingWith: frame) }
        }
    }

    /// Rejects further calls, waits for accepted work to finish, and releases the processor.
    ///
    /// Idempotent. From the live-stream handler it does not wait (the private queue is busy
    /// delivering); the processor is then released when the last accepted frame is delivered.
    /// Must not be called from inside the processor.
    package func close() {
        synchronousCallLock.lock()
        withState { state in
            state.isClosed = true
            if !state.isDelivering { state.processor = nil }
        }
        synchronousCallLock.unlock()
        if runningMode == .liveStream, DispatchQueue.getSpecific(key: deliveryQueueKey) == nil {
            deliveryQueue.sync {}
        }
    }

    /// Runs `body` on the state with `stateLock` held.
    private func withState<Result, Failure: Error>(
        _ body: (inout State) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body(&state)
    }

    private func requireRunningMode(_ required: RunningMode) throws(TaskError) {
        guard runningMode == required else {
            throw .runningModeMismatch(required: required, current: runningMode)
        }
    }

    /// Runs on `deliveryQueue`: delivers `first`, then each frame queued meanwhile.
    private func deliverFrames(startingWith first: Frame) {
        var next: Frame? = first
        while let frame = next {
            deliver(frame)
            next = withState { state in
                if let queued = state.queuedFrame {
                    state.queuedFrame = nil
                    return queued
                }
                state.isDelivering = false
                if state.isClosed { state.processor = nil }
                return nil
            }
        }
    }

    private func deliver(_ frame: Frame) {
        // Both are present: the processor is released only when no frame is being delivered,
        // and frames are accepted only in live-stream mode, which has a handler.
        guard let processor = withState({ $0.processor }), let handler = liveStreamHandler else {
            return
        }
        let timestamp = Self.milliseconds(of: frame.timestampInMicroseconds)
        do {
            let output = try processor(frame.input, frame.timestampInMicroseconds, true)
            handler(output, timestamp, nil)
        } catch {
            handler(nil, timestamp, error)
        }
    }
}
