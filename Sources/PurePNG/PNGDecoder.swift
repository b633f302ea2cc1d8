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
    public private(set) var header: ImageHeader?
    /// IHDR, PLTE and tRNS as parsed so far.
    public private(set) var info: PNGInfo?
    /// The ancillary chunks parsed so far.
    public private(set) var metadata = ImageMetadata()
    /// The animation chunks read so far (APNG); their frames are decoded by ``APNGDecoder``.
    var animation = APNGState()
    /// The fewest bytes the image data and the frames declared so far can take
    /// (``DecodingLimits/requiresPlausibleInput``).
    private var leastDataBytes = 0

    private struct Chunk: Sendable {
        var type: ChunkType
        var length: Int
        /// File offset of the chunk's length field.
        var start: Int
    }

    /// A read position in bytes that are all present: either the caller's buffer or the
    /// unread part of `input`. Reads return nil when bytes are short and consume nothing.
    private struct Cursor {
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

    private enum State: Sendable {
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
    private var input = InputBuffer()
    /// File offset of the first byte not yet consumed.
    private var position = 0
    private var state = State.signature
    private var failure: PNGError?
    private(set) var imageData: ImageDataDecoder?
    /// Row mode (``PNGRowDecoder``): a non-interlaced image's rows wait in a block-sized buffer
    /// for the caller instead of filling an image; decoding pauses until they are taken.
    var rowMode = false
    var reportedRows = 0
    private var seenPLTE = false
    var seenIDAT = false
    private var imageDataEnded = false
    private var seenOnce: Set<UInt32> = []
    private var metadataBudget: Int
    /// See ``keepsImage``.
    private var imageComplete = false
    /// File offset of the PLTE chunk (named by the warning about indices past it).
    private var paletteOffset = 0
    /// Bytes after IEND have been reported (once).
    private var reportedAfterEnd = false
    /// Every `.warning` reported so far, with the one ``finish()`` adds when a file whose image
    /// is complete ends before IEND (it has no event to carry it).
    public private(set) var warnings: [String] = []

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
    private mutating func endImage(_ events: inout [DecodingEvent]) {
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

    /// The outer loop: each state waits for the bytes it needs and returns when they are short.
    private mutating func run(_ input: inout Cursor, _ events: inout [DecodingEvent]) throws(PNGError) {
        while true {
            if imageData?.pendingRows.isEmpty == false || animation.paused { return }
            switch state {
            case .signature:
                guard input.count >= 8 else {
                    // A wrong first byte need not wait for the other seven.
                    for i in 0 ..< input.count where input[i] != pngSignature[i] { throw .invalidSignature(offset: i) }
                    return
                }
                for i in 0 ..< 8 where input[i] != pngSignature[i] { throw .invalidSignature(offset: i) }
                input.consume(8)
                state = .chunkHeader

            case .chunkHeader:
                guard let length = input.uint32BE(at: 0), let typeValue = input.uint32BE(at: 4) else { return }
                let start = input.offset()
                guard length <= 0x7FFF_FFFF else { throw .invalidChunkLength(length: length, offset: start) }
                let type = ChunkType(typeValue)
                guard type.isValid else { throw .invalidChunkType(type: type.description, offset: start) }
                input.consume(8)
                try begin(Chunk(type: type, length: Int(length), start: start), &events)

            case let .chunkBody(chunk):
                guard input.count >= chunk.length + 4, let declared = input.uint32BE(at: chunk.length) else { return }
                let data = input.bytes(at: 0, count: chunk.length) ?? []
                var crc = Self.crc(CZlib.crc32(0, nil, 0), chunk.type.bytes)
                crc = Self.crc(crc, data)
                input.consume(chunk.length + 4)
                state = .chunkHeader
                if UInt32(truncatingIfNeeded: crc) != declared && options.checkCRC {
                    let error = PNGError.badCRC(chunk: chunk.type.description, declared: declared,
                                                computed: UInt32(truncatingIfNeeded: crc), offset: chunk.start)
                    try ancillaryCRCError(chunk, error, &events)
                    continue
                }
                try handle(chunk, data[...], &events)

            case .imageData(let chunk, var remaining, var crc):
                if remaining == 0 {
                    state = .checksum(chunk, computed: crc)
                    continue
                }
                guard !input.isEmpty, imageData != nil else { return }
                // libpng reads IDAT in pieces of 8192 bytes from the chunk's start; what follows
                // the last row depends on where its piece ends (see ImageDataDecoder.Phase).
                var pieceLeft = Self.idatPiece - (chunk.length - remaining) % Self.idatPiece
                // Whole pieces more in one call while they cannot complete the image.
                let room = imageData?.bytesBeforeLastRowPossible ?? 0
                if room > pieceLeft + Self.idatPiece { pieceLeft += (room - pieceLeft) / Self.idatPiece * Self.idatPiece }
                let n = min(remaining, input.count, pieceLeft)
                let bytes = input.unread(n)
                // Warnings come after the rows decoded before them (stream order whatever the chunking).
                var fed: [DecodingEvent] = []
                let endsPiece = n == pieceLeft || n == remaining
                let used = min(try imageData?.feed(UnsafeRawBufferPointer(bytes), fileOffset: input.offset(),
                                                   endsPiece: endsPiece, chunkRemaining: remaining - n,
                                                   events: &fed) ?? n, n)
                if !fed.isEmpty {
                    flushRows(&events)
                    events += fed
                }
                if animation.recordsData && animation.fcTLBeforeIDAT {
                    animation.record(input.offset() ..< input.offset() + used, frame: 0)
                }
                crc = CZlib.crc32(crc, bytes.baseAddress, UInt32(used))
                input.consume(used)
                remaining -= used
                state = .imageData(chunk, remaining: remaining, crc: crc)
                if animation.decodesFrames { try completeStaticFrame(endsPiece: endsPiece && used == n, &events) }

            case let .frameSequence(chunk):
                guard let sequence = input.uint32BE(at: 0) else { return }
                var crc = Self.crc(CZlib.crc32(0, nil, 0), chunk.type.bytes)
                crc = CZlib.crc32(crc, input.unread(4).baseAddress, 4)
                input.consume(4)
                state = .frameData(chunk, remaining: chunk.length - 4, crc: crc)
                try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                    try a.take(sequence: sequence, offset: chunk.start)
                    try a.acceptFrameData(offset: chunk.start)
                }

            case .frameData(let chunk, var remaining, var crc):
                if remaining == 0 {
                    state = .checksum(chunk, computed: crc)
                    continue
                }
                guard !input.isEmpty else { return }
                let n = min(remaining, input.count)
                let bytes = input.unread(n)
                crc = CZlib.crc32(crc, bytes.baseAddress, UInt32(n))
                let fileOffset = input.offset()
                input.consume(n)
                remaining -= n
                state = .frameData(chunk, remaining: remaining, crc: crc)
                if animation.recordsData && animation.broken == nil {
                    animation.record(fileOffset ..< fileOffset + n, frame: animation.frames.count - 1)
                }
                if animation.decodesFrames && animation.broken == nil, var frame = animation.frameData {
                    animation.frameData = nil
                    let index = animation.frames.count - 1
                    var feedError: PNGError?
                    do throws(PNGError) {
                        try frame.feed(UnsafeRawBufferPointer(bytes), fileOffset: fileOffset, chunkRemaining: remaining,
                                       events: &events)
                    } catch {
                        feedError = .apngFrameData(frame: index, reason: error.message, offset: error.offset ?? fileOffset)
                    }
                    if let feedError {
                        try animationStep(&events) { (_: inout APNGState) throws(PNGError) in throw feedError }
                    } else {
                        animation.frameData = frame
                        flushRows(&events)
                        // Complete once what follows the last row is judged (the stream's end, or
                        // the chunk's end): the same events whatever the chunking.
                        if frame.rowsComplete && animation.completed == index && (frame.phase == .done || remaining == 0) {
                            try completeFrame(index, from: frame, &events)
                        }
                    }
                }

            case .skipping(let chunk, var remaining, var crc):
                if remaining == 0 {
                    state = .checksum(chunk, computed: crc)
                    continue
                }
                guard !input.isEmpty else { return }
                let n = min(remaining, input.count)
                crc = CZlib.crc32(crc, input.unread(n).baseAddress, UInt32(n))
                input.consume(n)
                remaining -= n
                state = .skipping(chunk, remaining: remaining, crc: crc)

            case let .checksum(chunk, computed):
                guard let declared = input.uint32BE(at: 0) else { return }
                input.consume(4)
                state = .chunkHeader
                if UInt32(truncatingIfNeeded: computed) != declared && options.checkCRC {
                    try ancillaryCRCError(chunk, .badCRC(chunk: chunk.type.description, declared: declared,
                                                         computed: UInt32(truncatingIfNeeded: computed), offset: chunk.start), &events)
                }
                if chunk.type == .IDAT, imageData?.imageDataFinished == true, !options.strict { imageComplete = true }

            case .ended:
                if input.isEmpty { return }
                // libpng stops at IEND and never reads on.
                if options.strict { throw .chunkAfterEnd(offset: input.offset()) }
                if !reportedAfterEnd {
                    reportedAfterEnd = true
                    events.append(.warning("bytes after IEND at offset \(input.offset()) ignored, as libpng does"))
                }
                input.consume(input.count)
                return
            }
        }
    }

    /// libpng's IDAT read size (`PNG_IDAT_READ_SIZE`, 8192 in its default build).
    static let idatPiece = 8192

    /// A CRC mismatch (PNG 5.3), as libpng's default (PNG_CRC_DEFAULT) treats it: an ancillary
    /// chunk is dropped with a warning (an APNG chunk ends the animation), a critical one is an
    /// error; strict decoding throws both.
    private mutating func ancillaryCRCError(_ chunk: Chunk, _ error: PNGError, _ events: inout [DecodingEvent]) throws(PNGError) {
        guard chunk.type.isAncillary, !options.strict else { throw error }
        if chunk.type == .acTL || chunk.type == .fcTL || chunk.type == .fdAT, animation.control != nil {
            try animationStep(&events) { (_: inout APNGState) throws(PNGError) in throw error }
            return
        }
        events.append(.warning("\(chunk.type) chunk at offset \(chunk.start) dropped: wrong CRC, as libpng does"))
    }

    private static func crc(_ crc: UInt, _ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { CZlib.crc32(crc, $0.baseAddress, UInt32($0.count)) }
    }

    /// Ordering rules that must be known before a chunk's data arrives (PNG 5.6), and the
    /// state that reads the data.
    private mutating func begin(_ chunk: Chunk, _ events: inout [DecodingEvent]) throws(PNGError) {
        let type = chunk.type
        guard let info else {
            if type != .IHDR && type.isAncillary && !Self.libpngKnows(type) && !options.strict {
                // libpng skips a chunk it does not know wherever it is, even before IHDR.
                events.append(.warning("\(type) chunk at offset \(chunk.start) before IHDR skipped, as libpng does"))
                state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
                return
            }
            guard type == .IHDR else { throw .missingHeader(offset: chunk.start) }
            // Known from the length field alone: no need to wait for (possibly 2 GiB of) data.
            guard chunk.length == 13 else { throw .invalidHeaderLength(length: UInt32(chunk.length), offset: chunk.start) }
            state = .chunkBody(chunk)
            return
        }
        if type == .IDAT {
            if imageDataEnded {
                guard !options.strict, imageData?.imageDataFinished == true else {
                    throw .nonContiguousImageData(offset: chunk.start)
                }
                // libpng's png_read_end: "Too many IDATs found", the chunk skipped.
                events.append(.warning("IDAT chunk at offset \(chunk.start) after other chunks that follow the image data "
                    + "skipped, as libpng does"))
                state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
                return
            }
            if !seenIDAT { try startImageData(info, chunk, &events) }
            if imageData?.phase == .done && chunk.length > 0 && !options.strict {
                events.append(.warning("IDAT chunk at offset \(chunk.start) after the end of the image data ignored, as libpng does"))
            }
            state = .imageData(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
            return
        }
        // Events in stream order: rows decoded from earlier IDATs come before whatever this chunk reports.
        flushRows(&events)
        if seenIDAT && !imageDataEnded {
            // libpng needs another IDAT piece here (the stream goes on past the last row, or its
            // end has not come): "Not enough image data", an error even though the rows are in.
            if imageData?.needsMoreImageData == true { throw .unterminatedImageData(offset: chunk.start) }
            if imageData?.endImageData() == true {
                events.append(.warning("zlib stream of the image data unfinished before offset \(chunk.start); "
                    + "libpng does not read that far"))
            }
            imageDataEnded = true
        }
        if type == .acTL || type == .fcTL || type == .fdAT {
            // The first fcTL before IDAT is read even before acTL (libpng's APNG reader does).
            let earlyFrameControl = type == .fcTL && !seenIDAT && animation.earlyFrameControl == nil
            if animation.broken != nil || type != .acTL && animation.control == nil && !earlyFrameControl {
                // No animation (or a broken one): an ancillary chunk like any other.
                state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
                return
            }
            let expected = type == .acTL ? 8 : type == .fcTL ? 26 : 4
            let lengthOK = type == .fdAT ? chunk.length >= expected : chunk.length == expected
            if !lengthOK {
                try animationStep(&events) { (_: inout APNGState) throws(PNGError) in
                    throw .apngInvalidChunk(chunk: type.description, reason: "length \(chunk.length)", offset: chunk.start)
                }
                state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
                return
            }
            state = type == .fdAT ? .frameSequence(chunk) : .chunkBody(chunk)
            return
        }
        switch type {
        case .IHDR:
            throw .duplicateChunk(chunk: type.description, offset: chunk.start)
        case .PLTE:
            if seenPLTE { throw .duplicateChunk(chunk: type.description, offset: chunk.start) }
            if seenIDAT {
                // Only a suggested palette can come here (a palette image's PLTE came before IDAT).
                try lenientSkip(chunk, "after IDAT", strict: .chunkOutOfOrder(chunk: type.description, offset: chunk.start), &events)
                return
            }
            if info.colorType == .gray || info.colorType == .grayAlpha {
                seenPLTE = true
                try lenientSkip(chunk, "PLTE in a grayscale image", strict: .unexpectedPalette(offset: chunk.start), &events)
                return
            }
            state = .chunkBody(chunk)
        case .IEND:
            if !seenIDAT { throw .missingImageData(offset: chunk.start) }
            // Checked here rather than where the IDAT run ends, so that IDAT chunks split by
            // another chunk report the split, not the shortfall.
            if let imageData, !imageData.rowsComplete { throw .notEnoughImageData(offset: chunk.start) }
            state = .chunkBody(chunk)
        case .iCCP, .tEXt, .zTXt, .iTXt, .eXIf:
            // Refused before buffering: what is kept is at least about as large as the chunk
            // (deflate cannot shrink data by more than its few bytes of framing).
            if chunk.length > metadataBudget + 64 {
                throw .limitExceeded(.metadata(limit: limits.maxMetadataBytes), offset: chunk.start)
            }
            state = .chunkBody(chunk)
        case .tRNS, .gAMA, .cHRM, .sRGB, .pHYs, .tIME, .bKGD, .sBIT:
            state = .chunkBody(chunk)
        default:
            if type.isCritical { throw .unknownCriticalChunk(chunk: type.description, offset: chunk.start) }
            state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
        }
    }

    /// libpng's default treatment of a chunk it reads past with a warning: strict decoding
    /// throws `strict`; otherwise a `.warning` and the chunk is skipped as it arrives.
    private mutating func lenientSkip(_ chunk: Chunk, _ reason: String, strict: PNGError,
                                      _ events: inout [DecodingEvent]) throws(PNGError) {
        if options.strict { throw strict }
        events.append(.warning("\(chunk.type) chunk at offset \(chunk.start) skipped: \(reason)"))
        state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), chunk.type.bytes))
    }

    /// Chunks libpng 1.6 reads itself (an unknown ancillary chunk is skipped anywhere, even
    /// before IHDR; one of these before IHDR is its "missing IHDR" error).
    private static func libpngKnows(_ type: ChunkType) -> Bool {
        [ChunkType.IHDR, .PLTE, .IDAT, .IEND, .tRNS, .gAMA, .cHRM, .sRGB, .iCCP, .tEXt, .zTXt, .iTXt, .pHYs, .tIME,
         .bKGD, .sBIT, .hIST, .sPLT, .eXIf, ChunkType("oFFs"), ChunkType("pCAL"), ChunkType("sCAL")].contains(type)
    }

    /// At the first IDAT the output format is final: check the limits again, allocate, report the header.
    private mutating func startImageData(_ info: PNGInfo, _ chunk: Chunk, _ events: inout [DecodingEvent]) throws(PNGError) {
        if info.colorType == .palette && info.palette == nil { throw .missingPalette(offset: chunk.start) }
        let format = info.outputFormat
        // A second thread unfilters while the first inflates, for a still image (frames are
        // spread over threads of their own): by default when it is big enough to repay it.
        let wanted = options.threads.map { $0 > 1 }
            ?? (Processors.online > 1 && ImageDataDecoder.filteredBytes(info: info) >= ImageDataDecoder.minimumPipelinedBytes)
        let pipelined = wanted && !rowMode && !animation.decodesFrames && !animation.recordsData
        let (imageBytesPerPixel, extra) = ImageDataDecoder.outputBytes(info: info, rowMode: rowMode, spillAbove: spillAbove,
                                                                       pipelined: pipelined)
        if let violation = limits.check(width: info.width, height: info.height, bytesPerPixel: imageBytesPerPixel,
                                        extraBytes: extra) {
            throw .limitExceeded(violation, offset: chunk.start)
        }
        seenIDAT = true
        var spill: SpillBuffer?
        if ImageDataDecoder.spills(info: info, rowMode: rowMode, spillAbove: spillAbove) {
            do {
                spill = try SpillBuffer(byteCount: info.width * info.height * format.bytesPerPixel, directory: options.spillDirectory)
            } catch {
                throw .temporaryStorage(reason: error.reason)
            }
        }
        imageData = ImageDataDecoder(info: info, rowMode: rowMode, lenient: !options.strict, spill: spill,
                                     pipelined: pipelined)
        imageData?.paletteOffset = paletteOffset
        let header = ImageHeader(fileFormat: .png, width: info.width, height: info.height, pixelFormat: format,
                                 isInterlaced: info.interlaced)
        self.header = header
        events.append(.header(header))
        if animation.decodesFrames && !animation.isAnimated {
            // Decoding frames, a still image (or one whose animation broke before its image
            // data) is an animation of one frame.
            animation.stillFrame = true
            events.append(.frameStarted(0))
        }
    }

    /// A complete chunk other than IDAT.
    private mutating func handle(_ chunk: Chunk, _ data: ArraySlice<UInt8>, _ events: inout [DecodingEvent]) throws(PNGError) {
        let type = chunk.type
        let strict = options.strict
        /// Ignores the chunk with a warning; strict decoding throws `error` (by default
        /// ``PNGError/malformedChunk(chunk:reason:offset:)``).
        func skip(_ reason: String, _ error: PNGError? = nil) throws(PNGError) {
            if strict { throw error ?? .malformedChunk(chunk: type.description, reason: reason, offset: chunk.start) }
            events.append(.warning("\(type) chunk at offset \(chunk.start) skipped: \(reason)"))
        }
        switch type {
        case .IHDR:
            let parsed = try PNGInfo.parseHeader(data, offset: chunk.start)
            // Before any allocation, with the smallest format this header allows (tRNS may add alpha later).
            let (imageBytesPerPixel, extra) = ImageDataDecoder.outputBytes(info: parsed, rowMode: rowMode, spillAbove: spillAbove)
            // The pixel limit first, then what the input can hold, then memory (as JPEG orders them).
            let violation = limits.check(width: parsed.width, height: parsed.height,
                                         bytesPerPixel: imageBytesPerPixel, extraBytes: extra)
            if let violation, case .pixels = violation { throw .limitExceeded(violation, offset: chunk.start) }
            leastDataBytes = ImageDataDecoder.leastCompressedBytes(info: parsed)
            if let plausible = limits.checkPlausible(neededBytes: leastDataBytes) {
                throw .limitExceeded(plausible, offset: chunk.start)
            }
            if let violation { throw .limitExceeded(violation, offset: chunk.start) }
            info = parsed
            return
        case .IEND:
            if !data.isEmpty { try skip("IEND has \(data.count) data bytes") }
            flushRows(&events)
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.endFrameData(offset: chunk.start)
                try a.checkFrameCount(offset: chunk.start)
            }
            endImage(&events)
            return
        default:
            break
        }
        guard var info else { return }
        switch type {
        case .acTL:
            let seenIDAT = seenIDAT
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.readAnimationControl(data, seenIDAT: seenIDAT, offset: chunk.start)
            }
            if let control = animation.control, animation.broken == nil, control.frameCount > limits.maxFrames {
                throw .limitExceeded(.frames(limit: limits.maxFrames), offset: chunk.start)
            }
            if let early = animation.earlyFrameControl {
                animation.earlyFrameControl = nil
                try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                    _ = try a.readFrameControl(early.data[...], info: info, seenIDAT: seenIDAT, offset: early.offset)
                }
                if animation.decodesFrames && animation.broken == nil { startFrame(info, &events) }
            }
            return
        case .fcTL:
            let seenIDAT = seenIDAT
            if animation.control == nil && animation.broken == nil && !seenIDAT && animation.earlyFrameControl == nil {
                // The first fcTL before acTL: libpng's APNG reader asks only for IHDR before an
                // fcTL and no IDAT yet, so browsers play such files; taken once acTL comes.
                guard !strict else { throw .apngInvalidChunk(chunk: "fcTL", reason: "before acTL", offset: chunk.start) }
                events.append(.warning("fcTL chunk at offset \(chunk.start) comes before acTL; taken as the first frame once acTL comes (libpng's APNG reader accepts this order)"))
                animation.earlyFrameControl = (Array(data), chunk.start)
                return
            }
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.endFrameData(offset: chunk.start)
                _ = try a.readFrameControl(data, info: info, seenIDAT: seenIDAT, offset: chunk.start)
            }
            if seenIDAT, animation.broken == nil, let frame = animation.frames.last {
                // Each frame after the static image brings data of its own.
                let (sum, overflow) = leastDataBytes.addingReportingOverflow(
                    ImageDataDecoder.leastCompressedBytes(info: APNGState.frameInfo(info, frame)))
                leastDataBytes = overflow ? .max : sum
                if let violation = limits.checkPlausible(neededBytes: leastDataBytes) {
                    throw .limitExceeded(violation, offset: chunk.start)
                }
            }
            if animation.decodesFrames && animation.broken == nil { startFrame(info, &events) }
            return
        case .PLTE:
            seenPLTE = true
            paletteOffset = chunk.start
            var parsed = true
            do throws(PNGError) {
                info.palette = try info.parsePalette(data, offset: chunk.start)
            } catch {
                parsed = false
                // libpng: a palette image's PLTE must be right; a suggested palette is ancillary.
                if info.colorType == .palette && (data.count % 3 != 0 || data.isEmpty || data.count > 768) { throw error }
                if info.colorType == .palette {
                    // More entries than the depth can index: libpng keeps the first 2^depth.
                    try skip("\(data.count / 3) entries for a \(info.bitDepth)-bit image, the first \(1 << info.bitDepth) kept", error)
                    info.palette = Palette(rgb: data.prefix(3 << info.bitDepth))
                } else {
                    try skip("\(data.count) bytes is not a palette", error)
                }
            }
            if parsed, info.colorType != .palette, info.transparency != nil {
                // libpng (png_handle_PLTE): tRNS must come after PLTE; it cancels the tRNS.
                try skip("tRNS before PLTE is cancelled, as libpng does", .chunkOutOfOrder(chunk: "tRNS", offset: chunk.start))
                info.transparency = nil
            }
        case .tRNS:
            if seenIDAT { return try skip("after IDAT", .chunkOutOfOrder(chunk: type.description, offset: chunk.start)) }
            if seenOnce.contains(type.value) { return try skip("duplicate", .duplicateChunk(chunk: type.description, offset: chunk.start)) }
            if info.colorType == .palette && !seenPLTE {
                return try skip("before PLTE", .chunkOutOfOrder(chunk: type.description, offset: chunk.start))
            }
            // libpng ignores an empty palette tRNS rather than adding an all-opaque alpha channel.
            if info.colorType == .palette && data.isEmpty {
                return try skip("empty", .invalidTransparency(reason: "empty palette tRNS", offset: chunk.start))
            }
            let transparency: PNGInfo.Transparency
            do throws(PNGError) {
                transparency = try info.parseTransparency(data, offset: chunk.start)
            } catch {
                return try skip(error.message, error)
            }
            if let problem = info.outOfRangeKey(transparency) {
                // libpng warns and compares the low bits only (RowExpander masks the key).
                if strict { throw .invalidTransparency(reason: problem, offset: chunk.start) }
                events.append(.warning("tRNS chunk at offset \(chunk.start): \(problem); its low bits are used, as libpng does"))
            }
            seenOnce.insert(type.value)
            info.transparency = transparency
            if case let .palette(alphas) = transparency, let palette = info.palette {
                var rgba = palette.rgba
                for (i, a) in alphas.enumerated() { rgba[4 * i + 3] = a }
                info.palette = Palette(rgba: rgba)
            }
        default:
            if let problem = Self.placementProblem(type, seenPLTE: seenPLTE, seenIDAT: seenIDAT, colorType: info.colorType) {
                return try skip(problem)
            }
            let repeatable = type == .tEXt || type == .zTXt || type == .iTXt
            if !repeatable && seenOnce.contains(type.value) { return try skip("duplicate") }
            if type == .sRGB && metadata.iccProfile != nil || type == .iCCP && metadata.sRGBIntent != nil {
                return try skip("both iCCP and sRGB present")
            }
            let outcome = try PNGMetadata.parse(type, data, info: info, into: &metadata, budget: &metadataBudget,
                                                limits: limits, offset: chunk.start)
            if case let .skipped(reason) = outcome { return try skip(reason) }
            seenOnce.insert(type.value)
        }
        self.info = info
    }
}
