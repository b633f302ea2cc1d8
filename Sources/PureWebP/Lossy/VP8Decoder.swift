import ImageCore

/// A resumable VP8 key-frame decoder (RFC 6386), bit-exact with libwebp 1.2.4.
///
/// A value type: a copy is a rollback point. Feed it the `VP8 ` chunk payload as it grows with
/// `decode(_:isComplete:offset:rows:)`; it waits for the whole first partition (as libwebp's
/// incremental decoder does), then decodes macroblocks as far as the token partitions reach,
/// resuming at the macroblock where the bytes ran out, and lends each batch of final rows to the
/// `rows` callback. It keeps only the macroblock rows the loop filter and the upsampler need.
struct VP8Decoder: Sendable {
    let header: VP8Header
    let fancyUpsampling: Bool
    /// Headers and tokens of the rows parsed on a thread of their own, ahead of the
    /// reconstruction, filter and output (`WebPDecodingOptions.useThreads`).
    let useThreads: Bool
    /// With threads and an output, the worker writes every band it may, not only while it is
    /// ahead in its parse (tests).
    var workerWritesAllBands = false
    let limits: DecodingLimits
    private(set) var frame: VP8FrameHeader?
    /// Output rows already handed out; the decode is over when this reaches `header.height`.
    private(set) var rowsDelivered = 0
    var isFinished: Bool { rowsDelivered >= header.height && mbY >= header.macroblockHeight }

    // Parsing position.
    var firstPartition = VP8BoolState(position: 0, end: 0)
    var tokenPartitions: [VP8BoolState] = []
    var mbY = 0
    var mbX = 0
    var rowModesParsed = false
    /// Payload size needed before retrying a macroblock that ran out of bytes.
    var waitForBytes = 0
    /// The last token partition starts before the end of the bytes present (libwebp's
    /// ParsePartitions refuses the frame as incomplete otherwise).
    var lastPartitionPresent = false
    /// The chunk's own bytes have all been seen (the wait for more bytes ends there).
    var chunkSeenWhole = false

    // Contexts.
    var intraTop: [UInt8]
    var rowInfo: [UInt8]
    var rowModes: [UInt8]
    var nzTop: [UInt8]
    var nzDcTop: [UInt8]
    var nzLeft: UInt8 = 0
    var nzDcLeft: UInt8 = 0

    // Pixels.
    var work: [UInt8]
    var topSamples: [UInt8]
    var coefficients: [Int16]
    var cacheY: [UInt8] = []
    var cacheU: [UInt8] = []
    var cacheV: [UInt8] = []

    /// Rows kept above the current macroblock row in the caches: 2 for the fancy upsampler's
    /// look-back plus the loop filter's delay (libwebp's kFilterExtraRows: 0, 2, 8).
    static let historyRows = 2
    static let filterExtraRows = [0, 2, 8]

    /// Reads the frame header (first 10 bytes of the payload); `payloadSize` when known.
    static func readHeader(_ payload: UnsafeRawBufferPointer, offset: Int, payloadSize: Int? = nil) throws(WebPError) -> VP8Header {
        try VP8Header.read(payload, offset: offset, payloadSize: payloadSize)
    }

    /// A decoder for a frame of `header`; checks `limits` against the picture and the decoder's
    /// working memory before allocating.
    init(header: VP8Header, limits: DecodingLimits = .default, fancyUpsampling: Bool = true,
         useThreads: Bool = false) throws(WebPError) {
        self.header = header
        self.useThreads = useThreads
        self.fancyUpsampling = fancyUpsampling
        self.limits = limits
        let mbW = header.macroblockWidth
        // With threads, the ring of parsed rows besides: headers, coefficients, summaries.
        let threadRows = useThreads ? Self.ringRows * mbW * (VP8Modes.infoSize + 16 + 4 + 384 * 2 + 8) : 0
        let working = (useThreads ? Self.threadCacheSlots : 2) * mbW * 16 * (Self.historyRows + 8 + 16) * 3 / 2 + mbW * (32 + 16 + 16 + 16) + 4096 + threadRows
        if let violation = limits.check(width: header.width, height: header.height, bytesPerPixel: 0, extraBytes: working) {
            throw .limit(violation, offset: 0)
        }
        intraTop = [UInt8](repeating: 0, count: 4 * mbW)
        rowInfo = [UInt8](repeating: 0, count: VP8Modes.infoSize * mbW)
        rowModes = [UInt8](repeating: 0, count: 16 * mbW)
        nzTop = [UInt8](repeating: 0, count: mbW)
        nzDcTop = [UInt8](repeating: 0, count: mbW)
        work = [UInt8](repeating: 0, count: VP8MacroblockContext.workSize + 20 * 16)
        topSamples = [UInt8](repeating: 0, count: 32 * mbW + 32)
        coefficients = [Int16](repeating: 0, count: 384)
    }

    var filterType: Int { frame?.filter.type ?? 0 }
    var cacheLumaTop: Int { Self.historyRows + Self.filterExtraRows[filterType] }
    var cacheChromaTop: Int { cacheLumaTop / 2 }
    /// Macroblock rows the caches hold: one reconstructed while the one before is filtered, and
    /// with threads two more whose rows the worker may still be writing out.
    var cacheSlots: Int { useThreads ? Self.threadCacheSlots : 2 }
    static let threadCacheSlots = 4

    /// Decodes what `payload` (the chunk payload so far; it may move between calls) allows.
    /// `offset` is the payload's offset in the file, for errors. Calls `rows` with each batch of
    /// final rows. With `isComplete`, missing bytes throw `.truncated` after the rows before them
    /// were delivered; otherwise the decoder returns and waits for more. `payload` may go on
    /// past the chunk (libwebp's still decoder reads to the end of the input): `chunkComplete`
    /// then says the chunk's own bytes are all there (default: `isComplete`), which allows the
    /// two-thread pipeline. With `output`, the decoder writes each band there itself before it
    /// calls `rows` (with threads, possibly on its worker thread: see ``VP8Output``).
    mutating func decode(_ payload: UnsafeRawBufferPointer, isComplete: Bool, chunkComplete: Bool? = nil,
                         offset: Int, output: VP8Output? = nil, rows: (VP8RowBand) -> Void) throws(WebPError) {
        guard !isFinished else { return }
        let available = payload.count
        guard available > 0, let base = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            if isComplete { throw .truncated(what: "VP8 frame", offset: offset) }
            return
        }
        if frame == nil {
            guard try startFrame(base, available: available, isComplete: isComplete, offset: offset) else { return }
        }
        if !lastPartitionPresent, let frame {
            // libwebp: the last partition runs from its start to the end of the data, and a
            // start at or past that end is "suspended" (incomplete data), the whole frame refused.
            let lastStart = frame.partitionStarts[frame.partitionStarts.count - 1]
            guard lastStart < available else {
                if isComplete {
                    throw .truncated(what: "VP8 token partitions (partition \(frame.partitionStarts.count - 1) starts at or past the end of the data)",
                                     offset: offset + available)
                }
                return
            }
            lastPartitionPresent = true
        }
        let chunkDone = chunkComplete ?? isComplete
        if chunkDone && !chunkSeenWhole {
            // The rest of the chunk has come: decode whatever it allows now.
            chunkSeenWhole = true
            waitForBytes = 0
        }
        if !isComplete && available < waitForBytes { return }
        try decodeMacroblocks(base, available: available, isComplete: isComplete,
                              chunkComplete: chunkDone, offset: offset, output: output, rows: rows)
    }

    /// Parses the first partition's frame header once it is all there; false when waiting.
    private mutating func startFrame(_ base: UnsafePointer<UInt8>, available: Int, isComplete: Bool,
                                     offset: Int) throws(WebPError) -> Bool {
        let start = VP8Header.size
        let end = start + header.firstPartitionSize
        guard end <= available else {
            if isComplete { throw .truncated(what: "VP8 first partition", offset: offset + available) }
            return false
        }
        var d = VP8BoolDecoder(VP8BoolDecoder.start(base, start, end), base)
        let parsed: VP8FrameHeader
        do {
            parsed = try VP8FrameHeaderParser.parse(&d, partitionsStart: end, available: available, offset: offset)
        } catch {
            if case .truncated = error, !isComplete, !d.eof { return false }
            throw error
        }
        if let violation = limits.checkPlausible(neededBytes: header.macroblockWidth * header.macroblockHeight / 8) {
            throw .limit(violation, offset: offset)
        }
        frame = parsed
        firstPartition = d.state
        tokenPartitions = parsed.partitionStarts.map { VP8BoolState(position: $0, end: $0) }
        // libwebp loads each partition's first bytes when it sets the partitions up: one of size 0
        // is at its end from the start (eof), so even a skipped macroblock read from it fails.
        // (The last partition is never empty here: see `lastPartitionPresent`.)
        for p in 0 ..< tokenPartitions.count - 1 where parsed.partitionEnds[p] == parsed.partitionStarts[p] {
            tokenPartitions[p].eof = true
        }
        let mbW = header.macroblockWidth
        // Slots (`cacheSlots`): a macroblock row is reconstructed into one while the one before
        // is filtered (and with threads, the rows before may still be written out).
        cacheY = [UInt8](repeating: 0, count: cacheSlots * (cacheLumaTop + 16) * mbW * 16)
        cacheU = [UInt8](repeating: 0, count: cacheSlots * (cacheChromaTop + 8) * mbW * 8)
        cacheV = cacheU
        return true
    }

    private mutating func decodeMacroblocks(_ base: UnsafePointer<UInt8>, available: Int, isComplete: Bool,
                                            chunkComplete: Bool, offset: Int, output: VP8Output?,
                                            rows: (VP8RowBand) -> Void) throws(WebPError) {
        guard let frame else { return }
        let mbW = header.macroblockWidth, mbH = header.macroblockHeight
        // Move the working arrays out so the loops below own them (no copy unless shared).
        var intraTop = self.intraTop, rowInfo = self.rowInfo, rowModes = self.rowModes
        var nzTop = self.nzTop, nzDcTop = self.nzDcTop, work = self.work, topSamples = self.topSamples
        var coefficients = self.coefficients, cacheY = self.cacheY, cacheU = self.cacheU, cacheV = self.cacheV
        self.intraTop = []; self.rowInfo = []; self.rowModes = []; self.nzTop = []; self.nzDcTop = []
        self.work = []; self.topSamples = []; self.coefficients = []; self.cacheY = []; self.cacheU = []; self.cacheV = []
        defer {
            self.intraTop = intraTop; self.rowInfo = rowInfo; self.rowModes = rowModes; self.nzTop = nzTop
            self.nzDcTop = nzDcTop; self.work = work; self.topSamples = topSamples; self.coefficients = coefficients
            self.cacheY = cacheY; self.cacheU = cacheU; self.cacheV = cacheV
        }
        // Token partitions see the bytes present so far.
        for p in 0 ..< tokenPartitions.count {
            tokenPartitions[p].end = min(frame.partitionEnds[p], available)
        }
        let partitionMask = tokenPartitions.count - 1
        let strengths = frame.filterStrengths
        let filterType = frame.filter.type
        let yStride = mbW * 16, uvStride = mbW * 8
        let lumaTop = cacheLumaTop, chromaTop = cacheChromaTop
        let slotY = (lumaTop + 16) * yStride, slotC = (chromaTop + 8) * uvStride
        let extra = Self.filterExtraRows[filterType]
        let height = header.height, width = header.width, fancy = fancyUpsampling
        let cacheSlots = self.cacheSlots, allToWorker = workerWritesAllBands
        // The pipeline runs once the chunk is all there (a partition's end is then an error, never
        // a wait for more bytes).
        let threaded = useThreads && chunkComplete
        // The thread that parses rows ahead while this one reconstructs, filters and hands them
        // out (nil: no thread to be had, and the rows run one after the other).
        let worker = threaded && mbY < mbH ? HandoffWorker() : nil
        defer { worker?.close() }

        try frame.tokenProbabilities.withUnsafeBufferPointer { probs throws(WebPError) in
        try frame.quantizers.withUnsafeBufferPointer { quants throws(WebPError) in
        try intraTop.withUnsafeMutableBufferPointer { intraTop throws(WebPError) in
        try rowInfo.withUnsafeMutableBufferPointer { rowInfo throws(WebPError) in
        try rowModes.withUnsafeMutableBufferPointer { rowModes throws(WebPError) in
        try nzTop.withUnsafeMutableBufferPointer { nzTop throws(WebPError) in
        try nzDcTop.withUnsafeMutableBufferPointer { nzDcTop throws(WebPError) in
        try work.withUnsafeMutableBufferPointer { work throws(WebPError) in
        try topSamples.withUnsafeMutableBufferPointer { topSamples throws(WebPError) in
        try coefficients.withUnsafeMutableBufferPointer { coefficients throws(WebPError) in
        try cacheY.withUnsafeMutableBufferPointer { cacheY throws(WebPError) in
        try cacheU.withUnsafeMutableBufferPointer { cacheU throws(WebPError) in
        try cacheV.withUnsafeMutableBufferPointer { cacheV throws(WebPError) in
            let ctx = VP8MacroblockContext(
                probabilities: probs.baseAddress!, quantizers: quants.baseAddress!,
                useSkip: frame.skipProbability != nil, nzTop: nzTop.baseAddress!, nzDcTop: nzDcTop.baseAddress!,
                coefficients: coefficients.baseAddress!, work: work.baseAddress!, topSamples: topSamples.baseAddress!)
            let cy = cacheY.baseAddress!, cu = cacheU.baseAddress!, cv = cacheV.baseAddress!
            let info0 = rowInfo.baseAddress!
            let scratch = work.baseAddress! + VP8MacroblockContext.workSize
            // With the worker, a ring of rows of everything the worker's parse leaves for the
            // reconstruction: headers (info and intra modes), coefficients, and each macroblock's
            // non-zero summaries (see `pipelinedRows`).
            let rowBytes = mbW * (VP8Modes.infoSize + 16), slots = Self.ringRows
            let parsedRows = worker == nil ? nil : UnsafeMutablePointer<UInt8>.allocate(capacity: slots * rowBytes)
            let parsedCoefficients = worker == nil ? nil : UnsafeMutablePointer<Int16>.allocate(capacity: slots * mbW * 384)
            // Zero, as a parse expects them (the reconstruction clears what it used).
            parsedCoefficients?.initialize(repeating: 0, count: slots * mbW * 384)
            let parsedSums = worker == nil ? nil : UnsafeMutablePointer<UInt32>.allocate(capacity: slots * mbW * 2)
            defer {
                parsedRows?.deallocate()
                parsedCoefficients?.deallocate()
                parsedSums?.deallocate()
            }

            /// Copies macroblock `x`'s reconstructed samples from the work buffer into its row's
            /// cache slot.
            func store(x: Int, yRow: UnsafeMutablePointer<UInt8>, uRow: UnsafeMutablePointer<UInt8>,
                       vRow: UnsafeMutablePointer<UInt8>) {
                VP8MacroblockContext.storeSamples(work.baseAddress!, y: yRow + x * 16, u: uRow + x * 8, v: vRow + x * 8,
                                                  yStride: yStride, uvStride: uvStride)
            }

            /// Parses and reconstructs row `mbY` from `mbX` on, into its cache slot; false when
            /// the bytes ran out (the macroblock is rolled back), true once the row is complete.
            /// Parses row `mbY`'s headers unless done.
            func reconstructRowHeaders() throws(WebPError) {
                if !rowModesParsed {
                    try parseHeaders(info: info0, modes: rowModes.baseAddress!)
                    rowModesParsed = true
                }
            }

            /// Parses the next row's headers from the first partition into `info` and `modes`.
            func parseHeaders(info: UnsafeMutablePointer<UInt8>, modes: UnsafeMutablePointer<UInt8>) throws(WebPError) {
                var d0 = VP8BoolDecoder(firstPartition, base)
                VP8Modes.parseRow(&d0, width: mbW, frame: frame, top: intraTop.baseAddress!, info: info, modes: modes)
                if d0.eof { throw .invalid(what: "VP8 first partition (ends early)", offset: offset + firstPartition.position) }
                firstPartition = d0.state
            }

            func reconstructRow() throws(WebPError) -> Bool {
                try reconstructRowHeaders()
                let part = mbY & partitionMask
                let slot = mbY % cacheSlots
                let yRow = cy + slot * slotY + lumaTop * yStride
                let uRow = cu + slot * slotC + chromaTop * uvStride, vRow = cv + slot * slotC + chromaTop * uvStride
                var d = VP8BoolDecoder(tokenPartitions[part], base)
                while mbX < mbW {
                    let saved = d.state
                    let savedTop = nzTop[mbX], savedDcTop = nzDcTop[mbX], savedLeft = nzLeft, savedDcLeft = nzDcLeft
                    let info = info0 + mbX * VP8Modes.infoSize
                    let (luma, chroma) = ctx.parseResiduals(&d, x: mbX, info: info, nzLeft: &nzLeft, nzDcLeft: &nzDcLeft)
                    if d.eof {
                        let partitionComplete = frame.partitionEnds[part] <= available
                        if isComplete || partitionComplete {
                            throw .truncated(what: "VP8 token partition \(part)", offset: offset + d.end)
                        }
                        nzTop[mbX] = savedTop; nzDcTop[mbX] = savedDcTop; nzLeft = savedLeft; nzDcLeft = savedDcLeft
                        ctx.clearCoefficients()
                        tokenPartitions[part] = saved
                        waitForBytes = available + max(available - saved.position, 16)
                        return false
                    }
                    ctx.markInner(info, luma: luma, chroma: chroma)
                    ctx.reconstruct(x: mbX, y: mbY, width: mbW, height: mbH, info: info,
                                    modes: rowModes.baseAddress! + 16 * mbX, luma: luma, chroma: chroma)
                    store(x: mbX, yRow: yRow, uRow: uRow, vRow: vRow)
                    mbX += 1
                }
                tokenPartitions[part] = d.state
                return true
            }

            /// Filters row `y` in its slot (libwebp's FilterRow, left to right; `rowInfo` holds the
            /// row's headers). Touches only the slot, `rowInfo` and the filter scratch.
            func filterRow(_ y: Int, info rowInfo: UnsafePointer<UInt8>) {
                let slot = y % cacheSlots
                let sy = cy + slot * slotY, su = cu + slot * slotC, sv = cv + slot * slotC
                if filterType > 0 {
                    for x in 0 ..< mbW {
                        let info = rowInfo + x * VP8Modes.infoSize
                        let s = strengths[Int(info[VP8Modes.segment]) * 2 + Int(info[VP8Modes.isI4x4])]
                        VP8LoopFilterSIMD.filterMacroblock(
                            y: sy + lumaTop * yStride + x * 16, u: su + chromaTop * uvStride + x * 8,
                            v: sv + chromaTop * uvStride + x * 8, yStride: yStride, uvStride: uvStride,
                            strength: s, inner: info[VP8Modes.inner] != 0, left: x > 0, top: y > 0,
                            simple: filterType == 1, scratch: scratch)
                    }
                }
            }

            /// The output rows that row `y`, once filtered, makes final after the `delivered`
            /// ones (empty when none).
            func finalRows(_ y: Int, delivered: Int) -> Range<Int> {
                let last = y == mbH - 1
                let finalEnd = last ? height : 16 * (y + 1) - extra
                let readyEnd = last ? height : (fancy ? finalEnd - 1 : finalEnd)
                return delivered ..< max(delivered, readyEnd)
            }

            /// Output rows `r` from row `y`'s cache slot.
            func band(_ y: Int, _ r: Range<Int>) -> VP8RowBand {
                let slot = y % cacheSlots
                return VP8RowBand(
                    rows: r, width: width, height: height, fancyUpsampling: fancy,
                    luma: cy + slot * slotY, lumaFirstRow: 16 * y - lumaTop, lumaStride: yStride,
                    u: cu + slot * slotC, v: cv + slot * slotC, chromaFirstRow: 8 * y - chromaTop,
                    chromaStride: uvStride)
            }

            /// Filters row `y` and hands out the rows that became final (written to `output`
            /// first when given); returns the new count of rows handed out.
            func finishRow(_ y: Int, delivered: Int, info rowInfo: UnsafePointer<UInt8>) -> Int {
                filterRow(y, info: rowInfo)
                let r = finalRows(y, delivered: delivered)
                guard !r.isEmpty else { return delivered }
                let b = band(y, r)
                output?.write(b)
                rows(b)
                return r.upperBound
            }

            /// Gives row `y`'s cache slot the rows kept above it (the previous slot's last
            /// ones, final but for this row's top-edge filtering).
            func keepRowsAbove(_ y: Int) {
                guard y > 0 else { return }
                let prev = (y - 1) % cacheSlots, slot = y % cacheSlots
                (cy + slot * slotY).update(from: cy + prev * slotY + 16 * yStride, count: lumaTop * yStride)
                (cu + slot * slotC).update(from: cu + prev * slotC + 8 * uvStride, count: chromaTop * uvStride)
                (cv + slot * slotC).update(from: cv + prev * slotC + 8 * uvStride, count: chromaTop * uvStride)
            }

            /// The rows from `mbY` (at its start) on two threads: the worker parses each row into
            /// the ring of parsed rows (``ringRows`` slots), running ahead (its headers unless this
            /// thread parsed them while waiting), and this thread reconstructs each parsed row,
            /// filters it and hands it out. A parse error is thrown after the rows before it are
            /// out. Returns at the frame's end, or after the rows before one whose token partition
            /// runs out before more bytes come (that row undone), for the rows one after the other.
            func pipelinedRows(_ worker: HandoffWorker, _ parsed: UnsafeMutablePointer<UInt8>,
                               _ parsedCoefficients: UnsafeMutablePointer<Int16>,
                               _ parsedSums: UnsafeMutablePointer<UInt32>) throws(WebPError) {
                // The contexts a row's token parse changes, to undo it when its partition runs
                // out before the end of the data (then the rows go on one after the other).
                let saved = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 * mbW)
                defer { saved.deallocate() }
                let records = VP8HeaderRecords(slots: slots, macroblockWidth: mbW, start: firstPartition)
                defer { records.free() }
                let first = mbY
                // Either thread parses the next row's headers under `headerGate` (guarding these,
                // `firstPartition`, `intraTop`, `records`): the worker the row it goes on to, this
                // thread rows ahead while it would otherwise wait for a parsed row.
                let headerGate = ConditionLock()
                var headersEnd = first
                var headerFailure: WebPError?
                /// Parses the next row's headers into its slot if it is before `end`; false when
                /// there is none to parse (or the headers failed).
                func parseNextHeaders(before end: Int) -> Bool {
                    headerGate.lock()
                    defer { headerGate.unlock() }
                    guard headersEnd < end && headerFailure == nil else { return false }
                    records.record(headersEnd, firstPartition, top: intraTop.baseAddress!)
                    let info = parsed + (headersEnd % slots) * rowBytes
                    do throws(WebPError) { try parseHeaders(info: info, modes: info + mbW * VP8Modes.infoSize) } catch {
                        headerFailure = error
                        return false
                    }
                    headersEnd += 1
                    return true
                }
                /// Parses row `r`'s tokens into its slot (its headers are in); false when its
                /// token partition ran out and more bytes may come (undone).
                func parse(_ r: Int) throws(WebPError) -> Bool {
                    let info = parsed + (r % slots) * rowBytes
                    let part = r & partitionMask
                    let startTokens = tokenPartitions[part]
                    saved.update(from: nzTop.baseAddress!, count: mbW)
                    (saved + mbW).update(from: nzDcTop.baseAddress!, count: mbW)
                    var d = VP8BoolDecoder(tokenPartitions[part], base)
                    var c = ctx, left: UInt8 = 0, dcLeft: UInt8 = 0
                    let coefficients = parsedCoefficients + (r % slots) * mbW * 384
                    let sums = parsedSums + (r % slots) * mbW * 2
                    for x in 0 ..< mbW {
                        let mb = info + x * VP8Modes.infoSize
                        c.coefficients = coefficients + x * 384
                        let (luma, chroma) = c.parseResiduals(&d, x: x, info: mb, nzLeft: &left, nzDcLeft: &dcLeft)
                        if d.eof {
                            if isComplete || frame.partitionEnds[part] <= available {
                                throw .truncated(what: "VP8 token partition \(part)", offset: offset + d.end)
                            }
                            tokenPartitions[part] = startTokens
                            nzTop.baseAddress!.update(from: saved, count: mbW)
                            nzDcTop.baseAddress!.update(from: saved + mbW, count: mbW)
                            coefficients.update(repeating: 0, count: mbW * 384)
                            return false
                        }
                        ctx.markInner(mb, luma: luma, chroma: chroma)
                        sums[2 * x] = luma
                        sums[2 * x + 1] = chroma
                    }
                    tokenPartitions[part] = d.state
                    return true
                }
                /// Each row's band (the rows it made final, empty when none) and who writes it out:
                /// the worker, when the decoder writes into `output` and the worker has time to
                /// spare, else this thread. One entry a row, so neither side overwrites an entry
                /// the other may still read.
                let bands = UnsafeMutablePointer<(rows: Range<Int>, byWorker: Bool)>.allocate(capacity: mbH)
                bands.initialize(repeating: (0 ..< 0, false), count: mbH)
                defer { bands.deallocate() }
                let parsedRows = ProgressCounter(first), finishedRows = ProgressCounter(first)
                // Rows whose bands the worker has written (or left to this thread), in order.
                let writtenRows = ProgressCounter(first)
                /// The next row whose band goes to `rows`.
                var handedOut = first

                /// Hands out, in order, the bands of the rows before `end` whose pixels are written.
                func handOut(upTo end: Int) {
                    while handedOut < end {
                        let b = bands[handedOut]
                        if b.byWorker && writtenRows.count <= handedOut { return }
                        if !b.rows.isEmpty { rows(band(handedOut, b.rows)) }
                        handedOut += 1
                    }
                }

                /// Reconstructs row `y` into its slot, filters it and hands its band out, or
                /// leaves it to the worker to write.
                func finish(_ y: Int, delivered: Int) -> Int {
                    // The slot's last row must be written out and handed out before it is reused.
                    let previous = y - cacheSlots
                    if previous >= first, bands[previous].byWorker {
                        _ = writtenRows.wait(for: previous + 1)
                    }
                    handOut(upTo: y)
                    let info = parsed + (y % slots) * rowBytes, modes = info + mbW * VP8Modes.infoSize
                    let coefficients = parsedCoefficients + (y % slots) * mbW * 384
                    let sums = parsedSums + (y % slots) * mbW * 2
                    let slot = y % cacheSlots
                    let yRow = cy + slot * slotY + lumaTop * yStride
                    let uRow = cu + slot * slotC + chromaTop * uvStride, vRow = cv + slot * slotC + chromaTop * uvStride
                    var c = ctx
                    for x in 0 ..< mbW {
                        // A skipped macroblock's coefficients are not read (its summaries are 0).
                        c.coefficients = coefficients + x * 384
                        c.reconstruct(x: x, y: y, width: mbW, height: mbH, info: info + x * VP8Modes.infoSize,
                                      modes: modes + 16 * x, luma: sums[2 * x], chroma: sums[2 * x + 1])
                        store(x: x, yRow: yRow, uRow: uRow, vRow: vRow)
                    }
                    keepRowsAbove(y)
                    filterRow(y, info: info)
                    let r = finalRows(y, delivered: delivered)
                    // The worker writes the band when its ring of parsed rows is full (it would
                    // wait for this row to free a slot) and at most one band waits for it
                    // besides; otherwise this thread writes it. So the worker's idle time goes
                    // to this thread's work, and neither waits on the other's share.
                    let byWorker = output != nil && !r.isEmpty
                        && (allToWorker || (parsedRows.count - y >= slots && y - writtenRows.count < 2))
                    bands[y] = (r, byWorker)
                    finishedRows.raise(to: y + 1)
                    if !byWorker && !r.isEmpty { output?.write(band(y, r)) }
                    handOut(upTo: y + 1)
                    return r.upperBound
                }
                // The worker parses row after row, up to `slots` rows ahead of the rows finished
                // here, and stops at the frame's end, a parse error or a partition that runs out
                // before more bytes can come; between rows it writes out the bands left to it.
                // Neither thread waits for the other but for a row not yet parsed, a slot not yet
                // free or a band not yet written, so rows heavy in tokens and rows heavy in
                // filtering even out over the ring.
                var failure: WebPError?
                var parsedEnd = first
                var delivered = rowsDelivered
                Self.runConcurrently(on: worker, {
                    var written = first
                    /// Writes the bands left to this thread of the rows finished before `end`.
                    func write(upTo end: Int) {
                        guard written < end else { return }
                        while written < end {
                            let b = bands[written]
                            if b.byWorker, let output { output.write(band(written, b.rows)) }
                            written += 1
                        }
                        writtenRows.raise(to: written)
                    }
                    var r = first
                    while r < mbH {
                        var finished = finishedRows.count
                        write(upTo: finished)
                        // Row r takes the slot of row r - slots, which must be finished (each row
                        // finished meanwhile may have left a band to write); then its headers.
                        while r - slots >= first && finished < r - slots + 1 {
                            finished = finishedRows.wait(for: finished + 1)
                            write(upTo: finished)
                        }
                        while parseNextHeaders(before: r + 1) {}
                        let (ready, headerError) = headerGate.withLock { (headersEnd > r, headerFailure) }
                        if !ready {
                            failure = headerError
                            break
                        }
                        do throws(WebPError) {
                            guard try parse(r) else { break }
                        } catch {
                            failure = error
                            break
                        }
                        r += 1
                        parsedRows.raise(to: r)
                    }
                    parsedEnd = r
                    parsedRows.end()
                    // The bands of the rows still to finish.
                    while true {
                        let finished = finishedRows.wait(for: written + 1)
                        guard finished > written else { break }
                        write(upTo: finished)
                    }
                }, {
                    var y = first
                    while true {
                        // Rows' headers ahead (up to the last free slot) while the row is not parsed.
                        var ready = parsedRows.count
                        while ready <= y && parseNextHeaders(before: min(mbH, y + slots)) { ready = parsedRows.count }
                        if ready <= y { ready = parsedRows.wait(for: y + 1) }
                        guard ready > y else { break }
                        while y < ready {
                            delivered = finish(y, delivered: delivered)
                            y += 1
                        }
                    }
                    finishedRows.end()
                })
                // Every row parsed is out, then what stopped the parse; headers parsed ahead undone.
                handOut(upTo: parsedEnd)
                if parsedEnd < headersEnd { firstPartition = records.restore(parsedEnd, top: intraTop.baseAddress!) }
                rowsDelivered = delivered
                mbY = parsedEnd
                if let failure { throw failure }
            }

            // Set once the pipeline stops short of the frame's end: the rest goes one row after
            // the other in this call.
            var pipelineSuspended = false
            while mbY < mbH {
                if let worker, let parsedRows, let parsedCoefficients, let parsedSums, mbX == 0, !rowModesParsed,
                   !pipelineSuspended {
                    try pipelinedRows(worker, parsedRows, parsedCoefficients, parsedSums)
                    pipelineSuspended = true
                    continue
                }
                guard try reconstructRow() else { return }
                let y = mbY
                keepRowsAbove(y)
                mbY += 1
                mbX = 0
                rowModesParsed = false
                nzLeft = 0
                nzDcLeft = 0
                rowsDelivered = finishRow(y, delivered: rowsDelivered, info: info0)
            }
        }}}}}}}}}}}}}
    }
}
