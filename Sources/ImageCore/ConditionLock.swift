#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX mutex with a condition variable, for the codecs' own threads (``HandoffWorker``,
/// ``ThreadWork``, the JPEG encoder's band dealer): what it orders, the thread sanitizer sees.
///
/// ```swift
/// let gate = ConditionLock()
/// gate.withLock { ready = true }
/// gate.broadcast()
/// ```
public final class ConditionLock: @unchecked Sendable {
    // `@unchecked`: the mutex and condition are the synchronisation; they are allocated once
    // and never move.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }

    /// Takes the mutex if no one holds it; true when taken.
    public func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }

    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the mutex.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Releases the mutex (held by the caller), sleeps until signalled, and takes it again.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one thread sleeping in ``wait()``.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every thread sleeping in ``wait()``.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
