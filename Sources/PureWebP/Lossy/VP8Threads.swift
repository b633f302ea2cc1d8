import ImageCore

// The two-thread pipeline's pieces outside `VP8Decoder.decodeMacroblocks` (see Notes.md,
// "Threads").
extension VP8Decoder {
    /// Macroblock rows the parsing thread may run ahead of the calling thread with threads (its
    /// ring of parsed rows), so that one row's imbalance (a row heavy in tokens against one heavy
    /// in filtering) evens out over the rows around it.
    static let ringRows = 8

    /// Runs `a` on `worker`'s thread and `b` on the calling thread, and returns when both are
    /// done. The caller guarantees they touch disjoint memory or order their accesses (the
    /// parsed rows' slots pass between them through `ProgressCounter`s), which is what makes the
    /// unchecked box sound. The worker is a `HandoffWorker`, a thread of the decode's own, not one
    /// of Dispatch's pool, which may be busy and keep the job waiting for a thread.
    static func runConcurrently(on worker: HandoffWorker, _ a: () -> Void, _ b: () -> Void) {
        withoutActuallyEscaping(a) { a in
            let job = ConcurrentJob(a)
            worker.submit {
                job.run?()
                job.run = nil   // released before the worker reports the end: nothing outlives the call
            }
            b()
            worker.wait()
        }
    }
}

/// A closure handed to the worker thread (see `VP8Decoder.runConcurrently`).
private final class ConcurrentJob: @unchecked Sendable {
    var run: (() -> Void)?
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// Where the first partition and the context modes above stood before each row's headers in the
/// ring of parsed rows, so that headers parsed ahead of a row whose tokens ran out can be undone.
struct VP8HeaderRecords {
    let slots: Int, topCount: Int
    let starts: UnsafeMutablePointer<VP8BoolState>
    let tops: UnsafeMutablePointer<UInt8>

    init(slots: Int, macroblockWidth: Int, start: VP8BoolState) {
        self.slots = slots
        topCount = 4 * macroblockWidth
        starts = .allocate(capacity: slots)
        starts.initialize(repeating: start, count: slots)
        tops = .allocate(capacity: slots * topCount)
    }

    func free() {
        starts.deinitialize(count: slots)
        starts.deallocate()
        tops.deallocate()
    }

    /// Records the state before row `row`'s headers.
    func record(_ row: Int, _ state: VP8BoolState, top: UnsafePointer<UInt8>) {
        starts[row % slots] = state
        (tops + (row % slots) * topCount).update(from: top, count: topCount)
    }

    /// Puts the modes above back as they were before row `row`'s headers, and returns where the
    /// first partition stood then.
    func restore(_ row: Int, top: UnsafeMutablePointer<UInt8>) -> VP8BoolState {
        top.update(from: tops + (row % slots) * topCount, count: topCount)
        return starts[row % slots]
    }
}
