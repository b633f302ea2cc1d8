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
