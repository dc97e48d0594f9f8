/// The hardware a task runs its models on, mirroring the iOS `Delegate` (`MPPDelegate`).
///
/// Thread safety: a `Sendable` value; copies can be used on any number of threads at once.
public enum Delegate: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The CPU, with this runtime's own kernels: the default, and the only delegate here.
    case CPU
    /// The GPU (TFLite's Metal delegate on iOS). This runtime has no GPU kernels: creating a
    /// task with it throws `TaskError.unsupportedDelegate(.GPU)`.
    case GPU

    public var description: String {
        switch self {
        case .CPU: return "CPU"
        case .GPU: return "GPU"
        }
    }
}
