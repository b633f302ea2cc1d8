import Dispatch

/// Hands out task indices to the workers.
final class WorkQueue: @unchecked Sendable {
    private let lock = Lock()
    private var nextIndex = 0
    private let count: Int
    init(count: Int) { self.count = count }
    func next() -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard nextIndex < count else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }
}

/// Counts, the progress bar (stderr, on a terminal) and the summary line.
///
/// The summary counts every input: converted (kept ones among them, said apart), failed, and
/// skipped, the first few skipped named with their reason.
final class ConversionProgress: @unchecked Sendable {
    private let lock = Lock()
    private let total: Int
    private let showBar: Bool
    private var done = 0
    private(set) var failures = 0
    private var skips = 0
    /// Inputs kept as they are because no output was smaller (counted as converted).
    private var keeps = 0
    /// Inputs skipped because the tool cannot read them (these make the exit status non-zero).
    private(set) var unreadable = 0
    /// The first skipped inputs with their reason, in the order they were met.
    private var skipNotes: [String] = []
    static let namedSkips = 3
    private var bytesIn = 0, bytesOut = 0
    private var lastDraw = ContinuousClock.now
    private let clock = ContinuousClock()

    init(total: Int, showBar: Bool) {
        self.total = total
        self.showBar = showBar
    }

    func finished(bytesIn: Int, bytesOut: Int, line: String?, kept: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        if kept { keeps += 1 }
        self.bytesIn += bytesIn
        self.bytesOut += bytesOut
        if let line { emit(line, toStderr: false) }
        draw(force: false)
    }

    /// A notice about one file, printed above the bar.
    func note(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        emit(message, toStderr: true)
    }

    /// An input not converted: its output was already there (`--skip-existing`), or the tool
    /// cannot read it (`unreadable`: the exit status is then non-zero, as for a failure). The
    /// reason is printed on stderr for an unreadable input, and the first few are named in the
    /// summary.
    func skipped(_ name: String, reason: String, unreadable: Bool) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        skips += 1
        if unreadable {
            self.unreadable += 1
            emit("jpng: \(name): skipped: \(reason)", toStderr: true)
        }
        if skipNotes.count < Self.namedSkips { skipNotes.append("\(name): \(reason)") }
        draw(force: false)
    }

    func failed(_ message: String) {
        lock.lock(); defer { lock.unlock() }
        done += 1
        failures += 1
        emit(message, toStderr: true)
        draw(force: false)
    }

    func finish() {
        lock.lock(); defer { lock.unlock() }
        draw(force: true)
        if showBar { Console.error("\n") }
        let failed = failures > 0 ? ", \(failures) failed" : ""
        var skippedText = ""
        if skips > 0 {
            let more = skips > skipNotes.count ? "; \(skips - skipNotes.count) more" : ""
            skippedText = ", \(skips) skipped (\(skipNotes.joined(separator: "; "))\(more))"
        }
        let keptText = keeps > 0 ? ", \(keeps) kept as \(keeps == 1 ? "it was" : "they were") (no output smaller)" : ""
        print("converted \(done - failures - skips) of \(total) files\(failed)\(skippedText)\(keptText); \(format(bytesIn)) in, \(format(bytesOut)) out")
    }

    private func emit(_ line: String, toStderr: Bool) {
        if showBar { Console.error("\r\u{1B}[K") }
        if toStderr { Console.error(line + "\n") } else { Console.output(line + "\n") }
        draw(force: true)
    }

    private func draw(force: Bool) {
        guard showBar else { return }
        let now = clock.now
        guard force || now - lastDraw > .milliseconds(50) || done == total else { return }
        lastDraw = now
        let bar = progressBar(done: done, total: total)
        let failed = failures > 0 ? ", \(failures) failed" : ""
        let text = "\r\u{1B}[K\(bar) \(done)/\(total) files, \(format(bytesIn)) -> \(format(bytesOut))\(failed)"
        Console.error(text)
    }

    private func format(_ bytes: Int) -> String { byteSize(bytes) }
}

/// A byte count as the summary writes it: B, KB or MB with one decimal.
func byteSize(_ bytes: Int) -> String {
    if bytes >= 1 << 20 { return fixed(Double(bytes) / 1_048_576, 1) + " MB" }
    if bytes >= 1 << 10 { return fixed(Double(bytes) / 1024, 1) + " KB" }
    return "\(bytes) B"
}
