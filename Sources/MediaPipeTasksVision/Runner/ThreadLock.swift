#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over a POSIX mutex — what `NSLock` is — without Foundation. The
/// thread sanitizer sees its hand-overs.
///
/// Thread safety: `Sendable`; any thread may lock it, and only the thread holding it may
/// unlock it.
package final class ThreadLock: @unchecked Sendable {
    /// Allocated once and never moved, as a `pthread_mutex_t` must not be.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Waits until the lock is free and takes it.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock, which the calling thread holds.
    package func unlock() { pthread_mutex_unlock(mutex) }
}
