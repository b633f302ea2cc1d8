import ImageCore

extension JPEGDecoder {
    /// ``runScanOnTwoThreads(_:worker:isFinal:_:)`` for a whole image (not row mode), for the
    /// bytes present: the worker reconstructs MCU row after MCU row as this thread counts them decoded
    /// (``BandWorker/startRows``), and this thread decodes up to the ring's length ahead of it,
    /// waiting only for a band the worker still reads. Batches handed over whole made each
    /// side wait for the other at every hand-over whenever one batch took longer to decode
    /// than the other to reconstruct; here a row heavy in entropy-coded data and one heavy
    /// elsewhere even out within the ring. The movable work (``BandWorker/share``) follows how
    /// far the worker is behind (``BandWorker/adapt(lag:)``).
    ///
    /// Events keep the one-thread order as the batches do: a row's warnings come after the
    /// `.rows` of the rows before it, and every decoded row is finished before this returns.
    /// Nil when no thread can be had (the caller then hands over batches or works alone).
    mutating func runRowsOnTwoThreads(_ plan: ScanPlan, worker: BandWorker, base: UnsafeMutablePointer<UInt8>, count: Int,
                                      isFinal: Bool, _ events: inout [DecodingEvent]) -> Result<Bool, JPEGError>? {
        let firstRow = entropy.mcu / plan.mcusWide
        let decoded = ProgressCounter(firstRow), done = ProgressCounter(firstRow)
        guard worker.startRows(from: firstRow, output: SendablePointer(pointer: base), decoded: decoded, done: done) else {
            return nil
        }
        let ring = worker.ringRows
        var emitted = firstRow
        // The `.rows` events of MCU rows up to `row` (not included), waiting for the worker.
        func emit(upTo row: Int, _ events: inout [DecodingEvent]) {
            guard row > emitted else { return }
            _ = done.wait(for: row)
            while emitted < row {
                let rows = worker.finishedRows(of: emitted)
                if !rows.isEmpty {
                    events.append(.rows(rows))
                    rowsDone = rows.upperBound
                }
                emitted += 1
            }
        }
        // Every decoded row reconstructed and reported; the worker's job over.
        func finish(_ events: inout [DecodingEvent]) {
            let last = decoded.count
            decoded.end()
            worker.finishRows()
            emit(upTo: last, &events)
        }
        while true {
            let row = entropy.mcu / plan.mcusWide
            // Row `row` takes the ring band of row `row - ring`.
            emit(upTo: row - ring + 1, &events)
            if row & 3 == 0 { worker.adapt(lag: row - done.count) }
            let (step, warnings) = decodeRowForWorker(plan, worker: worker, row: row, isFinal: isFinal, base: base, count: count)
            if !warnings.isEmpty {
                // The rows before this one come first.
                emit(upTo: row, &events)
                for w in warnings { events.append(.warning(w)) }
            }
            switch step {
            case .reached:
                decoded.raise(to: row + 1)
                if entropy.mcu >= plan.mcuCount {
                    finish(&events)
                    completeScan(plan, &events)
                    streamState.bandWorker = nil
                    return .success(true)
                }
            case .needMore, .truncated:
                finish(&events)
                return .success(false)
            case let .failed(error):
                finish(&events)
                return .failure(error)
            }
        }
    }

    /// Entropy-decodes MCU row `row` (from where the scan stands) into its band for the worker,
    /// for both ways of handing rows over; returns the step and the row's warnings, which the
    /// caller reports after the rows before it. A complete row gets the decoding thread's share
    /// of its movable work; a row short of bytes sets when to try again.
    mutating func decodeRowForWorker(_ plan: ScanPlan, worker: BandWorker, row: Int, isFinal: Bool,
                                     base: UnsafeMutablePointer<UInt8>?, count: Int) -> (ScanStep, [String]) {
        let stop = min(plan.mcuCount, (row + 1) * plan.mcusWide)
        let (step, warnings) = decodeMCUs(plan, stop: stop, isFinal: isFinal, changes: nil, band: worker.band(row: row))
        worker.noteDecoded(row: row, count: entropy.mcu - row * plan.mcusWide)
        switch step {
        case .reached:
            retryAt = 0
            markerScan = 0
            worker.transformAhead(row: row)
            if let base, worker.touchesPages(row: row) { touchPages(ofBand: row, in: base, count: count) }
        case .needMore, .truncated:
            retryAt = input.count + 64
            markerScan = max(0, input.count - 1)
        case .failed:
            break
        }
        return (step, warnings)
    }

    /// Writes a byte into each page of the output rows of MCU row `band` before the worker
    /// gets it, so the kernel's zeroing of fresh pages (a sixth of a one-thread decode) falls
    /// on this thread, which has less to do than the worker. The worker is writing earlier
    /// rows meanwhile; it overwrites these bytes, and rows never written are filled before
    /// they are seen (``Image/unfilled(width:height:format:metadata:)``).
    func touchPages(ofBand band: Int, in base: UnsafeMutablePointer<UInt8>, count: Int) {
        guard let geometry else { return }
        let rowBytes = geometry.width * geometry.format.bytesPerPixel
        let start = min(band * geometry.bandRows * rowBytes, count)
        let end = min(start + geometry.bandRows * rowBytes, count)
        var offset = start
        while offset < end {
            base[offset] = 0
            offset &+= 4096
        }
    }
}
