import ImageCore

/// Runs `body` for `0 ..< count` pieces on up to `threads` threads and returns the results in
/// piece order. Pieces are cut by the caller from the input alone, so what is computed, and
/// the order results are combined in, never depends on the thread count.
func inPieces<T: Sendable>(_ count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    if threads <= 1 || count <= 1 { return (0 ..< count).map(body) }
    var results: [T] = []
    results.reserveCapacity(count)
    var inFlight: [BackgroundWork<T, Never>] = []
    var next = 0
    while next < count || !inFlight.isEmpty {
        while next < count && inFlight.count < threads {
            let piece = next
            inFlight.append(BackgroundWork { body(piece) })
            next += 1
        }
        results.append(inFlight.removeFirst().value())
    }
    return results
}
