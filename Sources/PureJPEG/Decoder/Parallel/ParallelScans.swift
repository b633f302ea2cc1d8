import ImageCore
import Dispatch

/// The scans of a progressive (or multi-scan) file decoded side by side, when the whole file
/// arrives in one ``JPEGDecoder/append(_:)-(UnsafeRawBufferPointer)`` call.
///
/// The marker loop runs ahead on the caller's thread: each scan whose end marker is present is
/// handed over (``JPEGDecoder/deferScan(_:_:)``) and the loop goes on to the next segment as if
/// the scan had ended cleanly at that marker. A scan reads and writes only its own components'
/// blocks, and block row r of a component needs only what the earlier scans of that component
/// wrote into row r. So the work is pieces of ``rowsPerPiece`` MCU rows of one scan, each ready
/// once the latest earlier scan of each of its components has finished the block rows it
/// touches; threads take the first ready piece of the first unfinished scans, and the scans
/// follow each other down the image (the Y refinements behind the Y first scans, the chroma
/// scans in the gaps). Each piece runs the one-thread MCU loop on the scan's own entropy state
/// over the same bytes, so the coefficients are the one-thread ones. At EOI the final pass is
/// handed over too, in pieces that start once every scan is past the rows they read.
///
/// What the marker loop assumed is checked when the scans are drained (before EOI's render,
/// before a scan decoded in place, when the call returns): no warning, every MCU decoded, the
/// reader stopped exactly at the marker with no whole byte left over. A scan that breaks any of
/// that (damaged data, a premature marker, bytes before the marker) stops the pieces, and the
/// decoder starts over on one thread from the same bytes, so events, errors and pixels are the
/// one-thread ones.
///
/// `@unchecked Sendable`: the scan list, states, progress and flags are touched only under
/// `gate`; the input is only read; a coefficient block is written by one scan at a time, the
/// scans ordered by the progress counters (read and written under `gate`).
final class ScanWorkers: @unchecked Sendable {
    /// A scan handed over, with what its worker needs.
    struct Scan: @unchecked Sendable {
        let plan: ScanPlan
        /// Where the scan's entropy-coded data starts in ``bytes`` (its file offset: the bytes
        /// start at the file's first byte), and where its end marker is, from there.
        let start: Int
        let marker: Int
        let planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>
        /// MCU rows.
        let rows: Int
        /// For each of its components, the latest earlier scan of it: that scan, its block rows
        /// per MCU row of the component, and this scan's.
        let dependencies: [(scan: Int, theirs: Int, ours: Int)]
    }

    let threads: Int
    private let gate = ConditionLock()
    /// The caller's bytes (the whole file), valid for the ``JPEGDecoder/append(_:)-(UnsafeRawBufferPointer)``
    /// call the workers live in: every scan is drained before it returns.
    private let bytes: UnsafePointer<UInt8>
    let inputCount: Int
    // Under `gate`:
    private var scans: [Scan] = []
    /// Each scan's entropy state between its pieces, and the MCU rows it has finished.
    private var states: [EntropyState] = []
    private var progress: [Int] = []
    /// A thread is decoding a piece of the scan (its state is out).
    private var running: [Bool] = []
    /// Scans not yet finished; the first of them.
    private var unfinished = 0
    private var first = 0
    private var workers = 0
    private var closed = false
    /// A scan did not end as the marker loop assumed: no more pieces are taken.
    private var failed = false
    /// The final pass in pieces (``renderAlongside(pieces:needs:body:)``): the block rows of each
    /// frame component a piece reads, and the pieces taken, running and finished.
    private var render: (needs: [[Int]], body: @Sendable (Int) -> Void)?
    private var renderTaken = 0, renderRunning = 0, renderFinished = 0

    /// MCU rows decoded at once: a few, so that a scan can follow the one before it closely.
    static let rowsPerPiece = 4

    /// Workers for a decode of `input` (the whole file, not empty) on `threads` threads, the
    /// caller's among them.
    init?(input: UnsafeRawBufferPointer, threads: Int) {
        guard let base = input.baseAddress, input.count > 0 else { return nil }
        self.threads = threads
        inputCount = input.count
        bytes = base.assumingMemoryBound(to: UInt8.self)
    }

    /// The threads a whole-file decode with `options` may use for its scans; nil for one.
    static func threads(for options: JPEGDecodingOptions) -> Int? {
        let wanted = options.threads ?? Processors.online
        return wanted > 1 ? wanted : nil
    }

    /// Scans handed over so far.
    var count: Int {
        gate.lock()
        defer { gate.unlock() }
        return scans.count
    }

    /// Hands over a scan: its data starts at file offset `start`, its end marker `marker` bytes on.
    func add(plan: ScanPlan, start: Int, marker: Int, planes: UnsafeMutablePointer<UnsafeMutablePointer<Int16>>) {
        let rows = plan.mcusWide > 0 ? (plan.mcuCount + plan.mcusWide - 1) / plan.mcusWide : 0
        var state = EntropyState()
        state.restartsToGo = plan.restartInterval
        gate.lock()
        var dependencies: [(scan: Int, theirs: Int, ours: Int)] = []
        for c in plan.components {
            guard let i = scans.lastIndex(where: { $0.plan.components.contains { $0.index == c.index } }),
                  let e = scans[i].plan.components.first(where: { $0.index == c.index }) else { continue }
            dependencies.append((i, scans[i].plan.interleaved ? e.v : 1, plan.interleaved ? c.v : 1))
        }
        scans.append(Scan(plan: plan, start: start, marker: marker, planes: planes, rows: rows, dependencies: dependencies))
        states.append(state)
        progress.append(0)
        running.append(false)
        unfinished += 1
        let start = workers < threads - 1
        if start { workers = threads - 1 }
        gate.broadcast()
        gate.unlock()
        if start {
            for _ in 0 ..< threads - 1 { DispatchQueue.global().async { self.work(draining: false) } }
        }
    }

    /// Decodes on the caller's thread with the workers until every scan handed over is done.
    /// True when every one ended as the marker loop assumed.
    func drain() -> Bool {
        work(draining: true)
        gate.lock()
        let clean = !failed
        gate.unlock()
        return clean
    }

    /// Renders the final pass in `needs.count` pieces (`body(i)`), each once every scan has
    /// finished the block rows it reads (`needs[i][c]` of frame component `c`), on the workers
    /// and the caller's thread, beside the scans still decoding; then drains. True when every
    /// scan ended as the marker loop assumed (else the pieces not started are left undone).
    func renderAlongside(needs: [[Int]], body: @escaping @Sendable (Int) -> Void) -> Bool {
        gate.lock()
        render = (needs, body)
        renderTaken = 0
        renderFinished = 0
        gate.broadcast()
        gate.unlock()
        let clean = drain()
        gate.lock()
        render = nil
        gate.unlock()
        return clean
    }

    /// Whether every scan has finished the block rows `needs` of each frame component (under `gate`).
    private func renderReady(_ needs: [Int]) -> Bool {
        for (j, scan) in scans.enumerated() where progress[j] < scan.rows {
            for c in scan.plan.components where c.index < needs.count {
                if progress[j] &* (scan.plan.interleaved ? c.v : 1) < needs[c.index] { return false }
            }
        }
        return true
    }

    /// Lets idle workers go (no more scans come).
    func close() {
        gate.lock()
        closed = true
        gate.broadcast()
        gate.unlock()
    }

    /// Rows of scan `j` its earlier scans allow (under `gate`).
    private func allowedRows(_ j: Int) -> Int {
        let scan = scans[j]
        var allowed = scan.rows
        // A scan before `first` is finished, and so is every scan before it. Otherwise: MCU row R
        // touches the component's block rows up to (R + 1) * ours - 1, and the earlier scan has
        // finished those below progress * theirs; it decoded them only once the scans before it
        // had (the same rule), so they are final. (Padding rows past a finished earlier scan's
        // own wait for `first` to pass it.)
        for d in scan.dependencies where d.scan >= first {
            allowed = min(allowed, progress[d.scan] &* d.theirs / d.ours)
        }
        return allowed
    }

    /// Takes pieces of the scans (the first scan with a piece it may decode, so the scans
    /// follow each other down the image) until none is left, and with `draining` false, no
    /// more will come. Holds `gate` only between pieces.
    private func work(draining: Bool) {
        gate.lock()
        while true {
            if failed {
                // Abandoned: no new pieces; a drain waits for the ones in progress.
                if !draining || (!running.contains(true) && renderRunning == 0) { break }
                gate.wait()
                continue
            }
            let rendersLeft = render.map { $0.needs.count - renderFinished } ?? 0
            if unfinished == 0 && rendersLeft == 0 && (draining || closed) { break }
            var piece: (scan: Int, rows: Range<Int>)?
            // The first few unfinished scans (a scan further on would wait for them anyway).
            for j in first ..< min(scans.count, first + 4 * threads) where !running[j] && progress[j] < scans[j].rows {
                let allowed = allowedRows(j)
                if allowed > progress[j] {
                    piece = (j, progress[j] ..< min(allowed, progress[j] + Self.rowsPerPiece))
                    break
                }
            }
            if let (j, rows) = piece {
                running[j] = true
                let scan = scans[j]
                var state = states[j]
                gate.unlock()
                let clean = decode(scan, rows: rows, state: &state)
                gate.lock()
                states[j] = state
                running[j] = false
                progress[j] = clean ? rows.upperBound : scan.rows
                if !clean { failed = true }
                if progress[j] == scan.rows {
                    unfinished -= 1
                    while first < scans.count && progress[first] == scans[first].rows { first += 1 }
                }
                gate.broadcast()
            } else if let (needs, body) = render, renderTaken < needs.count, renderReady(needs[renderTaken]) {
                // The scans are past this piece of the final pass: render it (scan pieces first).
                let i = renderTaken
                renderTaken += 1
                renderRunning += 1
                gate.unlock()
                body(i)
                gate.lock()
                renderRunning -= 1
                renderFinished += 1
                gate.broadcast()
            } else {
                gate.wait()
            }
        }
        gate.unlock()
    }

    /// Decodes MCU rows `rows` of a scan from `state`; false when the scan does not go as the
    /// marker loop assumed (a warning, a step other than reaching the rows, or at its last row
    /// not ending as the one-thread decoder would leave a clean scan: every MCU, nothing
    /// skipped, the reader on the end marker's FF with less than a byte of padding left).
    private func decode(_ scan: Scan, rows: Range<Int>, state st: inout EntropyState) -> Bool {
        let plan = scan.plan
        var warnings: [String] = []
        let stop = min(rows.upperBound * plan.mcusWide, plan.mcuCount)
        let step = zigzagToNatural.withUnsafeBufferPointer { zigzag -> ScanStep in
            guard let zigzagBase = zigzag.baseAddress else { return .needMore }
            return MCULoop.run(&st, plan: plan, sink: .coefficients(scan.planes, nil), stop: stop, data: bytes + scan.start,
                               end: inputCount - scan.start, isFinal: false, baseOffset: scan.start, zigzag: zigzagBase,
                               warnings: &warnings)
        }
        guard step == .reached, warnings.isEmpty else { return false }
        guard rows.upperBound == scan.rows else { return true }
        let lastRestartSkipped = plan.restartInterval > 0 && (plan.mcuCount - 1) % plan.restartInterval == 0 && st.beganSkipping
        return st.mcu == plan.mcuCount && !st.skipping && !st.dataEnded && !lastRestartSkipped && st.garbage == 0
            && st.reader.count >= 0 && st.reader.count < 8 && st.reader.position == scan.marker && st.reader.damage == 0
    }
}

extension JPEGDecoder {
    /// The first `append` call, when the decoder may use more than one thread: an attempt to
    /// decode the file with its scans side by side, from a copy of this decoder. Nil when there is
    /// no attempt, or it was given up (a scan did not end cleanly): the caller then goes on with
    /// the decoder as it was, on one thread.
    mutating func appendWholeFile(_ bytes: UnsafeRawBufferPointer) throws(JPEGError) -> [DecodingEvent]? {
        guard phase == .start, input.count == 0, bytes.count > 0, let threads = ScanWorkers.threads(for: options) else { return nil }
        var attempt = self
        do {
            guard let events = try attempt.appendWithParallelScans(bytes, threads: threads) else { return nil }
            self = attempt
            return events
        } catch {
            self = attempt
            throw error
        }
    }

    /// The whole file in one call, its scans decoded side by side (``ScanWorkers``). `self` is a
    /// copy of the decoder before the call. Returns the events, or throws the decode's error, when
    /// every scan handed over ended as the marker loop assumed (or none was handed over: this was
    /// the one-thread decode); otherwise nil, and the caller starts over on one thread.
    mutating func appendWithParallelScans(_ bytes: UnsafeRawBufferPointer, threads: Int) throws(JPEGError) -> [DecodingEvent]? {
        guard let workers = ScanWorkers(input: bytes, threads: threads) else { return nil }
        scanWorkers = workers
        defer { workers.close() }
        input.append(contentsOf: bytes)
        var events: [DecodingEvent] = []
        var error: JPEGError?
        do {
            try run(&events)
        } catch let thrown {
            error = thrown
        }
        // An error from the marker loop, after scans that all ended cleanly, is the one-thread
        // decode's error too (the loop saw what it would have seen).
        guard workers.drain() else { return nil }
        scanWorkers = nil
        scansDecodedAhead = workers.count
        record(events)
        if let error {
            failure = error
            throw error
        }
        return events
    }

    /// Waits for the scans handed over; throws (any error: the caller starts over on one
    /// thread) when one did not end as the marker loop assumed.
    mutating func drainScans() throws(JPEGError) {
        guard let workers = scanWorkers else { return }
        guard workers.drain() else { throw .invalidOption("a scan decoded ahead did not end cleanly") }
    }

    /// Hands the current scan to the workers when its whole data is present and it may be
    /// decoded apart from the marker loop; then the loop goes on at its end marker as if the
    /// scan had ended cleanly there. False when the scan is to be decoded here.
    mutating func deferScan(_ plan: ScanPlan, _ events: inout [DecodingEvent]) -> Bool {
        guard let workers = scanWorkers, let geometry, mode == .coefficients, !plan.arithmetic, plan.mcuCount > 0,
              !coefficientState.store.isSpilled, rowOutput == nil, entropy.mcu == 0,
              input.offset() + input.count == workers.inputCount else { return false }
        if options.threads == nil && geometry.width * geometry.height < BandWorker.minimumPixels { return false }
        guard prepareCoefficientChange() == nil else { return false }
        let (found, marker) = input.withUnsafeUnread { bytes -> (Bool, Int) in
            guard let base = bytes.baseAddress else { return (false, 0) }
            return Self.findScanEnd(base, count: bytes.count, from: markerScan)
        }
        guard found else { return false }
        ownCoefficients()
        workers.add(plan: plan, start: input.offset(), marker: marker, planes: coefficientState.store.planes)
        input.consume(marker)
        retryAt = 0
        markerScan = 0
        entropy = EntropyState()
        scansCompleted += 1
        events.append(.scanComplete(scansCompleted - 1))
        self.plan = nil
        phase = .markers
        return true
    }

    /// Whether the final pass can follow the scans still decoding: a whole-image 8-bit render
    /// without block smoothing, whose pieces' pipelines fit `maxBytes` on every thread.
    func overlapsFinalPass(_ workers: ScanWorkers, frame: Frame, geometry: OutputGeometry) -> Bool {
        mode == .coefficients && !coefficientState.previewCache.isTracking && blockSmoothingPlan(frame: frame) == nil && geometry.bands >= 8
            && finalRenderParts(geometry) >= min(workers.threads, geometry.bands / 2)
    }

    /// The final pass in pieces of about 24 bands (at least one a thread), each rendered
    /// through a pipeline of its own (``renderBands(_:first:of:frame:geometry:smoothing:output:)``)
    /// once the scans are past the MCU rows it reads (its bands and the one after); nil when a
    /// scan did not end cleanly.
    func renderAlongside(_ workers: ScanWorkers, frame: Frame, geometry: OutputGeometry) -> Image? {
        var out = Image.unfilled(width: geometry.width, height: geometry.height, format: geometry.format, metadata: metadata)
        let bands = geometry.bands
        let pieces = max(1, min(bands / 4, max(workers.threads, bands / 24)))
        let needs = (0 ..< pieces).map { i in
            let last = min(bands * (i + 1) / pieces, bands - 1)
            return frame.components.map { min($0.paddedBlocksHigh, (last + 1) * $0.v) }
        }
        var clean = false
        out.pixels.withUnsafeMutableBufferPointer { outBuffer in
            guard let outBase = outBuffer.baseAddress else { return }
            let output = SendablePointer(pointer: outBase)
            let decoder = self
            clean = workers.renderAlongside(needs: needs) { i in
                decoder.renderBands(bands * i / pieces ..< bands * (i + 1) / pieces, first: i == 0, of: bands, frame: frame,
                                    geometry: geometry, smoothing: nil, output: output.pointer)
            }
        }
        return clean ? out : nil
    }
}
