import CZlib
import ImageCore

/// The IDAT stage: compressed bytes in, finished output rows out (PNG 10 -> 9 -> 7.2).
///
/// zlib inflates straight into a block of whole filtered rows (at least two rows, normally
/// 64 KiB). Each complete row is unfiltered in place, using the row before it in the block
/// (or the saved previous row for the first row of a block), then expanded into the output
/// image (Adam7: into `passRow` and scattered). A partial row left at the end of a block moves
/// to the front of the next. So memory is the output plus two blocks, two rows and zlib's window.
///
/// With a second thread (``init(info:rowMode:lenient:spill:pipelined:)``), a block's rows are
/// unfiltered there (``UnfilterJob``) while zlib fills the other block; the decoder expands
/// them when it needs the block back, and ``drain(events:)`` finishes the last one before the
/// decoder's caller sees any state. Errors, events and pixels are those of the one-thread
/// order: a job's rows come before anything inflated after them.
struct ImageDataDecoder: Sendable {
    let info: PNGInfo
    let format: PixelFormat
    let expander: RowExpander
    let outBytesPerPixel: Int
    let filterBytesPerPixel: Int
    /// The output image's samples, rows not yet decoded zero. Row mode: the rows of one block,
    /// the first being ``pendingRows``' lower bound.
    private(set) var pixels: [UInt8]
    /// An interlaced image in row mode kept in a temporary file instead of `pixels` (see
    /// ``PNGDecodingOptions/spillAbove``).
    let spill: SpillBuffer?
    /// Row mode (non-interlaced only): no image, each block's rows go to `pixels` and wait there.
    let rowMode: Bool
    /// Row mode: rows in `pixels` the caller has not taken; decoding pauses while there are any.
    var pendingRows: Range<Int> = 0 ..< 0
    private var inflater = Inflater()
    private var blocks: RowBlocks
    /// The block zlib inflates into.
    private var current = 0
    private let blockCapacity: Int
    private let stepCapacity: Int
    private var filled = 0
    /// One expanded row of an Adam7 pass before it is scattered.
    private var passRow: [UInt8]
    /// Rows are unfiltered on another thread while the next block inflates.
    let pipelined: Bool
    /// The job unfiltering the other block, with its outcome to come.
    private var inFlight: (job: UnfilterJob, work: BackgroundWork<UnfilterJob.Outcome, Never>)?
    /// Pipelined: the Adler-32 of everything inflated so far, the rows' computed with their
    /// jobs (zlib leaves the check to the decoder, so the second thread takes that work too).
    private var adler: UInt = 1
    /// Where the rows found in inflated blocks stand (ahead of ``pass`` and ``row``, which
    /// count rows expanded, while rows wait or are in flight).
    private var scanPass = 0
    private var scanRow = 0
    /// Complete rows at the front of the current block not yet unfiltered, and where they end.
    private var waitingRuns: [UnfilterJob.Run] = []
    private var scanned = 0

    /// Current pass (always 0 without interlacing); 7 once every pass is done.
    private(set) var pass = 0
    /// Rows finished in the current pass.
    private(set) var row = 0
    private var passWidth = 0
    private var passHeight = 0
    private var passRowBytes = 0
    /// Every row has been decoded.
    private(set) var rowsComplete = false
    var streamEnded: Bool { inflater.streamEnded }

    /// Where the zlib stream stands once the rows are in (see ``Phase``).
    private(set) var phase = Phase.rows
    /// libpng's reading of what follows the last row (`png_read_IDAT_data`,
    /// `png_read_finish_IDAT`) instead of requiring a clean end: see ``Phase``.
    let lenient: Bool
    /// Filtered bytes (filter bytes included) that the zlib stream still owes the image.
    private(set) var imageBytesLeft: Int
    /// Row mode: `feed` returned early for waiting rows just where a row ends, so zlib's read
    /// past that row's end may be unfinished when the rest of the piece comes.
    private var resumesAtRowEnd = false
    /// Bytes inflated past the last row while checking the stream's end.
    private var extraBytes = 0
    /// Palette entries when fewer than the bit depth can index (so an index can be past
    /// them); nil otherwise. Checked per row until the first such index is found.
    private var paletteLimit: Int?
    /// The first index past the palette, reported once the rows are in (so the warning's place
    /// among the events does not depend on the chunking).
    private var badIndex: (index: Int, row: Int)?
    /// File offset of the PLTE chunk, named in that warning.
    var paletteOffset = 0

    /// What the decoder does with IDAT bytes, modelled on libpng 1.6's sequential reader: it
    /// reads each IDAT in pieces of 8192 bytes (`PNG_IDAT_READ_SIZE`) and inflates with room
    /// for exactly the rows, so what follows the last row depends on where that piece ends.
    enum Phase: Sendable, Equatable {
        /// Rows still missing.
        case rows
        /// Every row is in; zlib reads on, with no room for output, to the end of the
        /// libpng piece holding the last row (the stream's end there is read with the rows:
        /// a wrong Adler-32 there is an error).
        case tail
        /// libpng's check of the stream's end (`png_read_finish_IDAT`): inflating into a
        /// scratch buffer; a fault here is a warning. A piece that yields neither output nor
        /// the end stops the check quietly; once output has come, the stream must end.
        case checking
        /// libpng has stopped reading the stream quietly (``checking`` ran out of a piece):
        /// the rest is still read, only to warn when it is not a clean end (never an error).
        case shadow
        /// The stream has ended (or libpng stopped reading it): further IDAT bytes are ignored
        /// (strict: any byte is too much image data).
        case done
    }

    /// Compressed bytes that can be fed at once without the image completing inside them:
    /// deflate expands a byte into at most 1032 (258-byte matches in 2 bits), so fewer than
    /// `imageBytesLeft / 1100` bytes cannot hold the last row, and where libpng's 8192-byte
    /// pieces end only matters for the piece that does. Feeding several pieces in one call
    /// halves zlib's window copies (3% of a 12 MP decode's instructions).
    var bytesBeforeLastRowPossible: Int { phase == .rows ? imageBytesLeft / 1100 : 0 }

    /// The rows are in and the IDAT bytes so far leave the stream unfinished: libpng needs
    /// another IDAT piece, and a chunk other than IDAT is an error.
    var needsMoreImageData: Bool { phase == .tail || phase == .checking }

    /// libpng is done with the image data's zlib stream: it has ended, or libpng stopped
    /// reading it (what follows is skipped, not decoded).
    var imageDataFinished: Bool { phase == .done || phase == .shadow }

    /// The IDAT chunks are over: true when libpng had stopped reading an unfinished stream
    /// (``Phase/shadow``), which is worth a warning.
    mutating func endImageData() -> Bool {
        defer { if phase == .shadow { phase = .done } }
        return phase == .shadow
    }

    /// `pipelined`: unfilter on a second thread (not in row mode, whose rows wait in
    /// `pixels` for the caller block by block).
    init(info: PNGInfo, rowMode: Bool = false, lenient: Bool = false, spill: SpillBuffer? = nil, pipelined: Bool = false) {
        self.info = info
        self.spill = spill
        self.lenient = lenient
        self.rowMode = rowMode && !info.interlaced
        format = info.outputFormat
        expander = RowExpander(info: info)
        outBytesPerPixel = format.bytesPerPixel
        filterBytesPerPixel = info.filterBytesPerPixel
        let outputRows = self.rowMode ? Self.bandRows(info: info) : spill != nil ? 0 : info.height
        pixels = [UInt8](repeating: 0, count: info.width * outputRows * format.bytesPerPixel)
        let stride = info.rowBytes(width: info.width) + 1
        self.pipelined = pipelined && !self.rowMode
        inflater = Inflater(leavingCheckToCaller: self.pipelined)
        stepCapacity = Self.stepCapacity(stride: stride)
        blockCapacity = Self.blockCapacity(stride: stride, pipelined: self.pipelined)
        blocks = RowBlocks(capacity: blockCapacity, rowStride: stride)
        passRow = info.interlaced ? [UInt8](repeating: 0, count: info.width * format.bytesPerPixel) : []
        pass = info.interlaced ? -1 : 0
        imageBytesLeft = Self.filteredBytes(info: info)
        if info.colorType == .palette, let count = info.palette?.count, count < 1 << info.bitDepth { paletteLimit = count }
        if info.interlaced {
            var ignored: [DecodingEvent] = []
            startNextPass(events: &ignored)
            scanPass = pass
        } else {
            passWidth = info.width
            passHeight = info.height
            passRowBytes = stride - 1
        }
    }

    /// Moves to the next pass with any pixels, reporting empty passes as complete too.
    private mutating func startNextPass(events: inout [DecodingEvent]) {
        while true {
            pass += 1
            row = 0
            if pass >= 7 {
                rowsComplete = true
                return
            }
            let (w, h) = Adam7.size(pass: pass, width: info.width, height: info.height)
            if w > 0 && h > 0 {
                passWidth = w
                passHeight = h
                passRowBytes = info.rowBytes(width: w)
                return
            }
            events.append(.passComplete(pass))
        }
    }

    /// Bytes of the inflate block and the row buffers beside `pixels`.
    var blockBytes: Int { blocks.byteCount + passRow.count }

    /// Rows decoded so far in a non-interlaced image.
    var rowsDecoded: Int { info.interlaced ? 0 : row }

    /// The best image so far: decoded rows (Adam7: replicated blocks), the rest zero.
    func previewPixels() -> [UInt8] {
        guard info.interlaced else { return pixels }
        let pixels = spill.map { [UInt8](UnsafeRawBufferPointer(start: $0.base, count: $0.byteCount)) } ?? self.pixels
        return Adam7.preview(pixels, width: info.width, height: info.height, bytesPerPixel: outBytesPerPixel,
                             passesDone: max(pass, 0), rowsDone: row)
    }

    /// Feeds compressed IDAT bytes; `fileOffset` is the file offset of `input`'s first byte.
    /// `endsPiece`: `input` reaches the end of one of libpng's 8192-byte IDAT read pieces (or
    /// of the chunk); `chunkRemaining`: bytes of the chunk after `input`. Returns the bytes
    /// used: all of them, except in row mode when a block's rows are waiting
    /// (``pendingRows``); the rest must be fed again once they are taken.
    ///
    /// A pipelined decoder may return with the last block's rows still being unfiltered: call
    /// ``drain(events:)`` before reading rows, pixels or counts.
    @discardableResult
    mutating func feed(_ input: UnsafeRawBufferPointer, fileOffset: Int, endsPiece: Bool = false, chunkRemaining: Int = 0,
                       events: inout [DecodingEvent]) throws(PNGError) -> Int {
        if inFlight == nil && !isKnownUniquelyReferenced(&blocks) { blocks = RowBlocks(copying: blocks) }
        do {
            return try feedBlocks(input, fileOffset: fileOffset, endsPiece: endsPiece, chunkRemaining: chunkRemaining,
                                  events: &events)
        } catch {
            // The rows in flight come first in the stream: their error, if any, is the one.
            try drain(events: &events)
            throw error
        }
    }

    /// Waits for the rows being unfiltered on the other thread and expands them, then does
    /// the rows waiting in the current block: afterwards rows, pixels, events and errors are
    /// as if every block had been done in turn.
    mutating func drain(events: inout [DecodingEvent]) throws(PNGError) {
        try finishInFlight(events: &events)
        try processWaitingRows(events: &events)
    }

    private mutating func finishInFlight(events: inout [DecodingEvent]) throws(PNGError) {
        guard let (job, work) = inFlight else { return }
        inFlight = nil
        try commit(job, outcome: work.value(), events: &events)
    }

    private mutating func feedBlocks(_ input: UnsafeRawBufferPointer, fileOffset: Int, endsPiece: Bool, chunkRemaining: Int,
                                     events: inout [DecodingEvent]) throws(PNGError) -> Int {
        var consumed = 0
        // The last inflate in this piece stopped where a row ends (see the `.rows` case).
        var readAheadDue = resumesAtRowEnd
        resumesAtRowEnd = false
        while true {
            switch phase {
            case .rows:
                // A call has the room it has on one thread, whatever the block holds before it.
                var space = min(stepCapacity - (filled - scanned), imageBytesLeft)
                // At the end of an IDAT chunk libpng's row-by-row reading shows: before each row
                // it reads the next piece (the next chunk's header) when zlib has used up the
                // current one, even if zlib's state still holds that row (a stream cut short).
                // So the chunk's last byte is inflated a row at a time, and a row that ends with
                // the chunk used up leaves the next rows to the next IDAT chunk.
                var end = input.count
                if endsPiece && chunkRemaining == 0 {
                    if input.count - consumed > 1 {
                        end = input.count - 1
                    } else {
                        if filled == scanned && readAheadDue {
                            // What zlib reads after a row's last byte when libpng's call for that
                            // row leaves it no room for output.
                            readAheadDue = false
                            let ahead = try checkedEnd(inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                                                        into: UnsafeMutableRawBufferPointer(start: nil, count: 0)),
                                                       events: &events)
                            consumed += ahead.consumed
                            if let failure = ahead.failure {
                                throw .corruptImageData(message: failure, offset: fileOffset + consumed)
                            }
                            if ahead.streamEnded { throw .notEnoughImageData(offset: fileOffset + consumed) }
                            if consumed == input.count { return input.count }
                        }
                        space = min(space, scanStride - (filled - scanned))
                    }
                }
                var step = inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed ..< end]),
                                            into: UnsafeMutableRawBufferPointer(start: blocks.block(current) + filled, count: space))
                consumed += step.consumed
                filled += step.produced
                imageBytesLeft -= step.produced
                // Rows inflated before a zlib error are unfiltered first, so that the error reported
                // is the first in stream order whatever the chunking (a bad filter byte, then the zlib fault).
                // Only a block inflated on to the next goes to the other thread.
                let goesOn = step.failure == nil && !step.streamEnded && imageBytesLeft > 0
                try processRows(events: &events, offset: fileOffset + consumed, handOff: pipelined && goesOn)
                step = try checkedEnd(step, events: &events)
                if step.produced > 0 { readAheadDue = filled == scanned }
                if let failure = step.failure { throw .corruptImageData(message: failure, offset: fileOffset + consumed) }
                if imageBytesLeft == 0 {
                    phase = .tail
                    if step.streamEnded {
                        try streamEnd(consumed: consumed, of: input.count, fileOffset: fileOffset,
                                      chunkRemaining: chunkRemaining, events: &events)
                        return pendingRows.isEmpty ? input.count : consumed
                    }
                    // Row mode: the tail is read once the waiting rows are taken (nothing
                    // after the last row changes them).
                    if !pendingRows.isEmpty {
                        if consumed == input.count && endsPiece { phase = .checking }
                        return consumed
                    }
                    continue
                }
                if step.streamEnded { throw .notEnoughImageData(offset: fileOffset + consumed) }
                if !pendingRows.isEmpty {
                    resumesAtRowEnd = readAheadDue
                    return consumed
                }
                // zlib stops with output space left only when it has used all the input.
                if step.produced < space && end == input.count { return input.count }

            case .tail:
                // No room for output: zlib reads on only as far as the stream's end or the next
                // byte of output (PNG 10; libpng's last row read).
                let step = try checkedEnd(inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                                           into: UnsafeMutableRawBufferPointer(start: nil, count: 0)),
                                          events: &events)
                consumed += step.consumed
                if let failure = step.failure { throw .corruptImageData(message: failure, offset: fileOffset + consumed) }
                if step.streamEnded {
                    try streamEnd(consumed: consumed, of: input.count, fileOffset: fileOffset,
                                  chunkRemaining: chunkRemaining, events: &events)
                    return input.count
                }
                if consumed < input.count {
                    // More output is coming: too much image data (libpng reads it in its check).
                    phase = .checking
                    continue
                }
                if endsPiece { phase = .checking }
                return input.count

            case .checking:
                let step = try checkedEnd(inflateScratch(UnsafeRawBufferPointer(rebasing: input[consumed...])), events: &events)
                let before = consumed
                consumed += step.consumed
                extraBytes += step.produced
                if step.produced > 0 && !lenient { throw .tooMuchImageData(offset: fileOffset + before) }
                if let failure = step.failure {
                    guard lenient else { throw .corruptImageData(message: failure, offset: fileOffset + consumed) }
                    events.append(.warning("corrupt compressed data after the last row, in the IDAT chunk ending at offset "
                        + "\(fileOffset + input.count + chunkRemaining) (zlib: \(failure)); ignored, as libpng does"))
                    phase = .done
                    return input.count
                }
                if step.streamEnded {
                    try streamEnd(consumed: consumed, of: input.count, fileOffset: fileOffset,
                                  chunkRemaining: chunkRemaining, events: &events)
                    return input.count
                }
                if consumed < input.count { continue }
                // libpng's check inflates one piece; with no output and no end it stops there.
                if endsPiece && extraBytes == 0 && lenient { phase = .shadow }
                return input.count

            case .shadow:
                let step = try checkedEnd(inflateScratch(UnsafeRawBufferPointer(rebasing: input[consumed...])), events: &events)
                consumed += step.consumed
                let chunkEnd = fileOffset + input.count + chunkRemaining
                if let failure = step.failure {
                    events.append(.warning("corrupt compressed data after the last row, in the IDAT chunk ending at offset "
                        + "\(chunkEnd) (zlib: \(failure)); not read by libpng"))
                    phase = .done
                } else if step.produced > 0 {
                    events.append(.warning("decompressed data past the last row, in the IDAT chunk ending at offset "
                        + "\(chunkEnd); not read by libpng"))
                    phase = .done
                } else if step.streamEnded {
                    phase = .done
                    let after = input.count - consumed + chunkRemaining
                    if after > 0 {
                        events.append(.warning("\(after) bytes of compressed data after the end of the image data's zlib stream "
                            + "at offset \(fileOffset + consumed); not read by libpng"))
                    }
                }
                return input.count

            case .done:
                if !lenient && consumed < input.count { throw .tooMuchImageData(offset: fileOffset + consumed) }
                return input.count
            }
        }
    }

    /// Inflates what follows the last row into scratch room (counted, never kept; its
    /// Adler-32 added when the decoder checks the stream itself).
    private mutating func inflateScratch(_ input: UnsafeRawBufferPointer) -> InflateStep {
        let scratch = blocks.block(current)
        let step = inflater.inflate(input, into: UnsafeMutableRawBufferPointer(start: scratch, count: 1024))
        if inflater.leavesCheckToCaller && step.produced > 0 { adler = CZlib.adler32(adler, scratch, UInt32(step.produced)) }
        return step
    }

    /// Pipelined, zlib leaves the Adler-32 to the decoder: at the stream's end the rows before
    /// it are finished (their checksums were taken with them) and the whole compared with the
    /// trailer; a mismatch becomes zlib's own failure, where zlib would have reported it.
    private mutating func checkedEnd(_ step: InflateStep, events: inout [DecodingEvent]) throws(PNGError) -> InflateStep {
        guard inflater.leavesCheckToCaller, step.streamEnded else { return step }
        try drain(events: &events)
        // A stream that ends inside a row: that row's bytes are in no job.
        var total = adler
        if filled > scanned { total = CZlib.adler32(total, blocks.block(current) + scanned, UInt32(filled - scanned)) }
        guard UInt32(truncatingIfNeeded: total) != inflater.trailer else { return step }
        var failed = step
        failed.streamEnded = false
        failed.failure = "incorrect data check"
        return failed
    }

    /// The zlib stream has ended after the last row: what remains of the chunk (and, found
    /// while checking, inflated bytes past the last row) is too much image data.
    private mutating func streamEnd(consumed: Int, of count: Int, fileOffset: Int, chunkRemaining: Int,
                                    events: inout [DecodingEvent]) throws(PNGError) {
        phase = .done
        let after = count - consumed + chunkRemaining
        if after > 0 {
            guard lenient else { throw .tooMuchImageData(offset: fileOffset + consumed) }
            events.append(.warning("\(after) bytes of compressed data after the end of the image data's zlib stream "
                + "at offset \(fileOffset + consumed); ignored, as libpng does"))
        }
        if extraBytes > 0 {
            events.append(.warning("\(extraBytes) decompressed bytes past the last row, in the zlib stream ending at offset "
                + "\(fileOffset + consumed); ignored, as libpng does"))
        }
    }

    /// Finds the complete rows that the last inflate call added to the current block. On one
    /// thread they are unfiltered and expanded at once and the partial row that remains moves
    /// to the block's front. Pipelined (`handOff`), rows wait until the block is full, then go
    /// to the other thread while zlib fills the other block, starting with the partial row;
    /// they are expanded when the decoder next needs their block.
    private mutating func processRows(events: inout [DecodingEvent], offset: Int, handOff: Bool) throws(PNGError) {
        findRows(offset: offset)
        guard handOff else {
            try drain(events: &events)
            return
        }
        // Room for another whole call: keep inflating into this block.
        if scanned + stepCapacity <= blockCapacity || waitingRuns.isEmpty { return }
        try finishInFlight(events: &events)
        let job = UnfilterJob(block: current, runs: waitingRuns)
        let next = 1 - current, remaining = filled - scanned
        if remaining > 0 { blocks.block(next).update(from: blocks.block(current) + scanned, count: remaining) }
        let blocks = self.blocks, bpp = filterBytesPerPixel
        inFlight = (job, BackgroundWork { job.unfilter(blocks, bpp: bpp, checksum: true) })
        waitingRuns = []
        current = next
        filled = remaining
        scanned = 0
    }

    /// Unfilters and expands the waiting rows on this thread; the partial row that remains
    /// moves to the block's front.
    private mutating func processWaitingRows(events: inout [DecodingEvent]) throws(PNGError) {
        guard !waitingRuns.isEmpty else { return }
        let job = UnfilterJob(block: current, runs: waitingRuns)
        waitingRuns = []
        let outcome = job.unfilter(blocks, bpp: filterBytesPerPixel, checksum: inflater.leavesCheckToCaller)
        try commit(job, outcome: outcome, events: &events)
        let remaining = filled - scanned
        if remaining > 0 {
            let block = blocks.block(current)
            UnsafeMutableRawPointer(block).copyMemory(from: block + scanned, byteCount: remaining)
        }
        filled = remaining
        scanned = 0
    }

    /// Filtered bytes per row of the pass the next inflated row belongs to.
    private var scanStride: Int {
        guard info.interlaced else { return info.rowBytes(width: info.width) + 1 }
        let (width, _) = Adam7.size(pass: min(scanPass, 6), width: info.width, height: info.height)
        return info.rowBytes(width: width) + 1
    }

    /// Adds the rows completed since ``scanned`` to ``waitingRuns``, in runs of one pass each.
    private mutating func findRows(offset: Int) {
        var pos = scanned
        while scanPass < 7 {
            let (width, height) = info.interlaced ? Adam7.size(pass: scanPass, width: info.width, height: info.height)
                                                  : (info.width, info.height)
            let rowBytes = info.rowBytes(width: width), stride = rowBytes + 1
            if width > 0 && height > 0 {
                let rows = min(height - scanRow, (filled - pos) / stride)
                if rows == 0 { break }
                waitingRuns.append(UnfilterJob.Run(pass: scanPass, firstRow: scanRow, rows: rows, rowBytes: rowBytes,
                                                   width: width, start: pos, offset: offset))
                pos += rows * stride
                scanRow += rows
                if scanRow < height { break }
            }
            // A pass is done (or empty): the next, or the end.
            scanRow = 0
            scanPass = info.interlaced ? scanPass + 1 : 7
        }
        scanned = pos
    }

    /// Expands a job's unfiltered rows into the image (up to a bad filter type, which is then
    /// thrown), checks palette indices, and counts the rows and passes done, with their events.
    private mutating func commit(_ job: UnfilterJob, outcome: UnfilterJob.Outcome, events: inout [DecodingEvent]) throws(PNGError) {
        let badFilter = outcome.badFilter
        if inflater.leavesCheckToCaller { adler = adler32_combine(adler, outcome.adler, off_t(outcome.length)) }
        let blk = blocks.block(job.block)
        let bits = info.bitDepth
        let interlaced = info.interlaced
        let imageWidth = info.width
        let outBpp = outBytesPerPixel
        let outRowBytes = imageWidth * outBpp
        let expander = self.expander
        let spill = self.spill
        // Row mode: this call's rows start at the front of `pixels`.
        let origin = rowMode ? row : 0
        for (index, run) in job.runs.enumerated() {
            let rows = badFilter.map { $0.run == index ? $0.row : $0.run < index ? 0 : run.rows } ?? run.rows
            let stride = run.rowBytes + 1
            var badIndex: (index: Int, row: Int)?
            let paletteLimit = self.paletteLimit
            pixels.withUnsafeMutableBufferPointer { outBuffer in
                passRow.withUnsafeMutableBufferPointer { passBuffer in
                    guard let out = spill.map({ $0.base.assumingMemoryBound(to: UInt8.self) }) ?? outBuffer.baseAddress
                    else { return }
                    var pos = run.start
                    for k in 0 ..< rows {
                        let r = run.firstRow + k
                        let cur = blk + pos + 1
                        if let paletteLimit, badIndex == nil {
                            let top = Self.largestIndex(cur, width: run.width, bits: bits)
                            if top >= paletteLimit {
                                let y = interlaced ? Adam7.passes[run.pass].y0 + r * Adam7.passes[run.pass].dy : r
                                badIndex = (top, y)
                            }
                        }
                        if interlaced {
                            guard let tmp = passBuffer.baseAddress else { return }
                            expander.expand(cur, rawBytes: run.rowBytes, width: run.width, into: tmp)
                            Adam7.scatter(tmp, count: run.width, pass: run.pass, passRow: r, imageWidth: imageWidth,
                                          bytesPerPixel: outBpp, into: out)
                            spill?.noteTouched(bytes: outRowBytes)
                        } else {
                            expander.expand(cur, rawBytes: run.rowBytes, width: run.width, into: out + (r &- origin) &* outRowBytes)
                        }
                        pos &+= stride
                    }
                }
            }
            row = run.firstRow + rows
            if rowMode && row > origin { pendingRows = origin ..< row }
            if let badFilter, badFilter.run == index {
                let y = interlaced ? Adam7.passes[run.pass].y0 + row * Adam7.passes[run.pass].dy : row
                throw .invalidFilterType(badFilter.type, row: y, offset: run.offset)
            }
            if let bad = badIndex {
                // PNG 11.2.3 makes it an error; libpng gives opaque black, as the table does.
                self.paletteLimit = nil
                guard lenient else { throw .paletteIndexOutOfRange(index: bad.index, row: bad.row, offset: run.offset) }
                self.badIndex = bad
            }
            if row == passHeight {
                if interlaced {
                    events.append(.passComplete(pass))
                    startNextPass(events: &events)
                } else {
                    rowsComplete = true
                }
                if rowsComplete, let bad = self.badIndex, let entries = info.palette?.count {
                    events.append(.warning("palette index \(bad.index) (first on row \(bad.row)) is past the \(entries) entries of "
                        + "the PLTE chunk at offset \(paletteOffset); shown opaque black, as libpng does"))
                }
            }
        }
    }
}
