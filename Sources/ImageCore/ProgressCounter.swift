/// A count that one thread raises and another waits on: the progress of a two-thread pipeline
/// whose producer runs ahead of its consumer (rows parsed on one thread, reconstructed on the
/// other), so that neither waits for the other's every step as a ``HandoffWorker`` hand-over
/// does.
///
/// One thread raises the count, one thread waits on it. The waiting side polls before it
/// sleeps, with ``HandoffWorker``'s adaptive poll (see there): after a wait that slept, twice
/// that wait, from ``HandoffWorker/pollTime`` to ``HandoffWorker/maximumPollTime``, yielding
/// the processor between checks past the first ``HandoffWorker/pollTime``.
///
/// ```swift
/// let parsed = ProgressCounter(0)
/// worker.submit { for row in 0 ..< rows { parse(row); parsed.raise(to: row + 1) }; parsed.end() }
/// var row = 0
/// while case let ready = parsed.wait(for: row + 1), ready > row {
///     while row < ready { reconstruct(row); row += 1 }
/// }
/// worker.wait()
/// ```
public final class ProgressCounter: @unchecked Sendable {
    // `@unchecked`: every stored variable is read and written under `gate`.
    private let gate = ConditionLock()
    private var value: Int
    private var ended = false
    private var sleeping = false
    private var poll = HandoffWorker.pollTime

    /// A counter at `start`.
    public init(_ start: Int = 0) { value = start }

    /// The count now.
    public var count: Int { gate.withLock { value } }

    /// Raises the count to `newValue` (not below the count) and wakes a sleeping waiter.
    public func raise(to newValue: Int) {
        gate.lock()
        precondition(newValue >= value, "ProgressCounter: the count goes down")
        value = newValue
        let wake = sleeping
        gate.unlock()
        if wake { gate.broadcast() }
    }

    /// Makes the count final: a wait for more returns the count at once.
    public func end() {
        gate.lock()
        ended = true
        let wake = sleeping
        gate.unlock()
        if wake { gate.broadcast() }
    }

    /// Waits until the count reaches `target` or the count is final, and returns the count
    /// (below `target` only when final).
    public func wait(for target: Int) -> Int {
        let start = HandoffWorker.now()
        let limit = gate.withLock { poll }
        var seen = 0
        if HandoffWorker.poll(gate, limit, {
            seen = value
            return value >= target || ended
        }) { return seen }
        gate.lock()
        while value < target && !ended {
            sleeping = true
            gate.wait()
            sleeping = false
        }
        let v = value
        poll = HandoffWorker.nextPoll(limit, waited: HandoffWorker.now() - start)
        gate.unlock()
        return v
    }
}
