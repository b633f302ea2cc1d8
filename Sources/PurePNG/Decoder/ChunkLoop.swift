import CZlib
import ImageCore

/// The outer loop over chunks (PNG 5.3): each state of `State` waits for the bytes it needs;
/// chunk headers are checked and dispatched, IDAT and fdAT payloads streamed, CRCs verified.
extension PNGDecoder {
    /// The outer loop: each state waits for the bytes it needs and returns when they are short.
    mutating func run(_ input: inout Cursor, _ events: inout [DecodingEvent]) throws(PNGError) {
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
    mutating func ancillaryCRCError(_ chunk: Chunk, _ error: PNGError, _ events: inout [DecodingEvent]) throws(PNGError) {
        guard chunk.type.isAncillary, !options.strict else { throw error }
        if chunk.type == .acTL || chunk.type == .fcTL || chunk.type == .fdAT, animation.control != nil {
            try animationStep(&events) { (_: inout APNGState) throws(PNGError) in throw error }
            return
        }
        events.append(.warning("\(chunk.type) chunk at offset \(chunk.start) dropped: wrong CRC, as libpng does"))
    }

    static func crc(_ crc: UInt, _ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { CZlib.crc32(crc, $0.baseAddress, UInt32($0.count)) }
    }

    /// Ordering rules that must be known before a chunk's data arrives (PNG 5.6), and the
    /// state that reads the data.
    mutating func begin(_ chunk: Chunk, _ events: inout [DecodingEvent]) throws(PNGError) {
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
        case .tRNS, .gAMA, .cHRM, .sRGB, .cICP, .pHYs, .tIME, .bKGD, .sBIT:
            state = .chunkBody(chunk)
        default:
            if type.isCritical { throw .unknownCriticalChunk(chunk: type.description, offset: chunk.start) }
            state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), type.bytes))
        }
    }

    /// libpng's default treatment of a chunk it reads past with a warning: strict decoding
    /// throws `strict`; otherwise a `.warning` and the chunk is skipped as it arrives.
    mutating func lenientSkip(_ chunk: Chunk, _ reason: String, strict: PNGError,
                                      _ events: inout [DecodingEvent]) throws(PNGError) {
        if options.strict { throw strict }
        events.append(.warning("\(chunk.type) chunk at offset \(chunk.start) skipped: \(reason)"))
        state = .skipping(chunk, remaining: chunk.length, crc: Self.crc(CZlib.crc32(0, nil, 0), chunk.type.bytes))
    }

    /// Chunks libpng 1.6 reads itself (an unknown ancillary chunk is skipped anywhere, even
    /// before IHDR; one of these before IHDR is its "missing IHDR" error).
    static func libpngKnows(_ type: ChunkType) -> Bool {
        [ChunkType.IHDR, .PLTE, .IDAT, .IEND, .tRNS, .gAMA, .cHRM, .sRGB, .iCCP, .tEXt, .zTXt, .iTXt, .pHYs, .tIME,
         .bKGD, .sBIT, .hIST, .sPLT, .eXIf, ChunkType("oFFs"), ChunkType("pCAL"), ChunkType("sCAL")].contains(type)
    }
}
