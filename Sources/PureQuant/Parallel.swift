import ImageCore

/// Runs `body` for `0 ..< count` pieces on up to `threads` threads and returns the results in
/// piece order. Pieces are cut by the caller from the input alone, so what is computed, and
/// the order results are combined in, never depends on the thread count.
///
/// The pieces are dealt in `threads` runs of consecutive pieces: the first run on the calling
/// thread, each other on a thread of its own (`ThreadWork`), so no piece waits for a thread
/// of Dispatch's pool (inside a `concurrentPerform` worker, with other work queued there, the
/// pool can leave a core idle while the caller waits).
func inPieces<T: Sendable>(_ count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    if threads <= 1 || count <= 1 { return (0 ..< count).map(body) }
    let runs = min(threads, count)
    let bounds = (0 ... runs).map { $0 * count / runs }
    let others = (1 ..< runs).map { r in ThreadWork { (bounds[r] ..< bounds[r + 1]).map(body) } }
    var results = (bounds[0] ..< bounds[1]).map(body)
    results.reserveCapacity(count)
    for work in others { results += work.value() }
    return results
}
