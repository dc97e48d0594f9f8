import Foundation

/// A thread-safe list that `@Sendable` closures can append to. (It uses an `NSLock`, whose
/// hand-over the thread sanitizer can see, unlike a contended `Synchronization.Mutex`.)
public final class TasksRecorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []

    public init() {}

    public func append(_ value: Value) {
        lock.lock()
        defer { lock.unlock() }
        storage.append(value)
    }

    public var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
