/// Lets at most `limit` decodes run at once; later ones wait their turn, first come first
/// served.
///
/// The per-image `DecodingLimits` bound what one decode may allocate; this bounds how many such
/// decodes run together, so the server's peak memory is at most about `limit` times the
/// per-image cap. Because the decoder reads the upload as it arrives, a request holds its place
/// for as long as its upload takes, and a waiting request's body stays unread (TCP back
/// pressure slows its sender) until it gets a place.
actor DecodeGate {
    private let limit: Int
    private var running = 0
    private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    init(limit: Int) {
        precondition(limit > 0, "the gate needs at least one place")
        self.limit = limit
    }

    /// Runs `body` once a place is free. A task cancelled while it waits throws
    /// `CancellationError` without running `body`.
    nonisolated func withPlace<R>(_ body: () async throws -> R) async throws -> R {
        try await enter()
        do {
            let result = try await body()
            await leave()
            return result
        } catch {
            await leave()
            throw error
        }
    }

    private func enter() async throws {
        if running < limit {
            running += 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting.append((id, continuation))
            }
        } onCancel: {
            // Runs after `enter` has suspended (the actor is busy until then), so the waiter
            // is in the queue unless `leave` has already handed it a place.
            Task { await self.cancelWaiting(id) }
        }
    }

    private func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The place passes straight to the next waiter: `running` stays the same.
            waiting.removeFirst().continuation.resume()
        }
    }

    private func cancelWaiting(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
