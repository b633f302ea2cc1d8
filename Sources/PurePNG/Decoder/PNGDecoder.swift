import CZlib
import ImageCore

/// An incremental PNG decoder (PNG Third Edition): feed bytes as they arrive, get events as
/// rows become final, and the image at the end.
///
/// ```swift
/// var decoder = PNGDecoder()
/// for piece in download {
///     for event in try decoder.append(piece) {
///         if case .rows(let rows) = event { print("rows \(rows) ready") }
///     }
/// }
/// let image = try decoder.finish()            // native format, e.g. .rgba8 or .gray16
/// let rgba = image.converted(to: .rgba8)
/// ```
///
/// The output keeps the source's channels and depth: gray 1/2/4/8 bits gives `.gray8`,
/// 16 bits `.gray16`; palette images give `.rgb8` (`.rgba8` with tRNS); a tRNS colour key
/// adds an alpha channel. The `.header` event comes at the first IDAT, when the format is final.
public struct PNGDecoder: IncrementalImageDecoder {
    /// Every method throws ``PNGError``.
    public typealias Failure = PNGError

    let limits: DecodingLimits
    let options: PNGDecodingOptions
    /// Size and output pixel format, known at the `.header` event (the first IDAT, once PLTE and
    /// tRNS can no longer change the format).
    public internal(set) var header: ImageHeader?
    /// IHDR, PLTE and tRNS as parsed so far.
    public internal(set) var info: PNGInfo?
    /// The ancillary chunks parsed so far.
    public internal(set) var metadata = ImageMetadata()
    /// The animation chunks read so far (APNG); their frames are decoded by ``APNGDecoder``.
    var animation = APNGState()
    /// The fewest bytes the image data and the frames declared so far can take
    /// (``DecodingLimits/requiresPlausibleInput``).
    var leastDataBytes = 0

    struct Chunk: Sendable {
        var type: ChunkType
        var length: Int
        /// File offset of the chunk's length field.
        var start: Int
    }

    /// A read position in bytes that are all present: either the caller's buffer or the
    /// unread part of `input`. Reads return nil when bytes are short and consume nothing.
    struct Cursor {
        let data: UnsafeBufferPointer<UInt8>
        let base: Int
        private(set) var position = 0

        init(data: UnsafeBufferPointer<UInt8>, base: Int) {
            self.data = data
            self.base = base
        }

        var count: Int { data.count - position }
        var isEmpty: Bool { position >= data.count }
        /// File offset of the byte `delta` past the position.
        func offset(_ delta: Int = 0) -> Int { base + position + delta }
        /// The caller has checked `delta < count`.
        subscript(delta: Int) -> UInt8 { data[position + delta] }

        func uint32BE(at delta: Int) -> UInt32? {
            guard delta >= 0, count >= delta + 4 else { return nil }
            let i = position + delta
            return UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
        }

        func bytes(at delta: Int, count length: Int) -> [UInt8]? {
            guard delta >= 0, length >= 0, count >= delta + length else { return nil }
            return Array(data[(position + delta) ..< (position + delta + length)])
        }

        mutating func consume(_ n: Int) { position += min(max(n, 0), count) }

        /// The next `n` unread bytes (the caller has checked `n <= count`), valid while `data` is.
        func unread(_ n: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: data[position ..< position + n])
        }
    }

    enum State: Sendable {
        case signature
        case chunkHeader
        /// Waiting for the whole chunk and its CRC (small chunks parsed in one piece).
        case chunkBody(Chunk)
        /// IDAT payload, fed to zlib as it arrives.
        case imageData(Chunk, remaining: Int, crc: UInt)
        /// An unknown ancillary chunk, dropped as it arrives.
        case skipping(Chunk, remaining: Int, crc: UInt)
        /// The 4 CRC bytes of a streamed chunk.
        case checksum(Chunk, computed: UInt)
        /// An fdAT's sequence number (its first 4 bytes).
        case frameSequence(Chunk)
        /// The rest of an fdAT: a frame's compressed data, decoded or dropped.
        case frameData(Chunk, remaining: Int, crc: UInt)
        case ended
    }

    /// Bytes received but not yet consumed (a partial chunk header, a chunk waiting whole).
    var input = InputBuffer()
    /// File offset of the first byte not yet consumed.
    var position = 0
    var state = State.signature
    var failure: PNGError?
    var imageData: ImageDataDecoder?
    /// Row mode (``PNGRowDecoder``): a non-interlaced image's rows wait in a block-sized buffer
    /// for the caller instead of filling an image; decoding pauses until they are taken.
    var rowMode = false
    var reportedRows = 0
    var seenPLTE = false
    var seenIDAT = false
    var imageDataEnded = false
    var seenOnce: Set<UInt32> = []
    var metadataBudget: Int
    /// See ``keepsImage``.
    var imageComplete = false
    /// File offset of the PLTE chunk (named by the warning about indices past it).
    var paletteOffset = 0
    /// Bytes after IEND have been reported (once).
    var reportedAfterEnd = false
    /// Every `.warning` reported so far, with the one ``finish()`` adds when a file whose image
    /// is complete ends before IEND (it has no event to carry it).
    public internal(set) var warnings: [String] = []

    /// A decoder waiting for the signature.
    /// - Parameters:
    ///   - limits: Bounds on pixels, memory, decompression ratio and decompressed metadata,
    ///     checked at the header before any image buffer is allocated.
    ///   - options: CRC checking.
    public init(limits: DecodingLimits = .default, options: PNGDecodingOptions = .init()) {
        self.limits = limits
        self.options = options
        metadataBudget = limits.maxMetadataBytes
    }

    /// Decodes a whole PNG held in memory.
    ///
    /// ```swift
    /// let image = try PNGDecoder.decode(Array(data))
    /// ```
    public static func decode(_ bytes: [UInt8], limits: DecodingLimits = .default,
                              options: PNGDecodingOptions = .init()) throws(PNGError) -> Image {
        var decoder = PNGDecoder(limits: limits.knowingInputSize(bytes.count), options: options)
        _ = try decoder.append(bytes)
        return try decoder.finish()
    }

    /// Feeds the next bytes and decodes as far as they allow; returns what became available:
    /// `.header` at the first IDAT, `.rows` as rows are unfiltered (non-interlaced),
    /// `.passComplete` per Adam7 pass, `.warning` for each damage read past (see
    /// ``PNGDecodingOptions``), `.end` at IEND (or where an error after the complete image data
    /// ends the file).
    ///
    /// Throws a ``PNGError`` whose case carries the byte offset of the offending chunk or data;
    /// after an error every later call throws the same error. Bytes after IEND are ignored (one
    /// warning), or throw ``PNGError/chunkAfterEnd(offset:)`` when strict.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) throws(PNGError) -> [DecodingEvent] {
        if let failure { throw failure }
        var events: [DecodingEvent] = []
        var thrown: PNGError?
        // Taken out of `self` while `run` (which mutates `self`) reads from it.
        var pending = input
        input = InputBuffer()
        if pending.isEmpty {
            // The usual case: work straight from the caller's bytes and keep only what is left.
            let typed = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
            var cursor = Cursor(data: typed, base: position)
            do throws(PNGError) { try run(&cursor, &events) } catch { thrown = error }
            position = cursor.offset()
            if thrown == nil && !cursor.isEmpty {
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: typed[cursor.position...]))
            }
        } else {
            pending.append(contentsOf: bytes)
            let base = position
            let used = pending.withUnsafeUnread { unread in
                var cursor = Cursor(data: unread, base: base)
                do throws(PNGError) { try run(&cursor, &events) } catch { thrown = error }
                return cursor.position
            }
            pending.consume(used)
            position += used
        }
        // Rows still being unfiltered on the second thread are done before the caller looks;
        // they precede whatever was thrown after them, so their error is the one.
        do throws(PNGError) { try imageData?.drain(events: &events) } catch { thrown = error }
        if let error = thrown, keepsImage {
            // libpng's png_read_end: the rows are all delivered, so the image stands.
            thrown = nil
            pending = InputBuffer()
            flushRows(&events)
            events.append(.warning("\(error.message) at offset \(error.offset ?? position), after the image data; "
                + "the image stands, as libpng-based viewers show it"))
            reportedAfterEnd = true
            endImage(&events)
        }
        input = pending
        if let thrown {
            failure = thrown
            throw thrown
        }
        flushRows(&events)
        for case let .warning(text) in events { warnings.append(text) }
        return events
    }

    /// The image is complete as libpng reads it (every row, the image data's zlib stream
    /// finished or given up as libpng does, the CRC of the IDAT where that happened checked):
    /// by default an error in what follows ends the file with a `.warning` and the image.
    /// A valid animation being decoded keeps its errors.
    var keepsImage: Bool {
        if options.strict || !imageComplete { return false }
        if case .ended = state { return false }
        return !(animation.control != nil && animation.broken == nil && (animation.decodesFrames || animation.recordsData))
    }

    /// `.end` (after frame 0 when a still image is decoded as an animation), and nothing more is read.
    mutating func endImage(_ events: inout [DecodingEvent]) {
        if animation.stillFrame { events.append(.frameComplete(0)) }
        events.append(.end)
        state = .ended
    }

    /// Input over before IEND: by default, when the image is complete, the file ends there
    /// with a warning (libpng's png_read_end fails, the image stands). True when it does.
    mutating func endInputKeepingImage() -> Bool {
        guard keepsImage else { return false }
        warnings.append("file ends at offset \(position + input.count) before IEND, after the image data; "
            + "the image stands, as libpng-based viewers show it")
        state = .ended
        input = InputBuffer()
        return true
    }

    /// Whether the file is an APNG whose animation chunks are valid so far.
    public var isAnimated: Bool { animation.isAnimated }
    /// The APNG animation control (acTL), when the file has a valid one.
    public var animationControl: APNGAnimationControl? { animation.isAnimated ? animation.control : nil }
    /// The APNG frames (fcTL) read so far, while the animation is valid.
    public var frameControls: [APNGFrameControl] { animation.isAnimated ? animation.frames : [] }

    /// Ends the input and returns the image in the decoder's output format (see the type's
    /// discussion) with the metadata read.
    ///
    /// Throws ``PNGError/truncated(offset:partial:)`` before IEND: `partial` holds the rows decoded
    /// so far (the rest zero), or for Adam7 the passes so far with pixels replicated. By default a
    /// file whose image data is complete (as libpng reads it) may end before IEND: the image is
    /// returned and ``warnings`` says so.
    public mutating func finish() throws(PNGError) -> Image {
        if let failure { throw failure }
        if case .ended = state, let image = preview() { return image }
        if endInputKeepingImage(), let image = preview() { return image }
        let error = PNGError.truncated(offset: position + input.count, partial: preview())
        failure = error
        throw error
    }

    /// IEND has been read.
    var hasEnded: Bool {
        if case .ended = state { return true }
        return false
    }

    /// Row mode's `finish` on short input: the truncation error without a partial image.
    mutating func failTruncated() -> PNGError {
        let error = PNGError.truncated(offset: position + input.count, partial: nil)
        failure = error
        return error
    }

    /// Row mode's spill threshold (``PNGDecodingOptions/spillAbove``; nil outside row mode).
    var spillAbove: Int? { rowMode ? options.spillAbove : nil }

    /// Row mode: the caller has taken the waiting rows.
    mutating func takePendingRows() { imageData?.pendingRows = 0 ..< 0 }

    var failed: PNGError? { failure }

    /// The image so far: decoded rows, the rest zero; for Adam7, the completed passes with each
    /// pixel replicated over the gaps later passes fill. Nil before the `.header` event.
    public func preview() -> Image? {
        guard let header, let imageData else { return nil }
        return Image(width: header.width, height: header.height, format: header.pixelFormat,
                     pixels: imageData.previewPixels(), metadata: metadata)
    }

    mutating func flushRows(_ events: inout [DecodingEvent]) {
        let rows = imageData?.rowsDecoded ?? 0
        if rows > reportedRows {
            // Decoding frames, the static image's rows are news only when it is frame 0.
            if !animation.decodesFrames || animation.stillFrame || animation.fcTLBeforeIDAT && animation.broken == nil {
                events.append(.rows(reportedRows ..< rows))
            }
            reportedRows = rows
        }
        if let frame = animation.frameData, frame.rowsDecoded > animation.reportedRows {
            events.append(.rows(animation.reportedRows ..< frame.rowsDecoded))
            animation.reportedRows = frame.rowsDecoded
        }
    }
}
