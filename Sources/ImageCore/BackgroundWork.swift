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
