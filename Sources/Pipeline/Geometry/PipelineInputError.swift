/// A value handed to a pipeline step (a model output, a landmark list, a timestamp) does not
/// have the shape or range that step needs.
///
/// These errors describe data, never programming mistakes: a model file with unexpected output
/// sizes or a caller's timestamp can cause them, so they are thrown rather than trapped.
///
/// Thread safety: a `Sendable` value; it can be thrown across threads and queues.
package enum PipelineInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A model output holds `actual` floats where the step needs `expected`.
    case tensorSizeMismatch(tensor: String, expected: Int, actual: Int)
    /// A detection has `available` keypoints but the step reads keypoint index `needed - 1`.
    case tooFewKeypoints(needed: Int, available: Int)
    /// A landmark list has `available` landmarks but the step needs at least `needed`.
    case tooFewLandmarks(needed: Int, available: Int)
    /// A landmark list has `actual` landmarks where the step needs exactly `expected`.
    case unexpectedLandmarkCount(expected: Int, actual: Int)
    /// A stateful smoother was set up for `expected` landmarks and now receives `actual`.
    case landmarkCountChanged(expected: Int, actual: Int)
    /// A size or count computed from options does not fit in memory or in `Int`.
    case sizeOutOfRange(what: String)
    /// An option has a value the step cannot work with.
    case invalidOption(name: String, reason: String)
    /// A timestamp cannot be converted to nanoseconds without overflowing `Int64`.
    case timestampOutOfRange(microseconds: Int64)

    package var description: String {
        switch self {
        case let .tensorSizeMismatch(tensor, expected, actual):
            return "tensor \(tensor) holds \(actual) values, expected \(expected)"
        case let .tooFewKeypoints(needed, available):
            return "detection has \(available) keypoints, needs at least \(needed)"
        case let .tooFewLandmarks(needed, available):
            return "landmark list has \(available) landmarks, needs at least \(needed)"
        case let .unexpectedLandmarkCount(expected, actual):
            return "landmark list has \(actual) landmarks, expected exactly \(expected)"
        case let .landmarkCountChanged(expected, actual):
            return "smoother holds state for \(expected) landmarks but received \(actual)"
        case let .sizeOutOfRange(what):
            return "\(what) is too large"
        case let .invalidOption(name, reason):
            return "option \(name): \(reason)"
        case let .timestampOutOfRange(microseconds):
            return "timestamp \(microseconds) µs overflows when converted to nanoseconds"
        }
    }
}
