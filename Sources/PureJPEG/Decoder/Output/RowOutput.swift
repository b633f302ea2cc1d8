import ImageCore

/// Row mode's output side: where finished rows wait until the caller of ``JPEGRowDecoder`` takes them.
///
/// A streamable frame (sequential, first scan holding every component) never gets an output
/// image: each MCU row's finished output rows go into `buffer`, which holds two bands (the last
/// MCU row finishes the band above it and itself when the vertical triangle filter lags one
/// band). The decoder pauses after every band with rows (`ScanDriver`) until the caller has
/// taken them, so the buffer is never overwritten unread.
struct RowOutput: Sendable {
    var buffer: [UInt8] = []
    /// Rows in `buffer` not yet handed out; the first is at the buffer's start.
    var pending: Range<Int> = 0 ..< 0
    /// Rows an early EOI left undecoded: handed out mid-gray (as `decode` fills them), a band at a time.
    var gray: Range<Int> = 0 ..< 0
    var bandRows = 0
    /// Two threads (``BandWorker``): batches of rows go to two slots instead of `buffer`, the
    /// worker writing one while the caller takes the other. `pending` is then in slot
    /// `pendingSlot`, and `queued` holds rows of the other slot that go out after it.
    var slots: RowSlots?
    var pendingSlot = 0
    var queued: (rows: Range<Int>, slot: Int)?

    /// Rows finished in `slot` (two threads, one MCU row's at a time): out after those already
    /// waiting, joined to the rows of the same slot before them.
    mutating func add(_ rows: Range<Int>, slot: Int) {
        if pending.isEmpty {
            pending = rows
            pendingSlot = slot
        } else if queued == nil && pendingSlot == slot {
            pending = pending.lowerBound ..< rows.upperBound
        } else if let q = queued {
            queued = (q.rows.lowerBound ..< rows.upperBound, slot)
        } else {
            queued = (rows, slot)
        }
    }

    /// Where the pending rows are: the slot's memory with two threads, else `buffer`'s.
    func withPendingBytes<R>(_ body: (UnsafeRawPointer) throws -> R) rethrows -> R? {
        if let slots { return try body(UnsafeRawPointer(slots[pendingSlot])) }
        return try buffer.withUnsafeBytes { raw in try raw.baseAddress.map(body) }
    }

    /// Bytes of the band buffer for this output (two bands of output rows).
    static func bufferBytes(width: Int, bandRows: Int, bytesPerPixel: Int) -> Int {
        2 * max(bandRows, 1) * width * bytesPerPixel
    }

    mutating func start(geometry: OutputGeometry) {
        bandRows = max(geometry.bandRows, 1)
        buffer = [UInt8](repeating: 0, count: max(Self.bufferBytes(width: geometry.width, bandRows: bandRows,
                                                                  bytesPerPixel: geometry.format.bytesPerPixel), 1))
    }
}

/// Row mode's output on two threads: two slots of a batch of output rows each, in memory that
/// does not move while the worker writes one slot and the caller reads the other.
/// `@unchecked Sendable`: a slot is written by one thread at a time, and read only after the
/// decoder has waited for the batch that wrote it.
final class RowSlots: @unchecked Sendable {
    private let base: UnsafeMutablePointer<UInt8>
    let slotBytes: Int

    init(slotBytes: Int) {
        self.slotBytes = max(slotBytes, 1)
        base = .allocate(capacity: 2 * self.slotBytes)
        base.initialize(repeating: 0, count: 2 * self.slotBytes)
    }

    /// A copy for a decoder copy (rows may be waiting in it).
    func copy() -> RowSlots {
        let other = RowSlots(slotBytes: slotBytes)
        other.base.update(from: base, count: 2 * slotBytes)
        return other
    }

    deinit { base.deallocate() }

    subscript(slot: Int) -> UnsafeMutablePointer<UInt8> { base + (slot & 1) * slotBytes }
}

extension JPEGDecoder {
    /// Bytes per pixel of an output image and bytes of the row-mode band buffer, for the limits
    /// check: row mode keeps a band buffer, not the image (a coefficient-mode file's final pass
    /// renders into it band by band).
    func outputBytes(format: PixelFormat, whole: Bool, width: Int, bandRows: Int) -> (imageBytesPerPixel: Int, bandBytes: Int) {
        guard rowOutput != nil else { return (format.bytesPerPixel, 0) }
        return (0, RowOutput.bufferBytes(width: width, bandRows: bandRows, bytesPerPixel: format.bytesPerPixel))
    }

    /// Row mode: band `band` of every component is decoded; its finished rows go to the band buffer.
    mutating func emitRowBand(_ band: Int) -> Range<Int> {
        let origin = rowsDone
        // What this band can emit lies in band `band` (and the one above when the vertical filter
        // lags): it must fit the buffer from `origin`.
        guard var pipeline = streamState.pipeline, var out = rowOutput,
              pipeline.rows(ofBand: pipeline.geometry.needsContext ? max(band - 1, 0) : band).lowerBound >= origin,
              pipeline.rows(ofBand: band).upperBound - origin <= 2 * out.bandRows,
              out.buffer.count >= 2 * out.bandRows * pipeline.geometry.width * pipeline.geometry.format.bytesPerPixel
        else { return 0 ..< 0 }
        self.streamState.pipeline = nil
        rowOutput = nil
        let rows = out.buffer.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { pipeline.bandDone(band, output: $0, origin: origin) } ?? 0 ..< 0
        }
        out.pending = rows
        self.streamState.pipeline = pipeline
        rowOutput = out
        return rows
    }

    /// Memory row mode keeps beside the unread input: band rings, upsampled rows, the band
    /// buffer, and (non-streamable files only) coefficients and the image. Tests check that it
    /// does not depend on the image height.
    var retainedBytes: Int {
        var total = (coefficientState.store.isSpilled ? DecodedCoefficients.window : coefficientState.store.count * MemoryLayout<Int16>.stride)
            + (image?.pixels.count ?? 0)
        if let pipeline = streamState.pipeline { total += pipeline.planes.count + pipeline.upsampled.count + pipeline.scratch.count }
        if let rowOutput { total += rowOutput.buffer.count + 2 * (rowOutput.slots?.slotBytes ?? 0) }
        if let worker = streamState.bandWorker { total += worker.retainedBytes }
        return total
    }
}

/// A JPEG decoder that hands out finished rows instead of building the image, so a huge
/// sequential JPEG decodes in memory independent of its height.
///
/// For sequential files whose first scan holds every component (baseline and extended JPEGs
/// as cameras and encoders write them, interleaved) no output image is allocated: rows go out
/// band by band (one MCU row, 8 or 16 rows at full size) as the bytes arrive. It keeps the
/// pipeline's three MCU-row rings per component, one band of upsampled chroma, a two-band
/// output buffer and the unread input, a few hundred KB for a 16000-pixel-wide image. With
/// ``JPEGDecodingOptions/threads`` above 1 (by default from half a megapixel, with a second
/// processor) a second thread reconstructs batches of MCU rows while this one entropy-decodes
/// the next, and rows go out a batch at a time (about 1 MB of rows, at most 16 MCU rows; a
/// few MB in all, still independent of the height). Progressive and multi-scan sequential
/// files are decoded whole (within the limits) and their rows handed out at EOI.
///
/// Rows arrive top to bottom, each exactly once, in the order of the `.rows` events, with the
/// same pixels as ``JPEGDecoder/decode(_:limits:options:)`` (without `applyOrientation`, which
/// row mode ignores: the rows are as stored). `DecodingLimits.maxBytes` counts the band buffers
/// instead of the image for streamable files. A truncated file hands out the rows decoded so far,
/// then throws ``JPEGError/truncated(offset:partial:)`` with a nil partial image. An EOI before
/// the last row hands out the missing rows mid-gray, as `decode` does.
///
/// ```swift
/// var decoder = JPEGRowDecoder()
/// for chunk in chunks {
///     try decoder.append(chunk) { band in
///         for i in 0 ..< band.count { write(row: band.y + i, band.row(i)) }
///     }
/// }
/// try decoder.finish { band in write(band) }
/// ```
public struct JPEGRowDecoder: RowStreamingDecoder, Sendable {
    var decoder: JPEGDecoder

    /// A row decoder waiting for the first bytes. `options.applyOrientation` is ignored (rows are
    /// as stored); `limits.maxBytes` counts the band buffers for streamable files.
    public init(limits: DecodingLimits = .default, options: JPEGDecodingOptions = .init()) {
        decoder = JPEGDecoder(limits: limits, options: options)
        decoder.rowOutput = RowOutput()
    }

    /// The limits in force.
    public var limits: DecodingLimits { decoder.limits }
    /// The decoding options in force.
    public var options: JPEGDecodingOptions { decoder.options }
    /// Size and pixel format of the rows, after the `.header` event.
    public var header: ImageHeader? { decoder.header }
    /// The frame and table facts, after SOF.
    public var info: JPEGInfo? { decoder.info }
    /// The metadata read so far (ICC, EXIF, JFIF density, comments).
    public var metadata: ImageMetadata { decoder.metadata }
    /// Every warning so far, those of ``finish(rows:)`` included (``JPEGDecoder/warnings``).
    public var warnings: [String] { decoder.warnings }
    /// Input bytes consumed; after `.end`, the offset just past EOI (where a JPNG's mask begins).
    public var bytesConsumed: Int { decoder.bytesConsumed }
    /// True when rows come out as the bytes arrive (no output image), false when they come at
    /// EOI (progressive, multi-scan); known at the first scan.
    public var isStreaming: Bool { decoder.mode == .streaming && decoder.rowOutput != nil }
    /// Memory held beside the unread input (band rings, band buffer; coefficients and image when whole).
    var retainedBytes: Int { decoder.retainedBytes }

    /// Feeds the next bytes; `rows` receives every band that became final, before this returns.
    /// Throws a `JPEGError`, or what `rows` throws. Bytes after EOI are ignored.
    @discardableResult
    public mutating func append(_ bytes: UnsafeRawBufferPointer, rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        var events = try resume(bytes, rows)
        try drain(&events, rows)
        return events
    }

    /// The decoder's `append`; when it throws, the rows finished before the error go out first
    /// (two threads can leave a batch's rows waiting; one thread never has any).
    private mutating func resume(_ bytes: UnsafeRawBufferPointer, _ rows: (RowBand) throws -> Void) throws -> [DecodingEvent] {
        do {
            return try decoder.append(bytes)
        } catch {
            while try handPendingRows(rows) {}
            throw error
        }
    }

    /// Ends the input: `rows` receives what is left. A file cut short is completed as libjpeg
    /// completes it (``JPEGLeniencies/truncation``; its warning in ``warnings``); without that
    /// leniency, or before the first scan, it throws ``JPEGError/truncated(offset:partial:)``
    /// (partial nil) after the rows decoded so far.
    public mutating func finish(rows: (RowBand) throws -> Void) throws {
        if let failure = decoder.failure { throw failure }
        var events: [DecodingEvent] = []
        // A file cut short is completed as libjpeg completes it (``JPEGLeniencies/truncation``);
        // what the supplied EOI cannot complete is a truncation.
        let supplied = decoder.supplyEndOfImage()
        do {
            if decoder.phase != .done {
                decoder.input.isFinished = true
                events = try resume(UnsafeRawBufferPointer(start: nil, count: 0), rows)
            }
            try drain(&events, rows)
        } catch let error as JPEGError {
            guard let supplied else { throw error }
            let cut = JPEGError.truncated(offset: supplied, partial: nil)
            decoder.failure = cut
            throw cut
        }
        if decoder.phase != .done {
            let error = JPEGError.truncated(offset: decoder.input.offset(decoder.input.count), partial: nil)
            decoder.failure = error
            throw error
        }
    }

    /// Hands out the rows waiting in the band buffer; false when none were waiting.
    private mutating func handPendingRows(_ rows: (RowBand) throws -> Void) throws -> Bool {
        guard let header = decoder.header, let pending = decoder.rowOutput?.pending, !pending.isEmpty else { return false }
        decoder.rowOutput?.pending = 0 ..< 0
        let rowBytes = header.width * header.pixelFormat.bytesPerPixel
        defer {
            // Rows of the other slot go out next.
            if let next = decoder.rowOutput?.queued {
                decoder.rowOutput?.queued = nil
                decoder.rowOutput?.add(next.rows, slot: next.slot)
            }
        }
        do {
            try decoder.rowOutput?.withPendingBytes { base in
                try rows(RowBand(y: pending.lowerBound, count: pending.count, width: header.width,
                                 format: header.pixelFormat, bytesPerRow: rowBytes, base: base))
            }
        } catch {
            // The second thread stops with its batch kept for the next call.
            decoder.settleRowWorker()
            throw error
        }
        return true
    }

    /// Hands out the pending band and resumes decoding until the input is used up; then, at the
    /// end, the gray rows and the rows of a whole (non-streamable) image.
    private mutating func drain(_ events: inout [DecodingEvent], _ rows: (RowBand) throws -> Void) throws {
        // Nothing of `decoder` is held across the resuming `append`, so its buffers are not copied.
        while try handPendingRows(rows) {
            events += try resume(UnsafeRawBufferPointer(start: nil, count: 0), rows)
        }
        guard decoder.phase == .done, let header = decoder.header else { return }
        // Coefficient mode's final pass: a band at a time, as the rows are taken.
        while decoder.coefficientState.finalRender != nil && decoder.renderNextRows(), try handPendingRows(rows) {}
        if let gray = decoder.rowOutput?.gray, !gray.isEmpty {
            decoder.rowOutput?.gray = 0 ..< 0
            let bandRows = decoder.rowOutput?.bandRows ?? 1
            let rowBytes = header.width * header.pixelFormat.bytesPerPixel
            let fill = [UInt8](repeating: 128, count: max(bandRows * rowBytes, 1))
            try fill.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                var y = gray.lowerBound
                while y < gray.upperBound {
                    let n = min(bandRows, gray.upperBound - y)
                    try rows(RowBand(y: y, count: n, width: header.width, format: header.pixelFormat,
                                     bytesPerRow: rowBytes, base: base))
                    y += n
                }
            }
        }
        if let image = decoder.image {
            // A whole image (progressive, multi-scan): handed out once, then released.
            decoder.image = nil
            try image.withRowBand(0 ..< image.height, rows)
        }
    }
}
