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

    /// Options; by default every chunk's CRC is checked.
    public init(checkCRC: Bool = true) {
        self.checkCRC = checkCRC
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
            events.append(.rows(reportedRows ..< rows))
            reportedRows = rows
        }
    }

    /// The outer loop: each state waits for the bytes it needs and returns when they are short.
    private mutating func run(_ input: inout Cursor, _ events: inout [DecodingEvent]) throws(PNGError) {
        while true {
            if imageData?.pendingRows.isEmpty == false { return }
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
                crc = CZlib.crc32(crc, bytes.baseAddress, UInt32(used))
                input.consume(used)
                remaining -= used
                state = .imageData(chunk, remaining: remaining, crc: crc)

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
            events.append(.end)
            state = .ended
            return
        default:
            break
        }
        guard var info else { return }
        switch type {
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
