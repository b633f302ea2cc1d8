#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of its own that runs one job at a time for a caller that hands work over often
/// (a JPEG MCU row every hundred microseconds or so) and waits for each job before the next.
///
/// A Dispatch work item per job costs a thread wake-up on each side of every hand-over, tens
/// of microseconds on a virtual machine, which is a large share of work that small. Here both
/// sides poll before they sleep, so while both threads are busy a hand-over costs a lock and
/// no wake-up, and a side that waits longer sleeps on a condition variable as usual.
///
/// Each side's poll adapts, between ``pollTime`` and ``maximumPollTime``: after a wait that
/// slept it becomes twice that wait, and a wait of over two milliseconds halves it. On a virtual
/// machine whose processors halt when idle, a sleeping side costs a trip through the host: on a
/// Firecracker VM (Ice Lake) a `futex` wake cost the waking thread about 44 µs, and the woken
/// thread ran again up to several hundred microseconds later. There, with 30 µs polls, a
/// two-thread 1 MP JPEG decode slept 23 times a decode and a two-thread WebP decode once a
/// macroblock row, and both ran slower than on one thread. Past the first ``pollTime`` a poll
/// gives its processor away between checks (`sched_yield`, which returns at once when nothing
/// else is runnable there), so a side whose partner shares its processor with it, or lost its
/// own to another process, lets it run. (Yielding from the first check cost more processor time
/// and made whole-process timings less steady: a 12 MP PPM to JPEG through `jpng` took 31-45 ms
/// that way against 32-33 ms.)
///
/// The thread is a plain POSIX thread, not one of Dispatch's pool: work queued to a pool that is
/// busy can wait for a thread, and this one runs for as long as its owner hands it work.
///
/// ```swift
/// guard let worker = HandoffWorker() else { return doEverythingHere() }
/// defer { worker.close() }
/// worker.submit { transform(row: 0) }
/// decode(row: 1)
/// worker.wait()                      // row 0 transformed
/// ```
public final class HandoffWorker: @unchecked Sendable {
    // `@unchecked`: every stored variable is read and written under `gate`; the job runs on
    // the worker thread, and the caller reads its results only after `wait()` returns, which
    // takes the mutex after the worker released it.
    /// The worker sleeps on it for a job, the caller for the job's end (each re-checks its own
    /// condition, so one condition variable serves both).
    private let gate = ConditionLock()
    private var job: (@Sendable () -> Void)?
    private var pending = false
    private var stopping = false
    private var workerSleeps = false
    private var callerSleeps = false
    private var thread: pthread_t?
    private var closed = false
    /// The caller's poll (read and written under `gate`: `close()` may wait from another thread).
    private var callerPoll = HandoffWorker.pollTime
    /// The worker thread's poll (its own).
    private var workerPoll = HandoffWorker.pollTime

    /// The shortest time a side polls before it sleeps, in nanoseconds (and where it starts).
    public static let pollTime = 30_000
    /// The longest time a side polls before it sleeps, in nanoseconds.
    public static let maximumPollTime = 1_000_000

    /// Starts the thread; nil when the system gives no thread.
    public init?() {
        // The thread holds the worker until it returns (`close()` joins it).
        let context = Unmanaged.passRetained(self).toOpaque()
        #if canImport(Darwin)
        var handle: pthread_t?
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<HandoffWorker>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        #else
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { context in
            guard let context else { return nil }
            Unmanaged<HandoffWorker>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
        #endif
        guard status == 0 else {
            Unmanaged<HandoffWorker>.fromOpaque(context).release()
            closed = true
            return nil
        }
        thread = handle
    }

    /// Hands `job` to the thread. The job before it must have been waited for.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        gate.lock()
        precondition(!pending && !stopping, "HandoffWorker: a job submitted while one is pending or after close()")
        self.job = job
        pending = true
        let wake = workerSleeps
        gate.unlock()
        if wake { gate.broadcast() }
    }

    /// True when the job submitted last has finished (or none was): `wait()` would return at once.
    public var isIdle: Bool { gate.withLock { !pending } }

    /// Waits until the job submitted last has finished (at once when none is pending).
    public func wait() {
        let start = Self.now()
        let limit = gate.withLock { callerPoll }
        if poll(limit, { !$0.pending }) { return }
        gate.lock()
        while pending {
            callerSleeps = true
            gate.wait()
            callerSleeps = false
        }
        callerPoll = Self.nextPoll(limit, waited: Self.now() - start)
        gate.unlock()
    }

    /// Waits for the pending job, then ends the thread and waits for it. Call it once, before
    /// the worker's last reference goes.
    public func close() {
        wait()
        gate.lock()
        if closed {
            gate.unlock()
            return
        }
        closed = true
        stopping = true
        let wake = workerSleeps
        gate.unlock()
        if wake { gate.broadcast() }
        guard let thread else { return }
        if pthread_equal(thread, pthread_self()) == 0 {
            pthread_join(thread, nil)
        } else {
            // From the thread itself (a job dropping its owner's last reference): it ends
            // once this returns, and nobody joins it.
            pthread_detach(thread)
        }
    }

    private func run() {
        while true {
            let start = Self.now()
            if !poll(workerPoll, { $0.job != nil || $0.stopping }) {
                gate.lock()
                while job == nil && !stopping {
                    workerSleeps = true
                    gate.wait()
                    workerSleeps = false
                }
                gate.unlock()
                workerPoll = Self.nextPoll(workerPoll, waited: Self.now() - start)
            }
            gate.lock()
            var next = job
            job = nil
            gate.unlock()
            if next == nil { return }     // stopping, and nothing left to run
            // No other reference to the job: its captures go at `next = nil`, before the
            // caller hears of its end, so that the caller's last reference to them is the last
            // one (and an owner's deinit never runs on this thread in the normal course).
            next?()
            next = nil
            gate.lock()
            pending = false
            let wake = callerSleeps
            gate.unlock()
            if wake { gate.broadcast() }
        }
    }

    private func poll(_ limit: Int, _ ready: (HandoffWorker) -> Bool) -> Bool {
        Self.poll(gate, limit) { ready(self) }
    }

    /// Checks `ready` under `gate` until it holds (true) or `limit` nanoseconds have passed
    /// (false), yielding the processor between checks past the first ``pollTime``. A check
    /// finds the mutex taken only while the other side hands over, and then simply tries again.
    static func poll(_ gate: ConditionLock, _ limit: Int, _ ready: () -> Bool) -> Bool {
        let start = now()
        while true {
            if gate.tryLock() {
                let done = ready()
                gate.unlock()
                if done { return true }
            }
            let elapsed = now() - start
            if elapsed >= limit { return false }
            if elapsed >= pollTime { sched_yield() }
        }
    }

    /// A side's next poll after a wait of `waited` nanoseconds that outlasted a poll of `poll`:
    /// twice the wait (up to the maximum), so that a wait like it is caught polling, or half as
    /// long after a wait of over 2 ms.
    static func nextPoll(_ poll: Int, waited: Int) -> Int {
        if waited > 2_000_000 { return max(poll / 2, pollTime) }
        return min(max(poll, 2 * waited), maximumPollTime)
    }

    /// The monotonic clock in nanoseconds.
    static func now() -> Int {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return t.tv_sec * 1_000_000_000 + t.tv_nsec
    }
}
