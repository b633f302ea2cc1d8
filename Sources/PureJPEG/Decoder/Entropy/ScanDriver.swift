import ImageCore

/// The decoder's inner loop: runs the MCU loop over the bytes present, commits what completed,
/// turns finished MCU rows into output rows, and renders coefficient images.
extension JPEGDecoder {
    /// Runs the current scan as far as the input goes; true when it is complete.
    mutating func runScan(_ events: inout [DecodingEvent]) throws(JPEGError) -> Bool {
        if mode == .lossless { return try runLosslessScan(&events) }
        guard let plan else {
            if coefficientState.skipped != nil { return passOverScan(&events) }
            return skipEntropyData()
        }
        // Row mode: the band buffer still holds rows the caller has not taken.
        if rowOutput?.pending.isEmpty == false { return false }
        let isFinal = input.isFinished
        // Coefficient mode holds a scan's data back until the marker after it has arrived (then
        // the whole scan is decoded in one pass), unless it outgrows `heldScanLimit`.
        if mode == .coefficients && !isFinal && entropy.mcu == 0 && input.count <= coefficientState.heldScanLimit && !markerArrived() {
            return false
        }
        if !isFinal && input.count < retryAt && !markerArrived() { return false }
        if let worker = twoThreadWorker(plan) { return try runScanOnTwoThreads(plan, worker: worker, isFinal: isFinal, &events) }
        if scanWorkers != nil {
            // Decoded by the workers, or here after the scans before it.
            if deferScan(plan, &events) { return true }
            try drainScans()
        }
        let changes = mode == .coefficients ? prepareCoefficientChange() : nil
        while true {
            // A spilled store is decoded a band at a time, its pages dropped between bands.
            let stop = mode == .streaming
                ? min(plan.mcuCount, (entropy.mcu / plan.mcusWide + 1) * plan.mcusWide)
                : coefficientState.store.isSpilled ? min(plan.mcuCount, entropy.mcu + spillBandMCUs(plan)) : plan.mcuCount
            let firstMCU = entropy.mcu
            let (step, warnings) = decodeMCUs(plan, stop: stop, isFinal: isFinal, changes: changes, band: nil)
            let st = entropy
            if changes != nil { noteMarkedRows(plan, mcus: firstMCU ..< min(plan.mcuCount, st.mcu + 1)) }
            if mode == .coefficients { coefficientState.store.noteTouched(bytes: max(st.mcu - firstMCU, 0) * blocksPerMCU(plan) * 128) }
            for w in warnings { events.append(.warning(w)) }
            switch step {
            case .reached:
                retryAt = 0
                markerScan = 0
                var paused = false
                if mode == .streaming, rowOutput != nil {
                    // Row mode pauses after each band with rows, so the caller takes them before the buffer is reused.
                    let rows = emitRowBand((entropy.mcu - 1) / plan.mcusWide)
                    if !rows.isEmpty {
                        events.append(.rows(rows))
                        rowsDone = rows.upperBound
                        paused = true
                    }
                } else if mode == .streaming, var pipeline = streamState.pipeline, var image {
                    let band = (entropy.mcu - 1) / plan.mcusWide
                    self.streamState.pipeline = nil
                    self.image = nil
                    let rows = image.pixels.withUnsafeMutableBufferPointer { out in
                        out.baseAddress.map { pipeline.bandDone(band, output: $0) } ?? 0 ..< 0
                    }
                    self.streamState.pipeline = pipeline
                    self.image = image
                    if !rows.isEmpty {
                        events.append(.rows(rows))
                        rowsDone = rows.upperBound
                    }
                }
                if entropy.mcu >= plan.mcuCount {
                    completeScan(plan, &events)
                    return !paused
                }
                if paused { return false }
            case .needMore, .truncated:
                retryAt = input.count + 64
                markerScan = max(0, input.count - 1)
                return false
            case let .failed(error):
                throw error
            }
        }
    }

    /// Runs the MCU loop from `entropy.mcu` to `stop` over the bytes present and commits what
    /// it decoded (the input it used, the entropy state); the blocks go to `band` (two threads),
    /// else into the band rings (streaming) or the coefficient store. Returns the loop's step
    /// and the warnings it raised.
    mutating func decodeMCUs(_ plan: ScanPlan, stop: Int, isFinal: Bool, changes: UnsafeMutablePointer<UInt8>?,
                                     band: BandRecordRow?) -> (ScanStep, [String]) {
        var st = entropy
        var warnings: [String] = []
        let data = input
        let baseOffset = input.offset()
        var step = ScanStep.needMore
        var planes: [UInt8] = []
        // The band rings are moved out for the loop, so their pointer stays valid while self
        // changes; the coefficient store is a class whose memory does not move.
        if band != nil {
        } else if mode == .streaming {
            planes = streamState.pipeline?.planes ?? []
            streamState.pipeline?.planes = []
        } else {
            ownCoefficients()
        }
        let store = mode == .coefficients ? coefficientState.store : DecodedCoefficients.empty
        let sinkPipeline = streamState.pipeline
        // Arithmetic coding's statistics, moved out for the loop like the rings.
        var bins = arithmetic.bins
        arithmetic.bins = []
        defer { arithmetic.bins = bins }
        bins.withUnsafeMutableBufferPointer { binBuffer in
        let binBase = binBuffer.baseAddress
        tables.componentQuant.withUnsafeBufferPointer { quant in
            zigzagToNatural.withUnsafeBufferPointer { zigzag in
                planes.withUnsafeMutableBufferPointer { planeBuffer in
                    withExtendedLifetime(store) {
                        data.withUnsafeUnread { bytes in
                            guard let zigzagBase = zigzag.baseAddress, let quantBase = quant.baseAddress else { return }
                            let sink: BlockSink
                            if let band {
                                sink = .band(band)
                            } else if sinkPipeline != nil, let base = planeBuffer.baseAddress {
                                sink = .planes(base, quantBase)
                            } else if mode == .coefficients && store.counts.count == frame?.components.count {
                                sink = .coefficients(store.planes, changes)
                            } else {
                                return
                            }
                            let run = { (pointer: UnsafePointer<UInt8>, end: Int) -> ScanStep in
                                MCULoop.run(&st, plan: plan, sink: sink, stop: stop, data: pointer, end: end, isFinal: isFinal,
                                            baseOffset: baseOffset, zigzag: zigzagBase, bins: binBase,
                                            warnings: &warnings)
                            }
                            if let pointer = bytes.baseAddress {
                                step = run(pointer, bytes.count)
                            } else {
                                // No bytes at all: a one-byte stand-in the reader never reads (end is 0).
                                let empty: [UInt8] = [0]
                                step = empty.withUnsafeBufferPointer { b in b.baseAddress.map { run($0, 0) } ?? .needMore }
                            }
                        }
                    }
                }
            }
        }
        }
        // `planes = []` drops the local reference, or the band pipeline's next write to its
        // rings below would copy them (once per MCU row: 4.4 M instructions per 1 MP).
        if mode == .streaming && band == nil { streamState.pipeline?.planes = planes; planes = [] }
        input.consume(min(st.reader.position, input.count))
        st.reader.position = 0
        entropy = st
        return (step, warnings)
    }

    /// The scan's last MCU is in: its bookkeeping, and back to reading markers.
    mutating func completeScan(_ plan: ScanPlan, _ events: inout [DecodingEvent]) {
        // Whole bytes left unused in the bit buffer count as extraneous before the
        // next marker, as libjpeg's finish_pass counts them.
        markers.extraneousBytes += max(entropy.reader.count, 0) / 8
        scansCompleted += 1
        // From here on `beganSkipping` speaks for the scan's last MCU (block smoothing's last good row).
        if plan.restartInterval == 0 || (plan.mcuCount - 1) % plan.restartInterval != 0 { entropy.beganSkipping = false }
        if mode == .coefficients { events.append(.scanComplete(scansCompleted - 1)) }
        self.plan = nil
        phase = .markers
    }

    /// Blocks in one MCU of the scan.
    private func blocksPerMCU(_ plan: ScanPlan) -> Int {
        plan.interleaved ? plan.components.reduce(0) { $0 + $1.h * $1.v } : 1
    }

    /// MCUs of one pass over a spilled store: a quarter of its window.
    private func spillBandMCUs(_ plan: ScanPlan) -> Int {
        max(1, DecodedCoefficients.window / 4 / (blocksPerMCU(plan) * 128))
    }

    /// Tells the preview cache which block rows MCUs `mcus` of the scan cover (marks from this
    /// pass of the MCU loop, including an attempt it rolled back, are in them).
    private func noteMarkedRows(_ plan: ScanPlan, mcus: Range<Int>) {
        guard !mcus.isEmpty, plan.mcusWide > 0 else { return }
        let first = mcus.lowerBound / plan.mcusWide, last = (mcus.upperBound - 1) / plan.mcusWide
        coefficientState.previewCache.withLock { state in
            for c in plan.components {
                // An interleaved MCU row is v block rows of the component; otherwise an MCU is a block.
                let v = plan.interleaved ? c.v : 1
                state.noteMarked(c.index, rows: first * v ..< (last + 1) * v)
            }
        }
    }

    /// True when a marker that ends the scan (any but RSTn) has arrived since the last search.
    /// Each byte is looked at once over the calls: `markerScan` keeps where the search stopped.
    mutating func markerArrived() -> Bool {
        let from = markerScan
        let (found, next) = input.withUnsafeUnread { bytes -> (Bool, Int) in
            guard let base = bytes.baseAddress else { return (false, from) }
            return Self.findScanEnd(base, count: bytes.count, from: from)
        }
        markerScan = next
        return found
    }

    /// Searches `bytes[from...]` for 0xFF followed by a byte other than 0x00, 0xFF and RST0-7.
    /// Returns whether one was found, and where the next search should start (the last byte
    /// stays unsearched: its successor has not arrived). Sixteen bytes a step without 0xFF are
    /// passed over with one compare (entropy-coded data has few).
    /// With `passingCodesBelowC0` codes under 0xC0 are passed over too (a skipped scan with
    /// restart intervals, where libjpeg's resync discards them).
    static func findScanEnd(_ bytes: UnsafePointer<UInt8>, count: Int, from: Int,
                            passingCodesBelowC0: Bool = false) -> (found: Bool, next: Int) {
        var i = max(from, 0)
        let ff = SIMD16<UInt8>(repeating: 0xFF)
        while i &+ 1 < count {
            if i &+ 17 <= count {
                let v = UnsafeRawPointer(bytes + i).loadUnaligned(as: SIMD16<UInt8>.self)
                if !any(v .== ff) {
                    i &+= 16
                    continue
                }
            }
            if bytes[i] == 0xFF {
                let next = bytes[i &+ 1]
                if next != 0 && next != 0xFF && !(Marker.rst0 ... Marker.rst7).contains(next)
                    && !(passingCodesBelowC0 && next < 0xC0) { return (true, i) }
            }
            i &+= 1
        }
        return (false, i)
    }

    /// Skips a scan's data up to the next marker other than RSTn.
    private mutating func skipEntropyData() -> Bool {
        let (found, next) = input.withUnsafeUnread { bytes -> (Bool, Int) in
            guard let base = bytes.baseAddress else { return (false, 0) }
            return Self.findScanEnd(base, count: bytes.count, from: 0)
        }
        input.consume(next)
        if found { phase = .markers }
        return found
    }

    /// EOI: the coefficient image is rendered; a streaming image is complete already.
    mutating func endOfImage(offset: Int, _ events: inout [DecodingEvent]) throws(JPEGError) {
        if mode == .lossless {
            endLosslessImage(&events)
            return
        }
        guard let frame, let geometry, scansStarted > 0 else {
            // EOI before any scan: the image data is missing, as if the file were cut short (row mode: no partial image).
            throw .truncated(offset: offset, partial: rowOutput == nil ? preview() : nil)
        }
        if let workers = scanWorkers, rowOutput == nil, frame.precision == 8, overlapsFinalPass(workers, frame: frame, geometry: geometry) {
            // The final pass follows the scans still decoding (ParallelScans.swift).
            guard let rendered = renderAlongside(workers, frame: frame, geometry: geometry) else {
                throw .invalidOption("a scan decoded ahead did not end cleanly")
            }
            image = rendered
            events.append(.rows(0 ..< geometry.height))
            events.append(.end)
            phase = .done
            return
        }
        try drainScans()
        // The last iMCU row whose final-scan data arrived, for block smoothing (libjpeg's
        // last_good_iMCU_row): all of them unless a scan stopped early.
        let lastGoodRow = entropy.skipping || entropy.beganSkipping ? Int(entropy.lastGoodRow) : .max
        if frame.precision == 12 {
            // Rendered whole from the coefficients (TwelveBit.swift), smoothed as 8-bit frames
            // are; row mode hands the image out.
            image = renderTwelveBit(frame, final: true, lastGoodRow: lastGoodRow)
            releasePreviewCache()
            events.append(.rows(0 ..< geometry.height))
            events.append(.end)
            phase = .done
            return
        }
        if mode == .coefficients && rowOutput != nil {
            // Row mode: the final pass renders a band at a time as the caller takes the rows.
            startFinalRender(frame: frame, geometry: geometry, lastGoodRow: lastGoodRow)
            releasePreviewCache()
            events.append(.rows(0 ..< geometry.height))
        } else if mode == .coefficients {
            // A progressive file whose first AC coefficients are not all exact is smoothed as
            // djpeg smooths it (BlockSmoothing.swift); previews are not.
            image = smoothedRender(frame: frame, geometry: geometry, lastGoodRow: lastGoodRow)
                ?? cachedRender(frame: frame, geometry: geometry, fill: coefficientState.previewCache.isTracking)
            releasePreviewCache()
            events.append(.rows(0 ..< geometry.height))
        } else if rowsDone < geometry.height, rowOutput != nil {
            rowOutput?.gray = rowsDone ..< geometry.height
            events.append(.rows(rowsDone ..< geometry.height))
            rowsDone = geometry.height
        } else if rowsDone < geometry.height, var out = image {
            let start = rowsDone * out.bytesPerRow
            out.pixels.withUnsafeMutableBufferPointer { p in UnsafeMutableBufferPointer(rebasing: p[start...]).update(repeating: 128) }
            image = out
            events.append(.rows(rowsDone ..< geometry.height))
            rowsDone = geometry.height
        }
        events.append(.end)
        phase = .done
    }

    /// Bytes after EOI: a warning, or with ``JPEGLeniencies/dataAfterEnd`` left out, an error.
    mutating func dataAfterEnd(count: Int, _ events: inout [DecodingEvent]) throws(JPEGError) {
        guard markers.suppliedEOI == nil, !markers.reportedDataAfterEnd else { return }
        markers.reportedDataAfterEnd = true
        let offset = bytesConsumed
        if !options.leniencies.contains(.dataAfterEnd) { throw .dataAfterEnd(offset: offset) }
        events.append(.warning("data after EOI at offset \(offset) ignored"))
    }

    /// Renders the whole coefficient store: per MCU row, IDCT into the band rings, then the
    /// same upsampling and colour conversion as streaming. Cost: one IDCT per block.
    func render(frame: Frame, geometry: OutputGeometry) -> Image {
        renderWhole(frame: frame, geometry: geometry, smoothing: nil)
    }
}

