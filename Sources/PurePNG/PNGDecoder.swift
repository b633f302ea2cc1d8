import CZlib
import ImageCore

/// Choices that change how strictly a PNG is read.
///
/// ```swift
/// let image = try PNGDecoder.decode(bytes, options: PNGDecodingOptions(checkCRC: false))
/// ```
public struct PNGDecodingOptions: Sendable, Equatable {
    /// When true (the default) any CRC mismatch is ``PNGError/badCRC(chunk:declared:computed:offset:)``; when false CRC
    /// mismatches are ignored (libpng's "benign" CRC option).
    public var checkCRC: Bool = true
    /// When false (the default), an APNG whose animation chunks break the APNG specification is
    /// read as its static image, with a `.warning`, as browsers show it; when true, the broken
    /// rule is thrown (`PNGError.apngSequence`, `.apngFrameOutsideCanvas`, `.apngInvalidChunk`,
    /// `.apngFrameCount`, `.apngFrameData`).
    public var strict: Bool = false
    /// Threads that decode APNG frames ahead while `APNGAnimation`'s iterator composites them:
    /// nil (the default) uses the processors online, 1 decodes each frame when it is asked for.
    /// The frames are the same whatever the count.
    public var threads: Int?

    /// Options; by default every chunk's CRC is checked, a broken animation falls back to the
    /// static image, and APNG frames are decoded ahead on every core.
    public init(checkCRC: Bool = true, strict: Bool = false, threads: Int? = nil) {
        self.checkCRC = checkCRC
        self.strict = strict
        self.threads = threads
    }
}

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
    private var reportedRows = 0
    private var seenPLTE = false
    private var seenIDAT = false
    private var imageDataEnded = false
    private var seenOnce: Set<UInt32> = []
    private var metadataBudget: Int

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
    /// `.passComplete` per Adam7 pass, `.warning` for a skipped malformed ancillary chunk, `.end`
    /// at IEND.
    ///
    /// Throws a ``PNGError`` whose case carries the byte offset of the offending chunk or data;
    /// after an error every later call throws the same error. Bytes after IEND throw
    /// ``PNGError/chunkAfterEnd(offset:)``.
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
        input = pending
        if let thrown {
            failure = thrown
            throw thrown
        }
        flushRows(&events)
        return events
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
    /// so far (the rest zero), or for Adam7 the passes so far with pixels replicated.
    public mutating func finish() throws(PNGError) -> Image {
        if let failure { throw failure }
        if case .ended = state, let image = preview() { return image }
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

    private mutating func flushRows(_ events: inout [DecodingEvent]) {
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
                    throw .badCRC(chunk: chunk.type.description, declared: declared,
                                  computed: UInt32(truncatingIfNeeded: crc), offset: chunk.start)
                }
                try handle(chunk, data[...], &events)

            case .imageData(let chunk, var remaining, var crc):
                if remaining == 0 {
                    state = .checksum(chunk, computed: crc)
                    continue
                }
                guard !input.isEmpty, imageData != nil else { return }
                let n = min(remaining, input.count)
                let bytes = input.unread(n)
                let used = min(try imageData?.feed(UnsafeRawBufferPointer(bytes), fileOffset: input.offset(), events: &events) ?? n, n)
                if animation.recordsData && animation.fcTLBeforeIDAT {
                    animation.record(input.offset() ..< input.offset() + used, frame: 0)
                }
                crc = CZlib.crc32(crc, bytes.baseAddress, UInt32(used))
                input.consume(used)
                remaining -= used
                state = .imageData(chunk, remaining: remaining, crc: crc)
                if animation.decodesFrames { try completeStaticFrame(&events) }

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
                        try frame.feed(UnsafeRawBufferPointer(bytes), fileOffset: fileOffset, events: &events)
                    } catch {
                        feedError = .apngFrameData(frame: index, reason: error.message, offset: error.offset ?? fileOffset)
                    }
                    if let feedError {
                        try animationStep(&events) { (_: inout APNGState) throws(PNGError) in throw feedError }
                    } else {
                        animation.frameData = frame
                        flushRows(&events)
                        if frame.rowsComplete && animation.completed == index { try completeFrame(index, from: frame, &events) }
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
                    throw .badCRC(chunk: chunk.type.description, declared: declared,
                                  computed: UInt32(truncatingIfNeeded: computed), offset: chunk.start)
                }

            case .ended:
                if !input.isEmpty { throw .chunkAfterEnd(offset: input.offset()) }
                return
            }
        }
    }

    private static func crc(_ crc: UInt, _ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { CZlib.crc32(crc, $0.baseAddress, UInt32($0.count)) }
    }

    /// Ordering rules that must be known before a chunk's data arrives (PNG 5.6), and the
    /// state that reads the data.
    private mutating func begin(_ chunk: Chunk, _ events: inout [DecodingEvent]) throws(PNGError) {
        let type = chunk.type
        guard let info else {
            guard type == .IHDR else { throw .missingHeader(offset: chunk.start) }
            // Known from the length field alone: no need to wait for (possibly 2 GiB of) data.
            guard chunk.length == 13 else { throw .invalidHeaderLength(length: UInt32(chunk.length), offset: chunk.start) }
            state = .chunkBody(chunk)
            return
        }
        if type == .IDAT {
            if imageDataEnded { throw .nonContiguousImageData(offset: chunk.start) }
            if !seenIDAT { try startImageData(info, chunk, &events) }
            state = .imageData(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
            return
        }
        // Events in stream order: rows decoded from earlier IDATs come before whatever this chunk reports.
        flushRows(&events)
        if seenIDAT && !imageDataEnded {
            imageDataEnded = true
            if let imageData, imageData.rowsComplete && !imageData.streamEnded {
                events.append(.warning("zlib stream of the image data not terminated before byte \(chunk.start)"))
            }
        }
        if type == .acTL || type == .fcTL || type == .fdAT {
            if animation.broken != nil || type != .acTL && animation.control == nil {
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
            if seenIDAT { throw .chunkOutOfOrder(chunk: type.description, offset: chunk.start) }
            if info.colorType == .gray || info.colorType == .grayAlpha { throw .unexpectedPalette(offset: chunk.start) }
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

    /// At the first IDAT the output format is final: check the limits again, allocate, report the header.
    private mutating func startImageData(_ info: PNGInfo, _ chunk: Chunk, _ events: inout [DecodingEvent]) throws(PNGError) {
        if info.colorType == .palette && info.palette == nil { throw .missingPalette(offset: chunk.start) }
        let format = info.outputFormat
        let (imageBytesPerPixel, extra) = ImageDataDecoder.outputBytes(info: info, rowMode: rowMode)
        if let violation = limits.check(width: info.width, height: info.height, bytesPerPixel: imageBytesPerPixel,
                                        extraBytes: extra) {
            throw .limitExceeded(violation, offset: chunk.start)
        }
        seenIDAT = true
        imageData = ImageDataDecoder(info: info, rowMode: rowMode)
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
        func skip(_ reason: String) { events.append(.warning("\(type) chunk at byte \(chunk.start) skipped: \(reason)")) }
        switch type {
        case .IHDR:
            let parsed = try PNGInfo.parseHeader(data, offset: chunk.start)
            // Before any allocation, with the smallest format this header allows (tRNS may add alpha later).
            let (imageBytesPerPixel, extra) = ImageDataDecoder.outputBytes(info: parsed, rowMode: rowMode)
            if let violation = limits.check(width: parsed.width, height: parsed.height,
                                            bytesPerPixel: imageBytesPerPixel, extraBytes: extra) {
                throw .limitExceeded(violation, offset: chunk.start)
            }
            info = parsed
            return
        case .IEND:
            if !data.isEmpty { skip("IEND has \(data.count) data bytes") }
            flushRows(&events)
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.endFrameData(offset: chunk.start)
                try a.checkFrameCount(offset: chunk.start)
            }
            if animation.stillFrame { events.append(.frameComplete(0)) }
            events.append(.end)
            state = .ended
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
            return
        case .fcTL:
            let seenIDAT = seenIDAT
            try animationStep(&events) { (a: inout APNGState) throws(PNGError) in
                try a.endFrameData(offset: chunk.start)
                _ = try a.readFrameControl(data, info: info, seenIDAT: seenIDAT, offset: chunk.start)
            }
            if animation.decodesFrames && animation.broken == nil { startFrame(info, &events) }
            return
        case .PLTE:
            info.palette = try info.parsePalette(data, offset: chunk.start)
            seenPLTE = true
        case .tRNS:
            if seenIDAT { return skip("after IDAT") }
            if seenOnce.contains(type.value) { return skip("duplicate") }
            if info.colorType == .palette && !seenPLTE { return skip("before PLTE") }
            // libpng ignores an empty palette tRNS rather than adding an all-opaque alpha channel.
            if info.colorType == .palette && data.isEmpty { return skip("empty") }
            let transparency = try info.parseTransparency(data, offset: chunk.start)
            seenOnce.insert(type.value)
            info.transparency = transparency
            if case let .palette(alphas) = transparency, let palette = info.palette {
                var rgba = palette.rgba
                for (i, a) in alphas.enumerated() { rgba[4 * i + 3] = a }
                info.palette = Palette(rgba: rgba)
            }
        default:
            if let problem = Self.placementProblem(type, seenPLTE: seenPLTE, seenIDAT: seenIDAT, colorType: info.colorType) {
                return skip(problem)
            }
            let repeatable = type == .tEXt || type == .zTXt || type == .iTXt
            if !repeatable && seenOnce.contains(type.value) { return skip("duplicate") }
            if type == .sRGB && metadata.iccProfile != nil || type == .iCCP && metadata.sRGBIntent != nil {
                return skip("both iCCP and sRGB present")
            }
            let outcome = try PNGMetadata.parse(type, data, info: info, into: &metadata, budget: &metadataBudget,
                                                limits: limits, offset: chunk.start)
            if case let .skipped(reason) = outcome { return skip(reason) }
            seenOnce.insert(type.value)
        }
        self.info = info
    }

    /// Where PNG 5.6 (Table 5.3) allows each ancillary chunk; nil when this one is in place.
    private static func placementProblem(_ type: ChunkType, seenPLTE: Bool, seenIDAT: Bool, colorType: PNGColorType) -> String? {
        switch type {
        case .gAMA, .cHRM, .sRGB, .iCCP, .sBIT:
            if seenPLTE || seenIDAT { return "must come before PLTE and IDAT" }
        case .bKGD:
            if seenIDAT { return "must come before IDAT" }
            if colorType == .palette && !seenPLTE { return "must come after PLTE" }
        case .pHYs, .eXIf:
            if seenIDAT { return "must come before IDAT" }
        default:
            break
        }
        return nil
    }
}

// APNG: the animation chunks' rules, and frames decoded and composited when asked for.
extension PNGDecoder {
    /// Runs one animation rule check. A broken rule ends the animation: strict decoding throws
    /// it, the default notes it as a `.warning` and goes on with the static image.
    private mutating func animationStep(_ events: inout [DecodingEvent],
                                        _ body: (inout APNGState) throws(PNGError) -> Void) throws(PNGError) {
        guard animation.broken == nil else { return }
        do throws(PNGError) {
            try body(&animation)
        } catch {
            if options.strict { throw error }
            animation.broken = error
            animation.frameData = nil
            events.append(.warning("APNG animation ignored, the static image stands: \(error)"))
            if animation.decodesFrames && !animation.stillFrame && animation.frames.isEmpty && seenIDAT {
                // Broken before any frame began: the static image is the one frame after all.
                animation.stillFrame = true
                events.append(.frameStarted(0))
                if reportedRows > 0 { events.append(.rows(0 ..< reportedRows)) }
            }
        }
    }

    /// An fcTL was read: frame decoding starts (frame 0's data is the IDAT image when its fcTL
    /// came before IDAT).
    private mutating func startFrame(_ info: PNGInfo, _ events: inout [DecodingEvent]) {
        guard let frame = animation.frames.last else { return }
        if animation.compositor == nil {
            animation.compositor = APNGCompositor(width: info.width, height: info.height, sixteenBit: info.bitDepth == 16)
        }
        events.append(.frameStarted(animation.frames.count - 1))
        animation.reportedRows = 0
        if seenIDAT { animation.frameData = ImageDataDecoder(info: APNGState.frameInfo(info, frame)) }
    }

    /// Draws frame `index` onto the canvas once all its rows are decoded.
    private mutating func completeFrame(_ index: Int, from decoder: ImageDataDecoder,
                                        _ events: inout [DecodingEvent]) throws(PNGError) {
        // Moved out while drawing, so the canvas is not copied on write.
        guard var compositor = animation.compositor else { return }
        animation.compositor = nil
        let frame = animation.frames[index]
        compositor.draw(APNGState.canvasImage(from: decoder, frame, preview: false, format: compositor.format), control: frame)
        animation.compositor = compositor
        animation.completed += 1
        events.append(.frameComplete(index))
        if animation.pausesAfterEachFrame { animation.paused = true }
    }

    /// Frame 0 from the IDAT image, once its last row is decoded.
    private mutating func completeStaticFrame(_ events: inout [DecodingEvent]) throws(PNGError) {
        guard animation.fcTLBeforeIDAT, animation.broken == nil, animation.completed == 0,
              let imageData, imageData.rowsComplete, !animation.frames.isEmpty else { return }
        flushRows(&events)
        try completeFrame(0, from: imageData, &events)
    }

    /// Frame-by-frame iteration: go on after the pause that followed a frame.
    mutating func resume() { animation.paused = false }

    /// The canvas with the frame being decoded drawn as far as it has arrived; nil before the
    /// first frame starts.
    func animationPreview() -> Image? {
        guard let compositor = animation.compositor else { return nil }
        let index = animation.frames.count - 1
        if index >= animation.completed, index >= 0 {
            let frame = animation.frames[index]
            if let decoder = index == 0 && animation.fcTLBeforeIDAT ? imageData : animation.frameData {
                return compositor.preview(with: APNGState.canvasImage(from: decoder, frame, preview: true, format: compositor.format),
                                          control: frame)
            }
        }
        return compositor.image(metadata: metadata)
    }
}
