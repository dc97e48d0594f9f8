/// Range checks shared by the landmarker options (and by the `landmarker` command, which
/// names the options as its flags spell them).
package enum OptionValidation {
    /// Throws unless `value` is in [0, 1] (NaN is rejected).
    package static func checkConfidence(_ value: Float, option: String) throws(TaskError) {
        guard (0...1).contains(value) else {
            throw .confidenceOutOfRange(option: option, value: value)
        }
    }

    /// Throws unless `value` is in `1...maximum`.
    package static func checkCount(_ value: Int, option: String, maximum: Int) throws(TaskError) {
        let allowed = 1...maximum
        guard allowed.contains(value) else {
            throw .countOutOfRange(option: option, value: value, allowed: allowed)
        }
    }

    /// Throws when an option that needs tracks (named by `option`) is on in `.image` mode.
    static func checkTrackingOption(isOn: Bool, runningMode: RunningMode, option: String) throws(TaskError) {
        guard !(isOn && runningMode == .image) else {
            throw .trackingOptionInImageMode(option: option)
        }
    }

    /// Throws unless a delegate is present exactly when `runningMode` is `.liveStream`.
    package static func checkLiveStreamDelegate(
        isPresent: Bool, runningMode: RunningMode, option: String
    ) throws(TaskError) {
        switch (runningMode, isPresent) {
        case (.liveStream, false): throw .missingLiveStreamDelegate(option: option)
        case (.image, true), (.video, true):
            throw .unexpectedLiveStreamDelegate(option: option, runningMode: runningMode)
        case (.liveStream, true), (.image, false), (.video, false): return
        }
    }
}
