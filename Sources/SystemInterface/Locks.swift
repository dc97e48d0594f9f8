#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutual-exclusion lock over a POSIX mutex — what `NSLock` is — without Foundation. The
/// thread sanitizer sees its hand-overs (which it does not for a contended
/// `Synchronization.Mutex`). Nothing here allocates after `init`.
///
/// Thread safety: `Sendable`; any thread may lock it, and only the thread holding it may
/// unlock it. Not recursive: locking it again on the thread that holds it deadlocks.
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

/// A POSIX mutex and a condition variable waited on under it — what `NSCondition` is —
/// without Foundation. The thread sanitizer sees its hand-overs. Nothing here allocates after
/// `init`.
///
/// Thread safety: `Sendable`; `wait`, `signal` and `broadcast` are called with the lock held.
package final class ConditionLock: @unchecked Sendable {
    /// Allocated once and never moved, as pthread objects must not be.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        mutex.deinitialize(count: 1)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Waits until the lock is free and takes it.
    package func lock() { pthread_mutex_lock(mutex) }

    /// Releases the lock, which the calling thread holds.
    package func unlock() { pthread_mutex_unlock(mutex) }

    /// Releases the lock, sleeps until signalled (or woken spuriously: callers re-check their
    /// condition in a loop), and takes the lock again.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one waiting thread, if any.
    package func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
