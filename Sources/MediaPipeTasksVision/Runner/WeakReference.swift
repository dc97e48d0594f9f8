import SystemInterface

/// A thread-safe weak reference that a `@Sendable` closure can capture.
///
/// A landmarker's live-stream handler needs the landmarker itself (the delegate's first
/// argument) and the user's delegate, neither of which is `Sendable`, and the handler is built
/// before the landmarker's `init` finishes. Capture a `WeakReference` for each, and fill in the
/// landmarker's once `self` is available:
///
/// ```swift
/// let owner = WeakReference<PoseLandmarker>(nil)
/// let delegate = WeakReference(options.poseLandmarkerLiveStreamDelegate)
/// runner = VisionTaskRunner(mode: .liveStream({ result, timestamp, error in
///     guard let landmarker = owner.object, let delegate = delegate.object else { return }
///     delegate.poseLandmarker(landmarker, didFinishDetection: result,
///                             timestampInMilliseconds: timestamp, error: error)
/// }), label: "…", processor: …)
/// owner.object = self
/// ```
///
/// Point a `WeakReference` at an object only where something keeps the `WeakReference` alive
/// as long as the object (here the runner's handler). Forming a weak reference gives the object
/// a side table, and the object's header encodes its address in a form a leak checker does not
/// recognise: with no weak reference left, LeakSanitizer reports that side table as a 32-byte
/// leak for as long as the object lives (a landmarker in image or video mode still alive at
/// exit, for instance).
package final class WeakReference<Object>: @unchecked Sendable {
    // `Object` is left unconstrained because a class-bound protocol existential such as
    // `any PoseLandmarkerLiveStreamDelegate` does not satisfy an `AnyObject` constraint. Use a
    // class or such an existential: the instance is kept, weakly, as `AnyObject` (a value type
    // would be boxed into a temporary object and read back as nil).
    // Every access to `storage` goes through `lock`.
    private let lock = ThreadLock()
    private weak var storage: AnyObject?

    package init(_ object: Object?) {
        storage = object.map { $0 as AnyObject }
    }

    /// The object, or nil once it has been deallocated. Reads and writes are atomic.
    package var object: Object? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return storage as? Object
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            storage = newValue.map { $0 as AnyObject }
        }
    }
}
