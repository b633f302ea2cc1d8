import ImageCore

/// Reconstruction of a sequential scan's MCU rows on a second thread (streaming mode): the
/// decoder's thread entropy-decodes MCU row n + 1 into one of two coefficient bands while this
/// worker runs the IDCT of row n into the band rings and upsamples and colour-converts what
/// that finishes into the image (``BandPipeline``), in order, one row at a time.
///
/// The work is shared out so that both threads have about as much: with three or more
/// components the decoding thread also runs the first component's IDCTs (``transformAhead(row:)``,
/// into ``samples``, two batches like the coefficients) and the worker copies those blocks into
/// the ring. For 4:2:0 the entropy decoding is about 30% of a one-thread decode and the IDCTs
/// another 30%, two thirds of them luma; without the split the worker had 70% of the work
/// and two threads could not beat 1.43 times one.
///
/// `@unchecked Sendable`: the decoder hands the worker batches of rows (``submit``) and waits
/// for each before handing the next or reading ``pipeline``, or, for a whole image, counts rows
/// decoded through a ``ProgressCounter`` (``startRows``) and waits for the job before reading
/// ``pipeline``; the coefficient band being decoded is never the one being reconstructed (a
/// ring of two batches: the decoder waits for row n before it decodes the row that takes row
/// n's band). The quantization tables and block layout are the worker's own copies, fixed for
/// the scan.
final class BandWorker: @unchecked Sendable {
    /// The band pipeline, moved in from the decoder while a call decodes (so its rings are
    /// never shared and copied on write) and back out before the call returns.
    var pipeline: BandPipeline?
    private let blocks: [PlaneBlock]
    private let idcts: [@Sendable (UnsafePointer<Int16>, UnsafePointer<UInt16>, UnsafeMutablePointer<UInt8>, Int) -> Void]
    private let quant: UnsafeMutablePointer<UInt16>
    /// Two batches of ``rowsPerBatch`` bands of one MCU row of coefficients each, as compact
    /// records (``BandRecords``, at most ``bandValues`` Int16 values a band); for each band
    /// the start of every MCU's records (``BandRecordRow``), and how many of its MCUs were decoded
    /// (the rest are zero: a scan that ended early).
    let records: UnsafeMutablePointer<Int16>
    let bandValues: Int
    private let offsets: UnsafeMutablePointer<Int32>
    private let decodedMCUs: UnsafeMutablePointer<Int>
    /// An MCU's blocks in natural order for each side (zero between uses): a record is
    /// expanded into them for the IDCTs, by the worker (``reconstruct(row:output:origin:)``,
    /// the first half) and by the decoding thread (``transformAhead(row:)``, the second). A whole
    /// MCU is expanded before its first IDCT, so the IDCT's vector loads do not wait for the
    /// expansion's 2-byte stores to leave the store buffer.
    private let scratch: UnsafeMutablePointer<Int16>
    /// MCU rows handed over at once: about 1 MiB of output (fewer hand-overs, each a chance for
    /// one thread to wait for the other: a 12 MP 4:2:0 decode on two threads ran 390 MP/s with
    /// 256 KiB batches against 407 in eight alternating runs), and at most a sixteenth of the
    /// image, so that the last batch, which the decoding thread waits for, stays short.
    let rowsPerBatch: Int
    /// The thread that reconstructs (started at the first hand-over, ended with the worker),
    /// and the rows its last batch finished, read after waiting for it.
    private var thread: HandoffWorker?
    private var finished: [Range<Int>] = []
    /// A batch is on the worker (row mode keeps one there while the caller takes the rows of
    /// the batch before), and the row slot it writes.
    var inFlight = false
    var inFlightSlot = 0
    /// Row mode: the slot the next batch writes (the two alternate), and the MCU rows decoded
    /// but not yet handed over when the decoder paused for the caller to take rows.
    var nextSlot = 0
    var heldBatch: Range<Int>?
    private let mcusWide: Int
    /// Indices in ``blocks`` (within an MCU) of the blocks the decoding thread transforms (the
    /// first component's), and their sample block size (8, or 4, 2, 1 when the decode is scaled).
    private let aheadBlocks: [Int]
    private let aheadSize: Int
    /// Two batches of ``rowsPerBatch`` MCU rows of those blocks' samples, 64 bytes a block.
    private let samples: UnsafeMutablePointer<UInt8>
    private let sampleBandBytes: Int
    /// For each band of the ring, whether the decoding thread transformed its first component
    /// (written by the decoding thread before the band is handed over, read by the worker).
    private let aheadFlags: UnsafeMutablePointer<Bool>
    /// For each band of the ring, the output rows its MCU row finished (``startRows``: written
    /// by the worker before it counts the row done, read by the decoding thread after).
    private let rowRanges: UnsafeMutablePointer<Range<Int>>
    /// The decoding thread's share of the movable work, in eighths of the rows: the first
    /// ``share`` quarters of every four rows have their output pages touched on the decoding
    /// thread, and the first `share - 4` quarters their first component transformed there.
    /// It follows who waits (``adapt()``), so the split suits the machine: where the kernel's
    /// page zeroing is dear the worker takes more of the IDCTs.
    private(set) var share: Int
    private let maximumShare: Int

    /// A worker for `plan` (a sequential scan of every component in streaming mode), or nil
    /// when a component has no table or kernel (the one-thread loop reports that).
    init?(plan: ScanPlan, componentQuant: [UInt16], outputBytesPerRow: Int) {
        let quant = UnsafeMutablePointer<UInt16>.allocate(capacity: 4 * JPEGKernels.quantStride)
        quant.initialize(repeating: 0, count: 4 * JPEGKernels.quantStride)
        componentQuant.withUnsafeBufferPointer { q in
            if let base = q.baseAddress { quant.update(from: base, count: min(q.count, 4 * JPEGKernels.quantStride)) }
        }
        let blocks = PlaneBlock.blocks(of: plan, quant: quant)
        guard plan.kind == .sequential, !blocks.isEmpty else {
            quant.deallocate()
            return nil
        }
        self.quant = quant
        self.blocks = blocks
        idcts = plan.idcts
        mcusWide = plan.mcusWide
        bandValues = plan.mcusWide * blocks.count * BandRecords.maximumRecord
        rowsPerBatch = Self.rowsPerBatch(outputBytesPerRow: outputBytesPerRow, mcuRows: plan.mcuCount / max(plan.mcusWide, 1))
        // Left uninitialized: a band is read only as far as it was written (its pages are
        // touched as records fill them, so the worst-case reservation costs no memory).
        records = .allocate(capacity: 2 * rowsPerBatch * bandValues)
        offsets = .allocate(capacity: 2 * rowsPerBatch * (mcusWide + 1))
        offsets.initialize(repeating: 0, count: 2 * rowsPerBatch * (mcusWide + 1))
        decodedMCUs = .allocate(capacity: 2 * rowsPerBatch)
        decodedMCUs.initialize(repeating: 0, count: 2 * rowsPerBatch)
        scratch = .allocate(capacity: 2 * blocks.count * 64)
        scratch.initialize(repeating: 0, count: 2 * blocks.count * 64)
        // The first component's blocks go to the decoding thread when there are others to
        // keep the worker busy (gray stays as it was: the worker's share would be a copy).
        let ahead = plan.components.count >= 3 ? blocks.indices.filter { blocks[$0].predictor == 0 } : []
        aheadBlocks = ahead
        aheadSize = plan.components[0].blockSize
        sampleBandBytes = plan.mcusWide * ahead.count * 64
        samples = .allocate(capacity: max(1, 2 * rowsPerBatch * sampleBandBytes))
        samples.initialize(repeating: 0, count: max(1, 2 * rowsPerBatch * sampleBandBytes))
        aheadFlags = .allocate(capacity: 2 * rowsPerBatch)
        aheadFlags.initialize(repeating: false, count: 2 * rowsPerBatch)
        rowRanges = .allocate(capacity: 2 * rowsPerBatch)
        rowRanges.initialize(repeating: 0 ..< 0, count: 2 * rowsPerBatch)
        maximumShare = ahead.isEmpty ? 4 : 8
        share = min(Self.initialShare, maximumShare)
    }

    /// A copy for a decoder copy: the coefficient bands (a row decoded in part) and tables.
    private init(copying other: BandWorker) {
        let quantCount = JPEGKernels.quantStride * 4
        let quant = UnsafeMutablePointer<UInt16>.allocate(capacity: quantCount)
        quant.initialize(from: other.quant, count: quantCount)
        // The same layout over this copy's tables.
        blocks = other.blocks.map { b in
            var b = b
            b.quant = UnsafePointer(quant) + (b.quant - UnsafePointer(other.quant))
            return b
        }
        self.quant = quant
        idcts = other.idcts
        mcusWide = other.mcusWide
        bandValues = other.bandValues
        rowsPerBatch = other.rowsPerBatch
        records = .allocate(capacity: 2 * rowsPerBatch * bandValues)
        offsets = .allocate(capacity: 2 * rowsPerBatch * (mcusWide + 1))
        offsets.initialize(from: other.offsets, count: 2 * rowsPerBatch * (mcusWide + 1))
        decodedMCUs = .allocate(capacity: 2 * rowsPerBatch)
        decodedMCUs.initialize(from: other.decodedMCUs, count: 2 * rowsPerBatch)
        for band in 0 ..< 2 * rowsPerBatch {
            // The records of the MCUs decoded (what the worker may read).
            let written = Int(offsets[band * (mcusWide + 1) + decodedMCUs[band]])
            (records + band * bandValues).initialize(from: other.records + band * bandValues, count: written)
        }
        scratch = .allocate(capacity: 2 * blocks.count * 64)
        scratch.initialize(repeating: 0, count: 2 * blocks.count * 64)
        aheadBlocks = other.aheadBlocks
        aheadSize = other.aheadSize
        sampleBandBytes = other.sampleBandBytes
        samples = .allocate(capacity: max(1, 2 * rowsPerBatch * sampleBandBytes))
        samples.initialize(from: other.samples, count: max(1, 2 * rowsPerBatch * sampleBandBytes))
        aheadFlags = .allocate(capacity: 2 * rowsPerBatch)
        aheadFlags.initialize(from: other.aheadFlags, count: 2 * rowsPerBatch)
        rowRanges = .allocate(capacity: 2 * rowsPerBatch)
        rowRanges.initialize(repeating: 0 ..< 0, count: 2 * rowsPerBatch)
        maximumShare = other.maximumShare
        share = other.share
        nextSlot = other.nextSlot
        heldBatch = other.heldBatch
    }

    func copy() -> BandWorker { BandWorker(copying: self) }

    deinit {
        thread?.close()
        quant.deallocate()
        records.deallocate()
        offsets.deallocate()
        decodedMCUs.deallocate()
        scratch.deallocate()
        samples.deallocate()
        aheadFlags.deallocate()
        rowRanges.deallocate()
    }

    /// MCU rows a batch holds for output rows of `outputBytesPerRow` bytes an MCU row.
    static func rowsPerBatch(outputBytesPerRow: Int, mcuRows: Int) -> Int {
        max(1, min(16, (1 << 20) / max(outputBytesPerRow, 1), mcuRows / 16))
    }

    /// Below this many output pixels `threads: nil` reconstructs on the decoding thread: the
    /// hand-over per MCU row (a few microseconds) would eat the gain.
    static let minimumPixels = 1 << 19

    /// Starts reconstructing `rows` on the worker's thread; false when no thread can be had
    /// (the caller then does it itself). The batch before must have been collected.
    /// `output` holds output row `origin` and those after it (0: the whole image); `keep` is
    /// held until the batch is done (row mode's slots).
    func submit(rows: Range<Int>, output: SendablePointer, origin: Int = 0, keep: RowSlots? = nil) -> Bool {
        if thread == nil { thread = HandoffWorker() }
        guard let thread else { return false }
        thread.submit {
            self.finished = withExtendedLifetime(keep) { self.reconstruct(rows: rows, output: output.pointer, origin: origin) }
        }
        return true
    }

    /// MCU rows the ring holds: the decoding thread may run this many rows ahead of the worker.
    var ringRows: Int { 2 * rowsPerBatch }

    /// Starts the worker on every MCU row from `firstRow` on, one at a time as `decoded`
    /// counts it decoded, until `decoded` ends; each row's finished output rows go to
    /// ``finishedRows(of:)`` before `done` counts it. False when no thread can be had.
    func startRows(from firstRow: Int, output: SendablePointer, decoded: ProgressCounter, done: ProgressCounter) -> Bool {
        if thread == nil { thread = HandoffWorker() }
        guard let thread else { return false }
        thread.submit {
            var row = firstRow
            while case let ready = decoded.wait(for: row + 1), ready > row {
                while row < ready {
                    self.rowRanges[self.ringIndex(row)] = self.reconstruct(row: row, output: output.pointer)
                    row += 1
                    done.raise(to: row)
                }
            }
        }
        return true
    }

    /// The output rows MCU row `row` finished (``startRows``), once `done` has counted it and
    /// before the decoding thread decodes the row that takes its place in the ring.
    func finishedRows(of row: Int) -> Range<Int> { rowRanges[ringIndex(row)] }

    /// Waits for the worker's job (``startRows``: after `decoded` ended).
    func finishRows() { thread?.wait() }

    /// ``adapt()`` for ``startRows``: with `lag` rows decoded and not yet reconstructed, a
    /// worker half the ring behind takes an eighth less, one that has caught up an eighth more.
    func adapt(lag: Int) {
        if lag >= rowsPerBatch {
            share = min(maximumShare, share + 1)
        } else if lag <= 1 {
            share = max(0, share - 1)
        }
    }

    /// Memory held beside the decoder's: two batches of coefficient and sample bands.
    var retainedBytes: Int { 2 * rowsPerBatch * (bandValues * 2 + (mcusWide + 1) * 4 + sampleBandBytes) }

    /// Waits for the batch handed over last and returns the output rows it finished.
    func collect() -> [Range<Int>] {
        thread?.wait()
        defer { finished = [] }
        return finished
    }

    /// MCU row `row`'s place in the ring of two batches (coefficient and sample bands, flags).
    private func ringIndex(_ row: Int) -> Int { row % ringRows }

    /// The coefficient band of MCU row `row` (a ring of two batches).
    func band(row: Int) -> BandRecordRow {
        BandRecordRow(records: records + ringIndex(row) * bandValues, offsets: offsets + ringIndex(row) * (mcusWide + 1))
    }

    /// Records that the first `count` MCUs of row `row` are decoded (the decoding thread, after
    /// each call that decoded into its band, before the row is handed over).
    func noteDecoded(row: Int, count: Int) { decodedMCUs[ringIndex(row)] = Swift.max(0, Swift.min(count, mcusWide)) }

    /// The sample band of MCU row `row` (the same ring of two batches as ``band(row:)``).
    private func sampleBand(row: Int) -> UnsafeMutablePointer<UInt8> {
        samples + ringIndex(row) * sampleBandBytes
    }

    /// Runs, on the decoding thread, the IDCTs of MCU row `row`'s first-component blocks (its
    /// coefficients complete) into ``samples`` when ``share`` gives them to this thread;
    /// ``reconstruct(row:output:)`` copies them, or transforms them itself when not.
    func transformAhead(row: Int) {
        let here = !aheadBlocks.isEmpty && row & 3 < share - 4
        aheadFlags[ringIndex(row)] = here
        if !here { return }
        var record = UnsafePointer(band(row: row).records)
        let target = sampleBand(row: row), valid = decodedMCUs[ringIndex(row)]
        let ahead = aheadBlocks.count, mcu = scratch + blocks.count * 64
        blocks.withUnsafeBufferPointer { layout in
            do {
                for mx in 0 ..< mcusWide {
                    // The first component's blocks (the first `ahead` of the MCU) are expanded;
                    // the others are the worker's, passed over.
                    if mx < valid {
                        for i in 0 ..< layout.count {
                            record = i < ahead ? BandRecords.expand(record, into: mcu + i &* 64)
                                : BandRecords.skip(record)
                        }
                    }
                    for j in 0 ..< ahead {
                        let b = layout[j], block = mcu + j &* 64
                        let out = target + (mx &* ahead &+ j) &* 64
                        if b.kernel < 0 {
                            IDCTSIMD.idct8x8(block, b.quant, out, 8)
                        } else {
                            idcts[b.kernel](block, b.quant, out, 8)
                        }
                        block.update(repeating: 0, count: 64)
                    }
                }
            }
        }
    }

    /// Whether the decoding thread touches the output pages of MCU row `row` (``share``).
    func touchesPages(row: Int) -> Bool { row & 3 < share }

    /// Where the decoding thread would move movable work, at a hand-over of a full batch: a
    /// worker still busy with the batch before means this thread is the faster and takes
    /// an eighth more; an idle one, an eighth less. The split moves by one step a batch (a
    /// 12 MP 4:2:0 decode has about forty batches), so it settles near even whatever the
    /// machine. Which thread transforms or touches a row does not change any output byte.
    ///
    /// Measured splits (sampled profiles of one 12 MP 4:2:0 decode): on a Zen 4 machine the
    /// worker had the longer stage unless the decoding thread zeroed every page and ran three
    /// quarters of the luma IDCTs (the fixed split this replaces); on an Ice Lake machine,
    /// where the kernel's page zeroing costs about half as much again, that fixed split left
    /// the decoding thread about 40% longer than the worker.
    func adapt() {
        guard let thread else { return }
        share = thread.isIdle ? max(0, share - 1) : min(maximumShare, share + 1)
    }

    /// The split a decode starts from: pages touched and three quarters of the luma IDCTs.
    static let initialShare = 7

    /// Reconstructs MCU rows `rows` in order; returns the output rows each finishes (one
    /// `.rows` event a row, as on one thread).
    func reconstruct(rows: Range<Int>, output: UnsafeMutablePointer<UInt8>, origin: Int = 0) -> [Range<Int>] {
        rows.map { reconstruct(row: $0, output: output, origin: origin) }
    }

    /// Reconstructs MCU row `row` from its band into the rings, then emits what that row
    /// finishes into `output` (the whole image); returns those output rows.
    func reconstruct(row: Int, output: UnsafeMutablePointer<UInt8>, origin: Int = 0) -> Range<Int> {
        let ahead = sampleBand(row: row), valid = decodedMCUs[ringIndex(row)]
        let blocks = self.blocks, idcts = self.idcts, mcusWide = self.mcusWide
        let copies = aheadFlags[ringIndex(row)], size = aheadSize
        let ring = row % 3, mcu = scratch
        pipeline?.planes.withUnsafeMutableBufferPointer { planes in
            guard let base = planes.baseAddress else { return }
            blocks.withUnsafeBufferPointer { layout in
                do {
                    var record = UnsafePointer(band(row: row).records), done = UnsafePointer(ahead)
                    for mx in 0 ..< mcusWide {
                        if mx < valid {
                            for i in 0 ..< layout.count {
                                record = copies && layout[i].predictor == 0 ? BandRecords.skip(record)
                                    : BandRecords.expand(record, into: mcu + i &* 64)
                            }
                        }
                        for i in 0 ..< layout.count {
                            let b = layout[i], block = mcu + i &* 64
                            let target = base + (b.offset &+ ring &* b.bandBytes &+ mx &* b.stepX)
                            if copies && b.predictor == 0 {
                                // Transformed on the decoding thread: copy its rows in.
                                if size == 8 {
                                    let from = UnsafeRawPointer(done), to = UnsafeMutableRawPointer(target)
                                    for y in 0 ..< 8 {
                                        to.storeBytes(of: from.loadUnaligned(fromByteOffset: y &* 8, as: UInt64.self),
                                                      toByteOffset: y &* b.stride, as: UInt64.self)
                                    }
                                } else {
                                    for y in 0 ..< size {
                                        for x in 0 ..< size { target[y &* b.stride &+ x] = done[y &* 8 &+ x] }
                                    }
                                }
                                done += 64
                                continue
                            }
                            if b.kernel < 0 {
                                IDCTSIMD.idct8x8(block, b.quant, target, b.stride)
                            } else {
                                idcts[b.kernel](block, b.quant, target, b.stride)
                            }
                            block.update(repeating: 0, count: 64)
                        }
                    }
                }
            }
        }
        return pipeline?.bandDone(row, output: output, origin: origin) ?? 0 ..< 0
    }
}

/// A pointer handed to the worker thread (the image's pixels while a scan decodes, see
/// ``JPEGDecoder/runScanOnTwoThreads(_:_:)``).
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
}

extension JPEGDecoder {
    /// MCU rows of a streaming scan reconstructed on a second thread: when ``JPEGDecodingOptions/threads``
    /// allows it (nil: from ``BandWorker/minimumPixels`` up, with a second processor), for a
    /// whole-image decode and for row mode (whose batches of rows go to ``RowSlots``).
    mutating func twoThreadWorker(_ plan: ScanPlan) -> BandWorker? {
        guard mode == .streaming, let geometry, plan.kind == .sequential else { return nil }
        if streamState.bandWorker != nil {
            // A batch on the worker (which its job holds, with the slots) stays there across
            // the calls of one row-mode drain, during which nothing can copy the decoder; at any
            // other time a decoder copy may share these, and one of the two copies them. (No
            // binding of the worker here: it would count as a second reference.)
            if streamState.bandWorker?.inFlight == true { return streamState.bandWorker }
            if !isKnownUniquelyReferenced(&streamState.bandWorker) { streamState.bandWorker = streamState.bandWorker?.copy() }
            if var slots = rowOutput?.slots {
                rowOutput?.slots = nil
                if !isKnownUniquelyReferenced(&slots) { slots = slots.copy() }
                rowOutput?.slots = slots
            }
            return streamState.bandWorker
        }
        guard image != nil || rowOutput != nil, streamState.pipeline != nil else { return nil }
        // Decided at the scan's first MCU and kept: a row half decoded waits in the worker's band.
        guard entropy.mcu == 0 else { return nil }
        let wanted = options.threads.map { $0 > 1 }
            ?? (Processors.online > 1 && geometry.width * geometry.height >= BandWorker.minimumPixels)
        guard wanted else { return nil }
        let rowBytes = geometry.width * geometry.format.bytesPerPixel
        let outputBytesPerRow = geometry.bandRows * rowBytes
        // The worker's two batches of coefficient bands count against maxBytes beside the image
        // (or row mode's band buffer and slots) and the rings; where they do not fit, the scan
        // stays on one thread.
        let batchRows = BandWorker.rowsPerBatch(outputBytesPerRow: outputBytesPerRow, mcuRows: plan.mcuCount / max(plan.mcusWide, 1))
        var blocksPerMCU = 0
        for c in frame?.components ?? [] { blocksPerMCU += c.h * c.v }
        // Coefficients (128 bytes a block) and the first component's samples (64 bytes a block).
        let aheadPerMCU = plan.components.count >= 3 ? (frame?.components.first.map { $0.h * $0.v } ?? 0) : 0
        var workerBytes = 2 * batchRows * plan.mcusWide * (blocksPerMCU * 128 + aheadPerMCU * 64)
        // Row mode: a batch emits its rows and the band before them (the vertical filter's lag).
        let slotBytes = (batchRows + 1) * outputBytesPerRow
        var bytesPerPixel = geometry.format.bytesPerPixel
        if let rowOutput {
            bytesPerPixel = 0
            workerBytes += rowOutput.buffer.count + 2 * slotBytes
        }
        guard limits.check(width: geometry.width, height: geometry.height, bytesPerPixel: bytesPerPixel,
                           extraBytes: geometry.workingBytes + workerBytes) == nil else { return nil }
        guard let worker = BandWorker(plan: plan, componentQuant: tables.componentQuant, outputBytesPerRow: outputBytesPerRow) else {
            return nil
        }
        if rowOutput != nil { rowOutput?.slots = RowSlots(slotBytes: slotBytes) }
        streamState.bandWorker = worker
        return worker
    }

    /// Row mode on two threads, after the caller's `rows` threw: waits for the batch on the
    /// worker and queues its rows, so that no thread runs while the decoder waits for a call.
    mutating func settleRowWorker() {
        guard let worker = streamState.bandWorker, worker.inFlight else { return }
        worker.inFlight = false
        for rows in worker.collect() where !rows.isEmpty {
            rowOutput?.add(rows, slot: worker.inFlightSlot)
            rowsDone = rows.upperBound
        }
        streamState.pipeline = worker.pipeline
        worker.pipeline = nil
    }

    /// ``runScan(_:)`` with reconstruction on a second thread: this thread entropy-decodes a
    /// batch of MCU rows while the worker reconstructs the batch before. Events keep the
    /// one-thread order: a row's warnings come after the `.rows` of the rows before it (so a
    /// row that raises one first sees the rows before it finished), and every row is finished
    /// before this returns or throws; so events, pixels and errors are the one-thread ones.
    ///
    /// Row mode: a batch's rows go to one of the two ``RowSlots`` (from output row `rowsDone`
    /// on), and the decoder pauses (returns false) whenever rows wait, so the caller takes them
    /// while the worker goes on with the next batch; that batch stays on the worker across the
    /// pause, and rows decoded but not handed over wait in ``BandWorker/heldBatch``. Every
    /// other return finishes the batch on the worker first.
    mutating func runScanOnTwoThreads(_ plan: ScanPlan, worker: BandWorker, isFinal: Bool,
                                      _ events: inout [DecodingEvent]) throws(JPEGError) -> Bool {
        let slots = rowOutput?.slots
        guard slots != nil || image != nil else { return false }
        var image = self.image
        self.image = nil
        if !worker.inFlight {
            worker.pipeline = streamState.pipeline
            streamState.pipeline = nil
        }
        defer {
            // Kept by the worker while its batch runs across a row-mode pause.
            if !worker.inFlight {
                streamState.pipeline = worker.pipeline
                worker.pipeline = nil
            }
            self.image = image
        }
        func scan(_ base: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Result<Bool, JPEGError> {
            if let base, slots == nil, !worker.inFlight, worker.heldBatch == nil,
               let outcome = runRowsOnTwoThreads(plan, worker: worker, base: base, count: count, isFinal: isFinal, &events) {
                return outcome
            }
            // Rows decoded and not yet handed over: the batch being filled.
            let firstRow = entropy.mcu / plan.mcusWide
            var batch = worker.heldBatch ?? firstRow ..< firstRow
            worker.heldBatch = nil
            func note(_ finished: [Range<Int>], slot: Int, _ events: inout [DecodingEvent]) {
                for rows in finished where !rows.isEmpty {
                    events.append(.rows(rows))
                    rowsDone = rows.upperBound
                    if slots != nil { rowOutput?.add(rows, slot: slot) }
                }
            }
            func finishInFlight(_ events: inout [DecodingEvent]) {
                guard worker.inFlight else { return }
                worker.inFlight = false
                note(worker.collect(), slot: worker.inFlightSlot, &events)
            }
            // Hands the batch to the worker (after the one before it), or with `here` does it on
            // this thread (no one to overlap with: the call is about to return).
            func handOver(here: Bool, _ events: inout [DecodingEvent]) {
                if !here && worker.inFlight { worker.adapt() }
                finishInFlight(&events)
                let rows = batch
                batch = rows.upperBound ..< rows.upperBound
                if rows.isEmpty { return }
                var output = base, origin = 0, slot = 0
                if let slots {
                    slot = worker.nextSlot
                    worker.nextSlot ^= 1
                    output = slots[slot]
                    origin = rowsDone
                }
                guard let output else { return }
                if !here && worker.submit(rows: rows, output: SendablePointer(pointer: output), origin: origin, keep: slots) {
                    worker.inFlight = true
                    worker.inFlightSlot = slot
                } else {
                    note(worker.reconstruct(rows: rows, output: output, origin: origin), slot: slot, &events)
                }
            }
            // Row mode decodes and hands over nothing while rows wait in the slots (both slots
            // may be in use), and pauses so that the caller takes them.
            func rowsWait() -> Bool { slots != nil && rowOutput?.pending.isEmpty == false }
            while true {
                if rowsWait() {
                    worker.heldBatch = batch
                    return .success(false)
                }
                if batch.count >= worker.rowsPerBatch {
                    // Full when the decoder paused after a row that made rows wait.
                    handOver(here: false, &events)
                    continue
                }
                let row = entropy.mcu / plan.mcusWide
                let (step, warnings) = decodeRowForWorker(plan, worker: worker, row: row, isFinal: isFinal, base: base, count: count)
                if !warnings.isEmpty {
                    // The rows before this one come first.
                    handOver(here: true, &events)
                    for w in warnings { events.append(.warning(w)) }
                }
                switch step {
                case .reached:
                    batch = batch.lowerBound ..< row + 1
                    if entropy.mcu >= plan.mcuCount {
                        handOver(here: true, &events)
                        completeScan(plan, &events)
                        streamState.bandWorker = nil
                        return .success(slots == nil || rowOutput?.pending.isEmpty != false)
                    }
                    if batch.count == worker.rowsPerBatch && !rowsWait() { handOver(here: false, &events) }
                case .needMore, .truncated:
                    handOver(here: true, &events)
                    return .success(false)
                case let .failed(error):
                    handOver(here: true, &events)
                    return .failure(error)
                }
            }
        }
        let outcome: Result<Bool, JPEGError>
        if slots != nil {
            outcome = scan(nil, 0)
        } else {
            outcome = image!.pixels.withUnsafeMutableBufferPointer { pixels in
                pixels.baseAddress == nil ? .success(false) : scan(pixels.baseAddress, pixels.count)
            }
        }
        return try outcome.get()
    }
}
