#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// A value computed on another thread (Dispatch's global queue), for codecs that spread
/// independent pieces of work over the cores (APNG frames, tiles) and take the results in order.
///
/// ```swift
/// let jobs = frames.map { frame in BackgroundWork { () throws(PNGError) in try compress(frame) } }
/// for job in jobs { write(try job.value()) }        // in order, whatever finished first
/// ```
public final class BackgroundWork<Value: Sendable, Failure: Error>: @unchecked Sendable {
    // `@unchecked`: `outcome` is written once by the worker before `done` is signalled, and read
    // only after waiting on it.
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, Failure>?

    /// Starts `work` on another thread.
    public init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        DispatchQueue.global().async {
            self.outcome = Result { () throws(Failure) -> Value in try work() }
            self.done.signal()
        }
    }

    /// Waits for the work and returns its value or throws its error (again on every call).
    public func value() throws(Failure) -> Value {
        done.wait()
        done.signal()
        // The worker always sets `outcome` before it signals.
        switch outcome {
        case let .success(value)?: return value
        case let .failure(error)?: throw error
        case nil: preconditionFailure("BackgroundWork signalled without an outcome")
        }
    }
}

/// The machine's processors.
public enum Processors {
    /// The processors online, at least 1: the default number of threads for work spread over
    /// the cores.
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// A value computed on a thread of its own (a new detached POSIX thread, not Dispatch's pool),
/// for work that the caller waits on soon and that must not queue behind other pool work: a
/// `concurrentPerform` worker's helpers, or pool threads busy with work decoded ahead, would
/// otherwise leave it waiting while a core is free. When no thread can be made the work runs
/// on the caller's thread, in `init`.
///
/// ```swift
/// let coded = ThreadWork { lzw(frame) }   // runs alongside
/// remap(nextFrame)
/// write(coded.value())
/// ```
public final class ThreadWork<Value: Sendable>: @unchecked Sendable {
    // `@unchecked`: `work` is set before the thread starts and taken by it; `outcome` and
    // `finished` are written and read under `gate` (a POSIX mutex and condition, which the
    // thread sanitizer sees, rather than a Dispatch semaphore).
    private let gate = ConditionLock()
    private var work: (@Sendable () -> Value)?
    private var outcome: Value?
    private var finished = false

    /// Starts `work` on a new thread.
    public init(_ work: @escaping @Sendable () -> Value) {
        self.work = work
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // The thread holds the work through `ThreadStart` until it has run it.
        let context = Unmanaged.passRetained(ThreadStart { self.run() }).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        if pthread_create(&thread, &attributes, threadWorkMain, context) != 0 {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            run()
        }
    }

    fileprivate func run() {
        var body = work
        work = nil
        let value = body?()
        body = nil      // the work's captures go before the caller hears of the end
        gate.withLock {
            outcome = value
            finished = true
        }
        gate.broadcast()
    }

    /// Waits for the work and returns its value (again on every call).
    public func value() -> Value {
        gate.lock()
        while !finished { gate.wait() }
        let result = outcome
        gate.unlock()
        guard let result else { preconditionFailure("ThreadWork finished without an outcome") }
        return result
    }
}

/// What a new thread runs: one non-generic type, so the thread's entry takes it back without a cast.
private final class ThreadStart {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

#if canImport(Darwin)
private func threadWorkMain(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue().body()
    return nil
}
#else
private func threadWorkMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    Unmanaged<ThreadStart>.fromOpaque(context).takeRetainedValue().body()
    return nil
}
#endif
