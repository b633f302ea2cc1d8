import ImageCore

/// What libwebp's still decoder (`ParseHeadersInternal`) reads besides a RIFF file: a `VP8 `
/// or `VP8L` chunk without the RIFF header (after ALPH and other chunks when the input starts
/// with `ALPH`), and a raw VP8 or VP8L bitstream with no chunk header (on its own, or where a
/// RIFF file's first chunk header should be). The bitstream
/// then runs to the end of the input. `strict`: each is an error.
extension WebPDecoder {
    /// The first 12 bytes are not `RIFF`: a bare image chunk, a raw bitstream, or an error.
    mutating func beginWithoutRIFF(_ b: ArraySlice<UInt8>, _ events: inout [DecodingEvent]) throws(WebPError) {
        let tag = FourCC(b.le32(0))
        guard !options.strict else { throw .invalid(what: "RIFF/WEBP signature", offset: 0) }
        sawFirstChunk = true
        if tag == .vp8 || tag == .vp8l {
            let size = Int(b.le32(4))
            guard size <= RIFF.maxChunkPayload else { throw .invalid(what: "\(tag) chunk size \(size)", offset: 4) }
            events.append(.warning("\(tag) chunk without a RIFF header: read as libwebp does"))
            // Nothing after the chunk counts; its data may run on to the end of the input.
            riffEnd = RIFF.chunkHeaderSize + size
            input.consume(RIFF.chunkHeaderSize)
            expectImage(tag, size: size)
            return
        }
        guard tag != .riff && tag != .vp8x else { throw .invalid(what: "RIFF/WEBP signature", offset: 0) }
        if tag == .alph {
            // `ParseOptionalChunks`: chunks up to a `VP8 `/`VP8L` one, the last ALPH kept for a
            // lossy image; then that chunk as above.
            events.append(.warning("ALPH and image chunks without a RIFF header: read as libwebp does"))
            bareChunks = true
            riffEnd = Int(Int32.max) << 2
            state = .chunkHeader
            return
        }
        beginRawBitstream(b, at: 0, &events)
    }

    /// A RIFF file's first chunk header is none of `VP8 `, `VP8L`, `VP8X`: libwebp reads the
    /// bytes there as a raw bitstream. False when `strict` (the caller throws).
    mutating func beginRawInRIFF(_ b: ArraySlice<UInt8>, at: Int, _ events: inout [DecodingEvent]) -> Bool {
        guard !options.strict else { return false }
        sawFirstChunk = true
        beginRawBitstream(b, at: at, &events)
        return true
    }

    /// A raw bitstream from the next unread byte (`at`) to the end of the input: VP8L when it
    /// has the VP8L signature (`VP8LCheckSignature`), else VP8 (its frame tag is checked with
    /// the header).
    private mutating func beginRawBitstream(_ b: ArraySlice<UInt8>, at: Int, _ events: inout [DecodingEvent]) {
        let lossless = VP8LHeader(b) != nil
        let tag: FourCC = lossless ? .vp8l : .vp8
        events.append(.warning("raw \(lossless ? "VP8L" : "VP8") bitstream without a chunk header: read as libwebp does"))
        rawBitstream = true
        riffEnd = at
        expectImage(tag, size: 0)
    }
}
