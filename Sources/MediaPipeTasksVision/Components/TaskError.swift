#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Errors of the task layer: invalid options, calls that do not fit the running mode, bad
/// timestamps, and use after `close()`.
///
/// On iOS these are `NSError`s; here they are a Swift enum whose `description` is the message.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
public enum TaskError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Neither `baseOptions.modelAssetPath` nor `baseOptions.modelAssetBuffer` is set.
    case missingModelAsset
    /// Both `baseOptions.modelAssetPath` and `baseOptions.modelAssetBuffer` are set.
    case conflictingModelAssets
    /// `baseOptions.delegate` names hardware this runtime cannot use (`.GPU`).
    case unsupportedDelegate(Delegate)
    /// A confidence option (named by `option`) is outside [0, 1] or is NaN.
    case confidenceOutOfRange(option: String, value: Float)
    /// A count option (named by `option`) is outside `allowed`.
    case countOutOfRange(option: String, value: Int, allowed: ClosedRange<Int>)
    /// The live-stream running mode was chosen but the delegate option (named by `option`) is unset.
    case missingLiveStreamDelegate(option: String)
    /// The delegate option (named by `option`) is set in a mode that never calls it.
    case unexpectedLiveStreamDelegate(option: String, runningMode: RunningMode)
    /// An option about tracks (named by `option`) is on in the image running mode, which
    /// tracks nothing.
    case trackingOptionInImageMode(option: String)
    /// A call meant for the `required` running mode reached a task created in `current` mode.
    case runningModeMismatch(required: RunningMode, current: RunningMode)
    /// A video or live-stream timestamp (ms) was not strictly greater than the previous one.
    case nonMonotonicTimestamp(previous: Int, received: Int)
    /// A video or live-stream timestamp (µs) was not strictly greater than the previous one.
    case nonMonotonicMicrosecondTimestamp(previous: Int64, received: Int64)
    /// A timestamp (ms) too large in magnitude to be expressed in microseconds as an `Int`.
    case timestampOutOfRange(Int)
    /// The task was used after `close()`.
    case closed
    /// A model asset could not be read or is not the model the task needs.
    case invalidModel(String)
    /// An output option (named by `option`) asks for something this runtime cannot produce,
    /// for the reason given (e.g. its model is in no package the project fetches).
    case unavailableOutput(option: String, reason: String)

    public var description: String {
        switch self {
        case .missingModelAsset:
            return "No model asset: set baseOptions.modelAssetPath or baseOptions.modelAssetBuffer "
                + "(an empty value counts as unset)."
        case .conflictingModelAssets:
            return "Both baseOptions.modelAssetPath and baseOptions.modelAssetBuffer are set; set exactly one."
        case .unsupportedDelegate(let delegate):
            return "baseOptions.delegate .\(delegate) is not available: this runtime runs models on the CPU only. "
                + "Set baseOptions.delegate = .CPU (the default)."
        case .confidenceOutOfRange(let option, let value):
            return "\(option) must be in [0.0, 1.0], got \(value)."
        case .countOutOfRange(let option, let value, let allowed):
            return "\(option) must be in \(allowed.lowerBound)...\(allowed.upperBound), got \(value)."
        case .missingLiveStreamDelegate(let option):
            return "The live stream running mode requires \(option) to be set."
        case .unexpectedLiveStreamDelegate(let option, let runningMode):
            return "\(option) must not be set in the \(runningMode) running mode; "
                + "it is used only in the live stream mode."
        case .trackingOptionInImageMode(let option):
            return "\(option) applies only to the video and live stream running modes, "
                + "where poses are tracked from frame to frame; turn it off in the image running mode."
        case .runningModeMismatch(let required, let current):
            return "This call is only valid in the \(required) running mode, "
                + "but the task was created in the \(current) running mode."
        case .nonMonotonicTimestamp(let previous, let received):
            return "Input timestamp must be monotonically increasing. "
                + "Received \(received) ms after \(previous) ms."
        case .nonMonotonicMicrosecondTimestamp(let previous, let received):
            return "Input timestamp must be monotonically increasing. "
                + "Received \(received) µs after \(previous) µs."
        case .timestampOutOfRange(let value):
            return "Timestamp \(value) ms is out of range: its magnitude must be at most "
                + "\(Int.max / 1000) ms."
        case .closed:
            return "The task has been closed; create a new one."
        case .invalidModel(let message):
            return "Invalid model: \(message)"
        case .unavailableOutput(let option, let reason):
            return "\(option) cannot be produced: \(reason). Leave it false."
        }
    }

    public var errorDescription: String? { description }
}
